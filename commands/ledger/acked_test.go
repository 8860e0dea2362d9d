package ledger_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/projections"
)

// heads is a HeadRecord in memory, remembering the order of its records.
type heads struct {
	mu   sync.Mutex
	m    map[string]ledger.AckedHead
	fail error
}

func (h *heads) Record(a ledger.AckedHead) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.fail != nil {
		return h.fail
	}
	if h.m == nil {
		h.m = map[string]ledger.AckedHead{}
	}
	if a.Size > h.m[a.Tournament].Size {
		h.m[a.Tournament] = a
	}
	return nil
}

func (h *heads) Get(t string) (ledger.AckedHead, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	a, ok := h.m[t]
	return a, ok
}

// TestEveryAnswerFollowsItsHead: each command is answered only once the
// record holds a head of its tournament as long as its seq, with the
// Merkle root and last leaf of the log's first events; a command whose
// head cannot be recorded is not answered (it is stored), and sent again
// with its key it is answered, replayed, once its head is recorded.
func TestEveryAnswerFollowsItsHead(t *testing.T) {
	w := created(t)
	rec := &heads{}
	l := w.ledger(func(o *ledger.Options) { o.Heads = rec })
	ctx := context.Background()
	for i := range 5 {
		o, err := l.Submit(ctx, register(t, fmt.Sprintf("p%d", i), fmt.Sprintf("k%d", i)))
		if err != nil {
			t.Fatal(err)
		}
		got, ok := rec.Get("bo")
		if !ok || got.Size < o.Seq {
			t.Fatalf("answered seq %d with the record at %+v", o.Seq, got)
		}
		var want checkpoint.Head
		w.readHead("bo", func(_ *projections.Tournament, h checkpoint.Head) { want = h })
		if got.Size != want.Size || !bytes.Equal(got.Root, want.Root) || !bytes.Equal(got.Last, want.Last) {
			t.Errorf("recorded %d events, root %x, last %x; the log's head is %d, %x, %x", got.Size, got.Root, got.Last, want.Size, want.Root, want.Last)
		}
	}
	// Another node appends between this one's decision and its append: the
	// head recorded is the one the projections reach, which holds the
	// command.
	appends := 0
	w.log.appendRequest = func(ctx context.Context, tt string, expected uint64, id, request string, body []byte) (events.Appended, error) {
		if appends++; appends == 1 {
			w.appendAsAnotherNode(register(t, "theirs", "theirs"))
		}
		return w.append(ctx, tt, expected, id, request, body)
	}
	l = w.ledger(func(o *ledger.Options) { o.Heads = rec })
	o, err := l.Submit(ctx, register(t, "mine", "mine"))
	if err != nil || o.Seq != 8 {
		t.Fatalf("after a conflict: %+v, %v; want seq 8", o, err)
	}
	if got, _ := rec.Get("bo"); got.Size != 8 {
		t.Errorf("after a conflict the record holds %d events, want 8", got.Size)
	}
	w.log.appendRequest = w.append
	l = w.ledger(func(o *ledger.Options) { o.Heads = rec })
	rec.fail = errors.New("disk full")
	sub := register(t, "late", "k-late")
	if _, err := l.Submit(ctx, sub); !errors.Is(err, events.ErrUnavailable) {
		t.Fatalf("a head that cannot be recorded: %v, want ErrUnavailable", err)
	}
	if w.size() != 9 {
		t.Fatalf("%d commits, want 9: the command is stored", w.size())
	}
	rec.fail = nil
	o, err = l.Submit(ctx, sub)
	if err != nil || !o.Replayed || o.Seq != 9 {
		t.Fatalf("sent again: %+v, %v; want seq 9 replayed", o, err)
	}
	if got, _ := rec.Get("bo"); got.Size != 9 {
		t.Errorf("after the replay the record holds %d events, want 9", got.Size)
	}
}

// TestACommandCutShortUnlocksItsTournamentOnceApplied: a command whose
// wait for the projections ends with its context is stored but not
// answered, and its head not recorded; its tournament stays locked until
// the state holds it, then takes the next command, and each accepted
// command reports its split once. Sent again, it is answered, replayed.
func TestACommandCutShortUnlocksItsTournamentOnceApplied(t *testing.T) {
	w := created(t)
	rec := &heads{}
	held := make(chan struct{}) // the projections apply nothing past seq 1 until closed
	w.state.waitFor = func(ctx context.Context, seq uint64) error {
		if seq > 1 {
			select {
			case <-held:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return w.waitFor(ctx, seq)
	}
	l := w.ledger(func(o *ledger.Options) { o.Heads = rec })
	first := register(t, "p1", "k1")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	_, err := l.Submit(ctx, first)
	cancel()
	if !errors.Is(err, events.ErrUnavailable) {
		t.Fatalf("a command whose wait is cut short: %v, want ErrUnavailable", err)
	}
	if w.size() != 2 {
		t.Fatalf("%d commits, want 2: the command is stored", w.size())
	}
	if h, ok := rec.Get("bo"); ok {
		t.Fatalf("the record holds %+v before the state holds the command", h)
	}
	next := make(chan error, 1)
	go func() {
		_, err := l.Submit(context.Background(), register(t, "p2", "k2"))
		next <- err
	}()
	select {
	case err := <-next:
		t.Fatalf("the next command was answered (%v) while the tournament was locked", err)
	case <-time.After(50 * time.Millisecond):
	}
	if w.size() != 2 {
		t.Fatalf("%d commits: the next command was appended while the tournament was locked", w.size())
	}
	close(held)
	select {
	case err := <-next:
		if err != nil {
			t.Fatalf("the next command once the state holds the first: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the tournament stayed locked once the state held its command")
	}
	if h, _ := rec.Get("bo"); h.Size != 3 {
		t.Errorf("the record holds %d events, want 3", h.Size)
	}
	o, err := l.Submit(context.Background(), first)
	if err != nil || !o.Replayed || o.Seq != 2 {
		t.Fatalf("the first sent again: %+v, %v; want seq 2 replayed", o, err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		w.obs.mu.Lock()
		n := len(w.obs.splits)
		w.obs.mu.Unlock()
		if n == 2 {
			break
		}
		if n > 2 || time.Now().After(deadline) {
			t.Fatalf("%d splits reported, want one per accepted command, 2", n)
		}
	}
}

// TestADamagedTournamentRefusesEveryCommand: a tournament whose log is
// damaged takes no command, refused with the damage and its remedy, and
// nothing is appended; the others go on.
func TestADamagedTournamentRefusesEveryCommand(t *testing.T) {
	w := created(t)
	ds := &ledger.Damages{}
	ds.Mark(ledger.Damage{Tournament: "bo", Seq: 1, Acknowledged: 1, What: "it is missing"})
	l := w.ledger(func(o *ledger.Options) { o.Damages = ds })
	_, err := l.Submit(context.Background(), register(t, "p1", "k1"))
	var de *ledger.DamageError
	if !errors.Is(err, ledger.ErrDamaged) || !errors.As(err, &de) || de.Damage.Seq != 1 {
		t.Fatalf("%v, want the damage of bo at event 1", err)
	}
	for _, want := range []string{"damaged at event 1", "it is missing", "referto repair"} {
		if !bytes.Contains([]byte(err.Error()), []byte(want)) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if w.size() != 1 {
		t.Errorf("%d commits, want 1: nothing appended", w.size())
	}
}
