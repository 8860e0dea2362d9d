package ledger_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
)

// TestChainNamesTheDamagedEvent: a tournament's commits, damaged one way
// or another, are checked as the venue checks its log; the damage is named
// at the damaged event itself, never the one after, and, with the leaves
// the projections applied, a line whose link changed is told from the line
// before it.
func TestChainNamesTheDamagedEvent(t *testing.T) {
	w := created(t)
	rec := &heads{}
	l := w.ledger(func(o *ledger.Options) { o.Heads = rec })
	for i := range 6 {
		if _, err := l.Submit(context.Background(), register(t, fmt.Sprintf("p%d", i), fmt.Sprintf("k%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	head, _ := rec.Get("bo")
	if head.Size != 7 {
		t.Fatalf("acknowledged head of %d events, want 7", head.Size)
	}
	pristine := w.msgs // event i+1 at i: one event a commit
	leaves := func(ids []checkpoint.NodeID) ([][]byte, error) {
		out := make([][]byte, len(ids))
		for i, id := range ids {
			if id.Level != 0 || id.Index >= uint64(len(pristine)) {
				return nil, checkpoint.ErrNode
			}
			out[i] = checkpoint.LeafHash(bytes.TrimSuffix(pristine[id.Index].Data, []byte("\n")))
		}
		return out, nil
	}
	edit := func(i int, f func([]byte) []byte) func([]events.StoredCommit) []events.StoredCommit {
		return func(ms []events.StoredCommit) []events.StoredCommit {
			ms[i].Data = f(bytes.Clone(ms[i].Data))
			return ms
		}
	}
	for _, tc := range []struct {
		name   string
		damage func([]events.StoredCommit) []events.StoredCommit
		leaves bool
		seq    uint64 // the damaged event named
		what   string
	}{
		{"intact", func(ms []events.StoredCommit) []events.StoredCommit { return ms }, false, 0, ""},
		{"a line changed", edit(3, func(b []byte) []byte { return bytes.Replace(b, []byte("Giocatore"), []byte("Giocatorx"), 1) }), false, 4,
			"no longer hashes to what event 5 links to"},
		{"a line changed, with the leaves", edit(3, func(b []byte) []byte { return bytes.Replace(b, []byte("Giocatore"), []byte("Giocatorx"), 1) }), true, 4,
			"not the one the projections applied"},
		{"a link changed, with the leaves", edit(4, func(b []byte) []byte {
			env, _ := events.DecodeEnvelope(bytes.TrimSuffix(b, []byte("\n")))
			return bytes.Replace(b, []byte(env.Prev), []byte(events.LinkTo(make([]byte, 32))), 1)
		}), true, 5, "not the one the projections applied"},
		{"a line that does not decode", edit(2, func(b []byte) []byte { return b[1:] }), false, 3, "does not decode"},
		{"a commit missing", func(ms []events.StoredCommit) []events.StoredCommit { return append(ms[:2:2], ms[3:]...) }, false, 3,
			"it is missing: the log goes from event 2"},
		{"the first commits missing", func(ms []events.StoredCommit) []events.StoredCommit { return ms[2:] }, false, 1,
			"it is missing: the log begins at event 3"},
		{"the tail cut", func(ms []events.StoredCommit) []events.StoredCommit { return ms[:5] }, false, 6,
			"it is missing: the log ends at event 5"},
		{"the acknowledged last line changed", edit(6, func(b []byte) []byte { return bytes.Replace(b, []byte("Giocatore"), []byte("Giocatorx"), 1) }), false, 7,
			"not the one acknowledged"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms := tc.damage(append([]events.StoredCommit(nil), pristine...))
			var get checkpoint.NodeGetter
			if tc.leaves {
				get = leaves
			}
			c := ledger.NewChain("bo", head, get)
			var d *ledger.Damage
			for _, m := range ms {
				if d = c.Add(m); d != nil {
					break
				}
			}
			if d == nil {
				d = c.End()
			}
			switch {
			case tc.seq == 0 && d != nil:
				t.Fatalf("an intact log is damaged: %s", d)
			case tc.seq == 0:
				if h := c.Head(); h.Size != head.Size || !bytes.Equal(h.Root, head.Root) || !bytes.Equal(h.Last, head.Last) {
					t.Errorf("the intact log's head %+v is not the one acknowledged, %+v", h, head)
				}
			case d == nil:
				t.Fatalf("the damage was not found")
			case d.Seq != tc.seq || !strings.Contains(d.What, tc.what):
				t.Errorf("damage at event %d: %q; want event %d: %q", d.Seq, d.What, tc.seq, tc.what)
			}
		})
	}
}
