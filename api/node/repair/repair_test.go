package repair_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"

	"github.com/referto/referto/api/apitest"
	"github.com/referto/referto/api/client"
	"github.com/referto/referto/api/node"
	"github.com/referto/referto/api/node/repair"
	"github.com/referto/referto/events"
)

const admin = "repair-admin"

// venue is a data directory with two tournaments whose commands
// interleave, every one acknowledged, its node stopped, and what it
// acknowledged.
type venue struct {
	dir, backup string
	exports     map[string][]byte
	acked       map[string]uint64
	msgs        []events.StoredCommit // the stream as acknowledged
	key         note.Verifier
}

func newVenue(t *testing.T) *venue {
	t.Helper()
	ctx := context.Background()
	v := &venue{dir: filepath.Join(t.TempDir(), "venue"), exports: map[string][]byte{}, acked: map[string]uint64{}}
	n, srv := apitest.Serve(t, v.dir, admin)
	c := &client.Client{Base: srv.URL, Token: admin}
	for _, tn := range []string{"alfa", "beta"} {
		if _, err := c.CreateTournament(ctx, "", client.NewTournament{ID: tn, Name: tn, Ruleset: "rtu"}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= 8; i++ {
		for _, tn := range []string{"alfa", "beta"} {
			o, err := c.CommandJSON(ctx, tn, "", []byte(fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%d","name":"Giocatore %d"}`, i, i)))
			if err != nil {
				t.Fatal(err)
			}
			v.acked[tn] = o.Seq
		}
	}
	for _, tn := range []string{"alfa", "beta"} {
		e, err := c.Export(ctx, tn)
		if err != nil {
			t.Fatal(err)
		}
		v.exports[tn], err = io.ReadAll(e.Body)
		e.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	v.backup = filepath.Join(t.TempDir(), "full.tar")
	f, err := os.Create(v.backup)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Backup(ctx, f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	v.key = n.Keys.Verifier
	srv.Close()
	n.Close()
	lg, closeLog, err := node.OpenLog(ctx, node.Layout{Dir: v.dir}, node.LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	last, _ := lg.LastSeq(ctx)
	err = lg.Scan(ctx, 1, last, "", func(m events.StoredCommit) error { v.msgs = append(v.msgs, m); return nil })
	closeLog()
	if err != nil || len(v.msgs) != 18 {
		t.Fatalf("%d messages, %v; want 18", len(v.msgs), err)
	}
	return v
}

// tornCopy is a copy of the venue whose last message block lost its last
// 200 bytes, the end of its last commit, as a crash and a bad disk leave
// it.
func (v *venue) tornCopy(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "torn")
	if out, err := exec.Command("cp", "-a", v.dir, dir).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	blks, _ := filepath.Glob(filepath.Join(dir, "nats", "jetstream", "*", "streams", "REFERTO", "msgs", "*.blk"))
	if len(blks) != 1 {
		t.Fatalf("%d blocks", len(blks))
	}
	fi, err := os.Stat(blks[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(blks[0], fi.Size()-200); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(filepath.Dir(blks[0]), "index.db"))
	return dir
}

// hub is the hub's copy of the venue's log, less the stream sequences in
// missing; it takes only the venue's own proofs.
type hub struct {
	v       *venue
	missing map[uint64]bool
}

func (h hub) VenueLog(_ context.Context, t string, proof []byte) ([]byte, []repair.Message, error) {
	if _, err := note.Open(proof, note.VerifierList(h.v.key)); err != nil {
		return nil, nil, fmt.Errorf("a proof not the venue's: %w", err)
	}
	var out []repair.Message
	for _, m := range h.v.msgs {
		if m.Tournament == t && !h.missing[m.StreamSeq] {
			out = append(out, repair.Message{StreamSeq: m.StreamSeq, Tournament: t, MsgID: m.MsgID, Request: m.Request, Data: m.Data})
		}
	}
	return nil, out, nil
}

// served starts a node on dir and checks it has no damage, serves every
// tournament as acknowledged and takes the next command at the next seq.
func (v *venue) served(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	n, srv := apitest.Serve(t, dir, admin)
	defer func() { srv.Close(); n.Close() }()
	if ds := n.Damages.All(); len(ds) > 0 {
		t.Fatalf("after the repair: %v", ds)
	}
	c := &client.Client{Base: srv.URL, Token: admin}
	for _, tn := range []string{"alfa", "beta"} {
		e, err := c.Export(ctx, tn)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(e.Body)
		e.Body.Close()
		if !bytes.Equal(got, v.exports[tn]) {
			t.Errorf("%s after the repair: %d bytes, want the %d acknowledged", tn, len(got), len(v.exports[tn]))
		}
		o, err := c.CommandJSON(ctx, tn, "", []byte(`{"type":"RegisterPlayer","player":"next","name":"Il prossimo"}`))
		if err != nil || o.Seq != v.acked[tn]+1 {
			t.Errorf("the next command of %s: seq %d, %v; want %d", tn, o.Seq, err, v.acked[tn]+1)
		}
	}
}

// TestRepairBringsBackEveryAcknowledgedCommand: a log that lost its last
// commit is repaired from the hub's copy, or from a backup, message for
// message at its stream sequence; the damaged log is kept aside.
func TestRepairBringsBackEveryAcknowledgedCommand(t *testing.T) {
	v := newVenue(t)
	for _, tc := range []struct {
		name string
		o    repair.Options
		from func(repair.Tournament) int
	}{
		{"from the hub", repair.Options{Hub: hub{v: v}}, func(tr repair.Tournament) int { return tr.FromHub }},
		{"from a backup", repair.Options{Backup: v.backup}, func(tr repair.Tournament) int { return tr.FromBackup }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := v.tornCopy(t)
			tc.o.Data = dir
			rep, err := repair.Repair(context.Background(), tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Messages != 18 || len(rep.Tournaments) != 2 {
				t.Fatalf("repaired %d messages, %d tournaments; want 18 and 2", rep.Messages, len(rep.Tournaments))
			}
			beta := rep.Tournaments[1]
			if beta.ID != "beta" || beta.Damage == nil || beta.Damage.Seq != 9 || beta.Kept != 8 || tc.from(beta) != 1 || beta.Events != 9 || beta.Acknowledged != 9 {
				t.Errorf("beta's repair: %+v, damage %v; want damaged at event 9, 8 messages kept, 1 brought back", beta, beta.Damage)
			}
			if _, err := os.Stat(rep.Aside); err != nil {
				t.Errorf("the damaged log was not kept: %v", err)
			}
			v.served(t, dir)
		})
	}
}

// TestRepairThatCannotCompleteReplacesNothing: when neither source holds
// an acknowledged commit the log lost, the repair says which event is
// missing and leaves the directory as it was.
func TestRepairThatCannotCompleteReplacesNothing(t *testing.T) {
	v := newVenue(t)
	dir := v.tornCopy(t)
	last := v.msgs[len(v.msgs)-1]
	_, err := repair.Repair(context.Background(), repair.Options{Data: dir, Hub: hub{v: v, missing: map[uint64]bool{last.StreamSeq: true}}})
	if err == nil || !strings.Contains(err.Error(), "tournament beta cannot be repaired") || !strings.Contains(err.Error(), "damaged at event 9") {
		t.Fatalf("%v, want beta's event 9 named missing", err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "nats.*")); len(m) > 0 {
		t.Errorf("a failed repair left %v", m)
	}
	if _, err := repair.Repair(context.Background(), repair.Options{Data: dir, Backup: v.backup, Hub: hub{v: v}}); err != nil {
		t.Fatalf("then from both: %v", err)
	}
	v.served(t, dir)
	// Another venue's backup is refused.
	other := newVenue(t)
	dir = v.tornCopy(t)
	if _, err := repair.Repair(context.Background(), repair.Options{Data: dir, Backup: other.backup}); err == nil || !strings.Contains(err.Error(), "another venue") {
		t.Errorf("another venue's backup: %v", err)
	}
	if _, err := repair.Repair(context.Background(), repair.Options{Data: dir}); err == nil {
		t.Error("a repair from nothing ran")
	}
}
