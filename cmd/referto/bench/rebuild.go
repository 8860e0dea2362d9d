package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	cpebble "github.com/cockroachdb/pebble/v2"

	"github.com/referto/referto/api/node"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/eventlog"
	"github.com/referto/referto/projections/store"
)

// rebuild: the projections of the whole log rebuilt into an empty store,
// against a raw pipeline reading the same stream with an ordered consumer
// and writing one Pebble batch per 1,000 messages.
func (b *bencher) rebuild(data string, n int) error {
	fmt.Fprintf(b.out, "rebuild: %d events\n", n)
	lg, closeLog, err := node.OpenLog(b.ctx, node.Layout{Dir: data}, node.LogOptions{})
	if err != nil {
		return err
	}
	defer closeLog()
	last, err := lg.LastSeq(b.ctx)
	if err != nil {
		return err
	}
	var ref, raw []float64
	i := 0
	// Each into an empty directory: one left by an interrupted run would
	// already hold the views.
	fresh := func(prefix string) (string, error) {
		i++
		dir := filepath.Join(b.o.Dir, fmt.Sprintf("%s-%d-%d", prefix, n, i))
		return dir, os.RemoveAll(dir)
	}
	err = b.interleave(func() error {
		dir, err := fresh("rebuild")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		el, err := b.rebuildViews(lg, last, dir)
		ref = append(ref, float64(n)/el.Seconds())
		return err
	}, func() error {
		dir, err := fresh("raw")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		el, err := b.copyToPebble(lg, last, dir)
		raw = append(raw, float64(n)/el.Seconds())
		return err
	})
	if err != nil {
		return err
	}
	mr, mw := median(ref), median(raw)
	b.add(Row{What: fmt.Sprintf("rebuild %d events, events/s", n), Referto: fmt.Sprintf("%.0f/s (%.1f s)", mr, float64(n)/mr),
		Raw: fmt.Sprintf("%.0f/s (%.1f s)", mw, float64(n)/mw), Ratio: fmt.Sprintf("%.2f", mr/mw), Target: "≥ 0.50"})
	return nil
}

// rebuildViews runs the projections over the log into a new store at dir
// until they hold its last sequence, and returns how long the views took.
func (b *bencher) rebuildViews(lg *eventlog.Log, last uint64, dir string) (time.Duration, error) {
	st, err := store.Open(dir, nil)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	start := time.Now()
	r := store.NewRunner(lg, st, store.RunnerOptions{})
	rctx, cancel := context.WithCancel(b.ctx)
	done := make(chan error, 1)
	go func() { done <- r.Run(rctx) }()
	werr := r.WaitFor(b.ctx, last)
	el := time.Since(start)
	cancel()
	<-done // the runner returns once the snapshot taken on catching up is written
	whole := time.Since(start)
	if werr != nil {
		return 0, werr
	}
	m := st.Metrics()
	tot := m.Total()
	fmt.Fprintf(b.out, "  referto: views %.1f s, with the closing snapshot %.1f s; Pebble: %d MB into the WAL, %d MB flushed, %d MB compacted\n",
		el.Seconds(), whole.Seconds(), m.WAL.BytesIn>>20, tot.TableBytesFlushed>>20, tot.TableBytesCompacted>>20)
	return el, nil
}

// copyToPebble is the raw pipeline: every message of the log into a new
// Pebble at dir, keyed by stream sequence, a batch per 1,000.
func (b *bencher) copyToPebble(lg *eventlog.Log, last uint64, dir string) (time.Duration, error) {
	db, err := cpebble.Open(dir, &cpebble.Options{Logger: quietPebble{}})
	if err != nil {
		return 0, err
	}
	defer db.Close()
	start := time.Now()
	batch := db.NewBatch()
	key := make([]byte, 8)
	err = lg.Scan(b.ctx, 1, last, "", func(m events.StoredCommit) error {
		for j := range key {
			key[j] = byte(m.StreamSeq >> (56 - 8*j))
		}
		if err := batch.Set(key, m.Data, nil); err != nil {
			return err
		}
		if m.StreamSeq%1000 == 0 {
			if err := batch.Commit(cpebble.NoSync); err != nil {
				return err
			}
			batch = db.NewBatch()
		}
		return nil
	})
	if err == nil {
		err = batch.Commit(cpebble.NoSync)
	}
	return time.Since(start), err
}

// quietPebble keeps the raw pipeline's Pebble from printing its progress.
type quietPebble struct{}

func (quietPebble) Infof(string, ...any)              {}
func (quietPebble) Errorf(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
func (quietPebble) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
