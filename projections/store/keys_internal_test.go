package store

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/referto/referto/projections"
)

// The keys are built without fmt; they must be the bytes fmt built, which
// every store written so far holds.
func TestKeysAreWhatFmtWrote(t *testing.T) {
	for j, n := range []uint64{0, 1, 9, 10, 99, 100, 9999, 10000, 123456, 1<<32 + 7, 1<<64 - 1} {
		i := int(n % (1 << 31))
		if j%2 == 1 {
			i = -i // only a forged log could hold these
		}
		for _, c := range []struct{ got, want string }{
			{string(prefixSnapGen("t-1", n)), fmt.Sprintf("snap/%s/g%020d/", "t-1", n)},
			{string(keySnapChunk([]byte("snap/t/g1/"), i)), fmt.Sprintf("snap/t/g1/%06d", i)},
			{string(keyCommit("t-1", n)), fmt.Sprintf("idx/commit/%s/%020d", "t-1", n)},
			{string(keyRound("t-1", i)), fmt.Sprintf("v/%s/round/%04d", "t-1", i)},
			{string(keyTable("t-1", i, i+1)), fmt.Sprintf("v/%s/round/%04d/table/%04d", "t-1", i, i+1)},
			{string(prefixTables("t-1", i)), fmt.Sprintf("v/%s/round/%04d/table/", "t-1", i)},
			{string(keyNode("t-1", uint(n%64), n)), fmt.Sprintf("mt/%s/%02d/%016x", "t-1", n%64, n)},
		} {
			if c.got != c.want {
				t.Errorf("%d: got %q, want %q", n, c.got, c.want)
			}
		}
	}
}

// The index values read back into the CommitRef they were written from,
// whatever the command id holds; idx/cmd keeps the stream sequence alone,
// and what older stores wrote there (the whole CommitRef, as json.Marshal
// wrote it) still reads.
func TestCommitRefsReadBack(t *testing.T) {
	for _, ref := range []projections.CommitRef{
		{Tournament: "t-1", StreamSeq: 42, First: 7, Last: 9, CommandID: "k"},
		{Tournament: "t-1", StreamSeq: 1, First: 1, Last: 1, CommandID: `a"b\c<d>&e` + "\u00e8\u2028"},
		{Tournament: "t-1", StreamSeq: 1<<64 - 1, First: 1, Last: 1 << 40},
		{StreamSeq: 5},
	} {
		var back projections.CommitRef
		b := appendCommitRef([]byte("junk"), ref)[len("junk"):]
		if err := json.Unmarshal(b, &back); err != nil || back != ref {
			t.Errorf("%s reads back as %+v (%v), want %+v", b, back, err, ref)
		}
	}
	st, err := Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	old, _ := json.Marshal(projections.CommitRef{Tournament: "t-1", StreamSeq: 12, First: 3, Last: 4, CommandID: "k1"})
	for key, v := range map[string][]byte{"k1": old, "k2": appendCommitRef(nil, projections.CommitRef{StreamSeq: 13})} {
		if err := st.db.Set(keyCommand("t-1", key), v, nil); err != nil {
			t.Fatal(err)
		}
	}
	for key, want := range map[string]uint64{"k1": 12, "k2": 13} {
		ref, ok, err := st.Command("t-1", key)
		if err != nil || !ok || ref.StreamSeq != want || ref.Tournament != "t-1" {
			t.Errorf("Command(%s): %+v %v %v, want stream sequence %d", key, ref, ok, err, want)
		}
	}
}
