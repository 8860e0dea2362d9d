package pebble

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// TestSnapshotPiecesReadBack: a snapshot written in pieces (here of 7 bytes)
// and one written whole by an older referto (snap/<T>, encoding/json) both
// read back into the state they were written from.
func TestSnapshotPiecesReadBack(t *testing.T) {
	st, err := Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	mk := func(id string) *projections.Tournament {
		tr := projections.New(id)
		tr.Name, tr.Seq, tr.LastStreamSeq = "Raduno "+id, 3, 9
		tr.Created = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
		tr.Players["p1"] = &projections.Player{ID: "p1", Name: "Mario Rossi", Club: "Pisa", Status: projections.StatusActive, Registered: 2}
		tr.Order = []string{"p1"}
		tr.CheckIns = map[int]map[string]*projections.CheckIn{1: {"p1": {MinutesLate: 12, Admitted: true, Rule: "late", Seq: 3}}}
		tr.Times = []int64{1, 2, 3}
		tr.Rolls = []events.TieBreakRolled{}
		return tr
	}
	alpha, beta := mk("alpha"), mk("beta")
	b := st.db.NewBatch()
	cw := &chunkWriter{b: b, id: "alpha", size: 7}
	if err := alpha.WriteSnapshot(cw); err != nil {
		t.Fatal(err)
	}
	if err := cw.flush(); err != nil {
		t.Fatal(err)
	}
	if cw.i < 10 {
		t.Fatalf("%d pieces of 7 bytes for %d bytes", cw.i, cw.n)
	}
	old, _ := json.Marshal(beta)
	if err := b.Set(keySnap("beta"), old, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(nil); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	if err := st.snapshots(func(tr *projections.Tournament) {
		j, _ := json.Marshal(tr)
		got[tr.ID] = string(j)
	}); err != nil {
		t.Fatal(err)
	}
	for _, tr := range []*projections.Tournament{alpha, beta} {
		want, _ := json.Marshal(tr)
		if got[tr.ID] != string(want) {
			t.Errorf("%s read back as\n%s\nwant\n%s", tr.ID, got[tr.ID], want)
		}
	}
}
