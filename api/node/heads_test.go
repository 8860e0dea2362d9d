package node_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/referto/referto/api/node"
	"github.com/referto/referto/commands/ledger"
)

func head(t string, size uint64) ledger.AckedHead {
	return ledger.AckedHead{Tournament: t, Size: size, StreamSeq: 10 * size,
		Root: bytes.Repeat([]byte{byte(size)}, 32), Last: bytes.Repeat([]byte{byte(size + 1)}, 32)}
}

func openHeads(t *testing.T, path string) *node.Heads {
	t.Helper()
	h, _, err := node.OpenHeads(path)
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
	h, created, err := node.OpenHeads(path)
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
	h, created, err = node.OpenHeads(path)
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
	if _, _, err := node.OpenHeads(path); !errors.Is(err, node.ErrHeadsDamaged) {
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
