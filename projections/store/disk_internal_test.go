package store

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/referto/referto/projections/store/storetest"
)

// TestDiskHeadroomBoundsABurst writes a burst into a store whose flushes
// are slow, as on a loaded disk, so that write-ahead logs pile up as they
// did in the fault run (251 MiB of them with 32 MiB memtables): their peak
// is well over the two memtables a fixed 64 MiB reserve allowed for, and
// within DiskHeadroom.
func TestDiskHeadroomBoundsABurst(t *testing.T) {
	const mem = 1 << 20
	fs := storetest.NewDiskFS(vfs.NewMem(), 1<<30)
	fs.SlowTables = 2 * time.Millisecond
	st, err := OpenWith("store", StoreOptions{MemTableSize: mem, FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	value := bytes.Repeat([]byte("referto "), 2<<10) // 16 KiB
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 600 { // 4 × 600 × 16 KiB: 37.5 MiB, 37 memtables
				b := st.db.NewBatch()
				_ = b.Set(fmt.Appendf(nil, "k/%d/%d", w, i), value, nil)
				if err := b.Commit(pebble.Sync); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	_, walPeak, refusals, _ := fs.Stats()
	t.Logf("write-ahead logs at their peak: %.1f MiB with %d MiB memtables; headroom %.1f MiB", float64(walPeak)/(1<<20), mem>>20, float64(DiskHeadroom(mem))/(1<<20))
	if refusals > 0 {
		t.Fatal("the disk refused writes")
	}
	if walPeak <= 2*(mem+mem/10) {
		t.Errorf("the logs peaked at %d bytes: the burst did not pile them up, the test proves nothing", walPeak)
	}
	if walPeak > int64(walFiles*(mem+mem/10)) {
		t.Errorf("the logs peaked at %d bytes, over the %d DiskHeadroom counts for them", walPeak, walFiles*(mem+mem/10))
	}
}

// TestRepeatedPebbleErrorsAreLoggedOnceAMinute: an error Pebble repeats is
// one line, then one line a minute saying how many came since.
func TestRepeatedPebbleErrorsAreLoggedOnceAMinute(t *testing.T) {
	var buf bytes.Buffer
	now := time.Unix(1000, 0)
	p := &pebbleLogger{l: slog.New(slog.NewTextHandler(&buf, nil)), now: func() time.Time { return now }}
	for i := range 2079 {
		p.Errorf("background error: %s", fmt.Sprintf("flush %d: no space left on device", i))
		now = now.Add(7 * time.Millisecond) // 2,079 in 15 s, as in the fault run
	}
	p.Errorf("another error: %d", 1)
	if lines := strings.Count(buf.String(), "\n"); lines != 2 {
		t.Fatalf("%d lines for 2,079 repeats of one error and another error, want 2:\n%s", lines, buf.String())
	}
	now = now.Add(time.Minute)
	p.Errorf("background error: %s", "flush: no space left on device")
	last := buf.String()[strings.LastIndex(strings.TrimSuffix(buf.String(), "\n"), "\n")+1:]
	if !strings.Contains(last, "repeated=2078") {
		t.Errorf("a minute later: %q, want the count of those not logged", last)
	}
}
