package store

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// TestSnapshotPiecesReadBack: a snapshot written in pieces (here of 7
// bytes) of the generation snapcur/<T> names reads back into the state it
// was written from, and so do the layouts of older stores (pieces without
// a generation, the whole state in one key). Pieces of a generation no
// pointer names (a snapshot cut short by a crash) are passed over.
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
		tr.Players["p1"] = &projections.Player{ID: "p1", Name: "Mario Rossi", Club: "Pisa", Status: events.StatusActive, Registered: 2}
		tr.Order = []string{"p1"}
		tr.CheckIns = map[int]map[string]*projections.CheckIn{1: {"p1": {MinutesLate: 12, Admitted: true, Rule: "late", Seq: 3}}}
		tr.Times = []int64{1, 2, 3}
		tr.Rolls = []events.TieBreakRolled{}
		return tr
	}
	alpha, beta, gamma := mk("alpha"), mk("beta"), mk("gamma")
	out := &viewBatch{db: st.db, b: st.db.NewBatch(), parts: 64}
	defer func() { out.b.Close() }()
	write := func(tr *projections.Tournament, prefix []byte) int {
		cw := &chunkWriter{out: out, prefix: prefix, size: 7}
		if err := tr.WriteSnapshot(cw); err != nil {
			t.Fatal(err)
		}
		if err := cw.flush(); err != nil {
			t.Fatal(err)
		}
		return cw.i
	}
	// alpha: generation 5 is current; generation 9 was cut short, and
	// generation 2's pieces were not deleted yet.
	if n := write(alpha, prefixSnapGen("alpha", 5)); n < 10 {
		t.Fatalf("%d pieces of 7 bytes", n)
	}
	write(mk("alpha-9"), prefixSnapGen("alpha", 9))
	write(mk("alpha-2"), prefixSnapGen("alpha", 2))
	set := func(k, v []byte) {
		if err := out.set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	set(keySnapCur("alpha"), u64(5))
	// beta: an older store's single piece; gamma: its pieces.
	old, _ := json.Marshal(beta)
	set(keySnap("beta"), old)
	write(gamma, prefixSnap("gamma"))
	// delta: only the pieces of a snapshot never completed.
	write(mk("delta"), prefixSnapGen("delta", 4))
	if err := out.b.Commit(nil); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	if err := st.snapshots(func(tr *projections.Tournament) {
		j, _ := json.Marshal(tr)
		got[tr.ID] = string(j)
	}); err != nil {
		t.Fatal(err)
	}
	for _, tr := range []*projections.Tournament{alpha, beta, gamma} {
		want, _ := json.Marshal(tr)
		if got[tr.ID] != string(want) {
			t.Errorf("%s read back as\n%s\nwant\n%s", tr.ID, got[tr.ID], want)
		}
	}
	if s, ok := got["delta"]; ok || len(got) != 3 {
		t.Errorf("read %d snapshots; delta, never completed, as %s", len(got), s)
	}
}

// TestSnapshotOverwritesAnAttemptCutShort: pieces left under the generation
// a snapshot is about to use (an earlier attempt at the same stream
// sequence, cut short after more pieces) are deleted before it writes, and
// the generations before it go once it is current.
func TestSnapshotOverwritesAnAttemptCutShort(t *testing.T) {
	st, err := Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rs, _ := events.Preset("rtu")
	tr := projections.New("alpha")
	tr.Name, tr.Ruleset, tr.Seq, tr.LastStreamSeq = "Raduno", rs, 1, 40
	states := newStateCache()
	states.put(tr, nil)
	snaps := newSnapshotter(st, states, newFlusher(st, states, newRankings(st)), RunnerOptions{SnapshotEvery: 1})
	snaps.changed("alpha", 40)
	b := st.db.NewBatch()
	for _, k := range [][]byte{keySnapChunk(prefixSnapGen("alpha", 40), 999), keySnapChunk(prefixSnapGen("alpha", 7), 0), keySnap("alpha")} {
		if err := b.Set(k, []byte(`"left over"`), nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Commit(nil); err != nil {
		t.Fatal(err)
	}
	if err := snaps.write(40); err != nil {
		t.Fatal(err)
	}
	var got []*projections.Tournament
	if err := st.snapshots(func(x *projections.Tournament) { got = append(got, x) }); err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(tr)
	if len(got) != 1 {
		t.Fatalf("%d snapshots", len(got))
	}
	if j, _ := json.Marshal(got[0]); string(j) != string(want) {
		t.Errorf("read back as\n%s\nwant\n%s", j, want)
	}
	n := 0
	if err := st.scan(prefixSnap("alpha"), func(k, _ []byte) error {
		if !bytes.HasPrefix(k, prefixSnapGen("alpha", 40)) {
			t.Errorf("%s left behind", k)
		}
		n++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, closer, err := st.db.Get(keySnap("alpha")); err == nil {
		closer.Close()
		t.Error("the older store's single piece was left behind")
	}
	if n == 0 {
		t.Error("no pieces")
	}
}
