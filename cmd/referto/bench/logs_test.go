package bench

import (
	"bufio"
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	cpebble "github.com/cockroachdb/pebble/v2"

	"github.com/referto/referto/api/node"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/eventlog"
	"github.com/referto/referto/projections/store"
	"github.com/referto/referto/replay"
)

// logEvents is the size of the generated log the rebuild and verify
// benchmarks read (go test … -args -events 100000): the scale curve is
// runs at several sizes.
var logEvents = flag.Int("events", 10_000, "events of the log BenchmarkRebuild and BenchmarkVerify generate")

// generatedLog is a directory holding a generated tournament of about
// *logEvents events over 20 rounds in its data directory.
func generatedLog(b *testing.B) (dir, data string, n int) {
	b.Helper()
	dir = b.TempDir()
	return dir, generated(b, dir, *logEvents, 20), *logEvents
}

// BenchmarkRebuild: referto's projections of the whole log rebuilt into
// an empty store, beside a raw pipeline reading the same stream with an
// ordered consumer and writing one Pebble batch per 1,000 messages. Read
// events/s, with benchstat:
//
//	go test -run '^$' -bench Rebuild -count 6 ./cmd/referto/bench/ -args -events 100000 | tee new.txt
func BenchmarkRebuild(b *testing.B) {
	dir, data, n := generatedLog(b)
	ctx := context.Background()
	lg, closeLog, err := node.OpenLog(ctx, node.Layout{Dir: data}, node.LogOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer closeLog()
	last, err := lg.LastSeq(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for _, side := range []struct {
		name string
		run  func(*eventlog.Log, uint64, string) (time.Duration, error)
	}{{"referto", rebuildViews}, {"raw", copyToPebble}} {
		b.Run(side.name, func(b *testing.B) {
			var took time.Duration
			i := 0
			for b.Loop() {
				i++
				into := filepath.Join(dir, fmt.Sprintf("%s-%d", side.name, i))
				el, err := side.run(lg, last, into)
				if err != nil {
					b.Fatal(err)
				}
				took += el
				if err := os.RemoveAll(into); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(i)/took.Seconds(), "events/s")
		})
	}
}

// rebuildViews runs the projections over the log into a new store at dir
// until they hold its last sequence, and returns how long the views took
// (the closing snapshot, written after, not counted).
func rebuildViews(lg *eventlog.Log, last uint64, dir string) (time.Duration, error) {
	st, err := store.Open(dir, nil)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	r := store.NewRunner(lg, st, store.RunnerOptions{})
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	werr := r.WaitFor(ctx, last)
	el := time.Since(start)
	cancel()
	<-done // the runner returns once the snapshot taken on catching up is written
	return el, werr
}

// copyToPebble is the raw pipeline: every message of the log into a new
// Pebble at dir, keyed by stream sequence, a batch per 1,000.
func copyToPebble(lg *eventlog.Log, last uint64, dir string) (time.Duration, error) {
	db, err := cpebble.Open(dir, &cpebble.Options{Logger: quietPebble{}})
	if err != nil {
		return 0, err
	}
	defer db.Close()
	start := time.Now()
	batch := db.NewBatch()
	key := make([]byte, 8)
	err = lg.Scan(context.Background(), 1, last, "", func(m events.StoredCommit) error {
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

// BenchmarkVerify: referto verify of the exported log (every line linked
// and decoded, the Merkle root, the checkpoint's signature, every draw
// and publication re-derived), beside SHA-256 over the same bytes, the
// floor:
//
//	go test -run '^$' -bench 'Verify$' -count 6 ./cmd/referto/bench/ -args -events 100000 | tee new.txt
func BenchmarkVerify(b *testing.B) {
	dir, data, _ := generatedLog(b)
	path := filepath.Join(dir, "verify.ndjson")
	if err := export(data, path); err != nil {
		b.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	var o replay.VerifyOptions
	pub, err := os.ReadFile(node.Layout{Dir: data}.CheckpointPub())
	if err == nil {
		o.Verifier, err = checkpoint.NewVerifier(string(pub))
	}
	if err == nil {
		o.Checkpoint, err = os.ReadFile(replay.CheckpointFile(path))
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Run("verify", func(b *testing.B) {
		b.SetBytes(info.Size())
		for b.Loop() {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			rep := replay.Verify(replay.NewScanner(f, nil), o)
			f.Close()
			if c, bad := rep.First(); bad || !rep.OK() {
				b.Fatalf("verify %s: line %d: %s", path, c.Line, c.What)
			}
		}
	})
	b.Run("sha256", func(b *testing.B) {
		b.SetBytes(info.Size())
		for b.Loop() {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			_, err = io.Copy(sha256.New(), bufio.NewReaderSize(f, 1<<20))
			f.Close()
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}

// export writes tournament "bench" of data to path and its signed
// checkpoint to path.checkpoint, as referto export does.
func export(data, path string) error {
	ctx := context.Background()
	layout := node.Layout{Dir: data}
	keys, err := checkpoint.LoadKeys(layout.Keys())
	if err != nil {
		return err
	}
	lg, closeLog, err := node.OpenLog(ctx, layout, node.LogOptions{})
	if err != nil {
		return err
	}
	defer closeLog()
	return replay.WriteFiles(path, replay.CheckpointFile(path), func(w io.Writer) (string, error) {
		cp, err := replay.Export(ctx, lg, "bench", w, replay.ExportOptions{})
		if err != nil {
			return "", err
		}
		return checkpoint.Sign(cp, keys.Signer)
	})
}
