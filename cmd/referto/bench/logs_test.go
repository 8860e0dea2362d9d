package bench

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/referto/referto/api/node"
	"github.com/referto/referto/events/eventlog"
)

// logEvents is the size of the generated log the rebuild and verify
// benchmarks read (go test … -args -events 100000).
var logEvents = flag.Int("events", 10_000, "events of the log BenchmarkRebuild and BenchmarkVerify generate")

// generatedLog is a data directory holding a generated tournament of about
// *logEvents events over 20 rounds, as the rebuild and verify pairs read.
func generatedLog(b *testing.B) (*bencher, string, int) {
	b.Helper()
	be := &bencher{ctx: context.Background(), o: Options{Dir: b.TempDir()}, out: io.Discard}
	n := *logEvents
	data, err := be.generated(fmt.Sprintf("log-%d", n), n, 20)
	if err != nil {
		b.Fatal(err)
	}
	return be, data, n
}

// BenchmarkRebuild is the rebuild pair as go test benchmarks: referto's
// projections of the whole log rebuilt into an empty store, beside a raw
// pipeline reading the same stream with an ordered consumer and writing
// one Pebble batch per 1,000 messages. Read events/s, with benchstat:
//
//	go test -run '^$' -bench Rebuild -count 6 ./cmd/referto/bench/ -args -events 100000 | tee new.txt
func BenchmarkRebuild(b *testing.B) {
	be, data, n := generatedLog(b)
	lg, closeLog, err := node.OpenLog(be.ctx, node.Layout{Dir: data}, node.LogOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer closeLog()
	last, err := lg.LastSeq(be.ctx)
	if err != nil {
		b.Fatal(err)
	}
	for _, side := range []struct {
		name string
		run  func(*eventlog.Log, uint64, string) (time.Duration, error)
	}{{"referto", be.rebuildViews}, {"raw", be.copyToPebble}} {
		b.Run(side.name, func(b *testing.B) {
			var took time.Duration
			i := 0
			for b.Loop() {
				i++
				dir := filepath.Join(be.o.Dir, fmt.Sprintf("%s-%d", side.name, i))
				el, err := side.run(lg, last, dir)
				if err != nil {
					b.Fatal(err)
				}
				took += el
				if err := os.RemoveAll(dir); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(i)/took.Seconds(), "events/s")
		})
	}
}

// BenchmarkVerify is the verify pair as go test benchmarks: referto verify
// of the exported log (every line linked and decoded, the Merkle root, the
// checkpoint's signature, every draw and publication re-derived), beside
// SHA-256 over the same bytes, the floor:
//
//	go test -run '^$' -bench 'Verify$' -count 6 ./cmd/referto/bench/ -args -events 100000 | tee new.txt
func BenchmarkVerify(b *testing.B) {
	be, data, _ := generatedLog(b)
	path := filepath.Join(be.o.Dir, "verify.ndjson")
	if err := be.export(data, path); err != nil {
		b.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	o, err := verifyOptions(node.Layout{Dir: data}, path)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("verify", func(b *testing.B) {
		b.SetBytes(info.Size())
		for b.Loop() {
			if err := verifyLog(path, o); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sha256", func(b *testing.B) {
		b.SetBytes(info.Size())
		for b.Loop() {
			if err := hashFile(path); err != nil {
				b.Fatal(err)
			}
		}
	})
}
