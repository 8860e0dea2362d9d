package ledger_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/projections"
)

func head(t string, size uint64) ledger.AckedHead {
	return ledger.AckedHead{Tournament: t, Size: size, StreamSeq: 10 * size,
		Root: bytes.Repeat([]byte{byte(size)}, 32), Last: bytes.Repeat([]byte{byte(size + 1)}, 32)}
}

func openHeads(t *testing.T, path string) *ledger.Heads {
	t.Helper()
	h, _, err := ledger.OpenHeads(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// TestHeadsKeepTheLongestHeadOfEachTournament: what was recorded reads back
// after a reopen, the longest head of each tournament winning whatever the
// order of the records.
func TestHeadsKeepTheLongestHeadOfEachTournament(t *testing.T) {
	path := filepath.Join(t.TempDir(), "heads.log")
	h, created, err := ledger.OpenHeads(path)
	if err != nil || !created {
		t.Fatalf("open: created %v, %v; want a new record", created, err)
	}
	for _, a := range []ledger.AckedHead{head("bo", 1), head("mo", 4), head("bo", 3), head("bo", 2)} {
		if err := h.Record(a); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("record file %v, %v; want mode 0600", fi.Mode(), err)
	}
	h, created, err = ledger.OpenHeads(path)
	if err != nil || created {
		t.Fatalf("reopen: created %v, %v", created, err)
	}
	defer h.Close()
	for _, want := range []ledger.AckedHead{head("bo", 3), head("mo", 4)} {
		if got, ok := h.Get(want.Tournament); !ok || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("Get(%s) = %+v, %v; want %+v", want.Tournament, got, ok, want)
		}
	}
	if got := len(h.All()); got != 2 {
		t.Errorf("All holds %d tournaments, want 2", got)
	}
}

// threeHeads is a record of three heads of one tournament, and its bytes.
func threeHeads(t *testing.T) (string, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "heads.log")
	h := openHeads(t, path)
	for i := uint64(1); i <= 3; i++ {
		if err := h.Record(head("bo", i)); err != nil {
			t.Fatal(err)
		}
	}
	h.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, b
}

// TestHeadsDropALastRecordCutShort: a crash during the write of the last
// record (never fsynced whole, so never counted on) leaves a part of it:
// the record reopens without it, and the next record is written after the
// ones before it, readable.
func TestHeadsDropALastRecordCutShort(t *testing.T) {
	path, b := threeHeads(t)
	for _, cut := range []int{1, 20, 60} {
		if err := os.WriteFile(path, b[:len(b)-cut], 0o600); err != nil {
			t.Fatal(err)
		}
		h := openHeads(t, path)
		if got, _ := h.Get("bo"); got.Size != 2 {
			t.Errorf("cut by %d bytes: bo at %d, want 2 (the last record dropped)", cut, got.Size)
		}
		if err := h.Record(head("bo", 4)); err != nil {
			t.Fatal(err)
		}
		h.Close()
		if got, _ := openHeads(t, path).Get("bo"); got.Size != 4 {
			t.Errorf("cut by %d bytes, then recorded 4: reads back %d", cut, got.Size)
		}
	}
}

// TestHeadsRefuseARecordDamagedBeforeItsEnd: a changed byte in a record
// before the last one is the record itself damaged: what was acknowledged
// is not known, and opening it says so.
func TestHeadsRefuseARecordDamagedBeforeItsEnd(t *testing.T) {
	path, b := threeHeads(t)
	i := bytes.Index(b, []byte("bo 2 "))
	b[i+3] = '7'
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ledger.OpenHeads(path); !errors.Is(err, ledger.ErrHeadsDamaged) {
		t.Errorf("open of a record damaged at its third line: %v, want ErrHeadsDamaged", err)
	}
}

// TestHeadsConcurrentRecordsAllLand: records from many goroutines at once
// (sharing fsyncs) are all on disk when each Record returns.
func TestHeadsConcurrentRecordsAllLand(t *testing.T) {
	path := filepath.Join(t.TempDir(), "heads.log")
	h := openHeads(t, path)
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := uint64(1); i <= 20; i++ {
				if err := h.Record(head(fmt.Sprintf("t%d", g), i)); err != nil {
					t.Error(err)
					return
				}
				if got, _ := h.Get(fmt.Sprintf("t%d", g)); got.Size != i {
					t.Errorf("t%d: Record(%d) returned with %d on disk", g, i, got.Size)
				}
			}
		})
	}
	wg.Wait()
	h.Close()
	all := openHeads(t, path).All()
	for g := range 16 {
		if a := all[fmt.Sprintf("t%d", g)]; a.Size != 20 {
			t.Errorf("t%d reads back at %d, want 20", g, a.Size)
		}
	}
}

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
	// write-through state is dropped, and the head recorded is the one the
	// projections reach, which holds the command.
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
