package demo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// report prints the classification and checks the projections against a
// fold of the log read back through the API.
func (d *raduno) report() error {
	cl, err := d.arb.Classification(d.ctx, d.t)
	if err != nil {
		return err
	}
	d.printf("\nFinal classification (published: %v)\n", cl.Final)
	w := tabwriter.NewWriter(d.out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(w, "rank\tplayer\tname\tclub\tphase\ttotal\tstatus")
	for _, r := range cl.Rows {
		if r.Rank > 20 && r.Status == events.StatusActive {
			continue
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Rank, r.Player, r.Name, r.Club, r.Phase, r.Total, r.Status)
	}
	w.Flush()
	d.printf("… %d ranked (the first 20 and everyone not active are shown)", len(cl.Rows))
	if len(cl.Expelled) > 0 {
		d.printf(", expelled: %s", strings.Join(cl.Expelled, " "))
	}
	d.printf("\n")

	// The log read back through the API, folded, gives what Pebble serves.
	envs, err := d.arb.AllEvents(d.ctx, d.t)
	if err != nil {
		return err
	}
	st, err := projections.Fold(d.t, envs, 0)
	if err != nil {
		return err
	}
	var served json.RawMessage
	if err := d.arb.Get(d.ctx, "/v1/tournaments/"+d.t+"/classification", &served); err != nil {
		return err
	}
	want, _ := json.Marshal(st.Classification())
	verdict := "yes"
	if !sameJSON(served, want) {
		verdict = "NO"
	}
	d.printf("log: %d events; the classification served equals a fold of the log: %s\n", len(envs), verdict)
	if verdict != "yes" {
		return errors.New("demo: the projections differ from a fold of the log")
	}
	return nil
}

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}
