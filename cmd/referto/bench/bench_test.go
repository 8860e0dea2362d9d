// Package bench measures referto against the storage underneath it, as go
// test benchmarks beside their baselines: durable ingest over HTTP beside
// raw JetStream publishes (BenchmarkIngest*), a projection rebuild beside
// an ordered consumer writing Pebble batches (BenchmarkRebuild), verify
// beside SHA-256 over the same bytes (BenchmarkVerify, BenchmarkVerifySeason)
// and standings reads beside Pebble gets (BenchmarkReadStandings*). Each
// side is a benchmark or sub-benchmark of its own, so that a CPU profile
// holds one side only and benchstat compares runs. The package holds tests
// only: none of it is in the referto binary (docs/performance.md).
package bench

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/referto/referto/api"
	"github.com/referto/referto/api/node"
	"github.com/referto/referto/cmd/referto/synth"
)

// benchAdmin is the administrator token of the nodes the benchmarks start.
const benchAdmin = "bench-admin"

// serve starts a node on data with the API over it, waits until it is
// ready and serves it on 127.0.0.1 until the benchmark ends.
func serve(b *testing.B, data string) (*node.Node, string) {
	b.Helper()
	ctx := context.Background()
	n, a, err := api.Start(ctx, node.NodeOptions{Data: data, Logger: slog.New(slog.DiscardHandler)},
		api.Options{AdminTokenSHA256: api.TokenHash(benchAdmin)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(n.Close)
	if err := n.Runner.WaitReady(ctx); err != nil {
		b.Fatal(err)
	}
	return n, listen(b, a.Handler())
}

// listen serves h on a loopback port until the benchmark ends, and
// returns its base URL.
func listen(b *testing.B, h http.Handler) string {
	b.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	b.Cleanup(func() { _ = srv.Close() })
	return "http://" + l.Addr().String()
}

// generated is a data directory under dir holding a generated tournament
// "bench" of about n events over the given rounds.
func generated(b *testing.B, dir string, n, rounds int) string {
	b.Helper()
	data := filepath.Join(dir, "data")
	o := synth.GenerateOptions{Data: data, Events: n, Rounds: rounds, Tournament: "bench", Seed: 1, SyncInterval: time.Second}
	if _, err := synth.Generate(context.Background(), o); err != nil {
		b.Fatal(err)
	}
	return data
}

// load is what a load of operations measured: the rate, the 50th and 99th
// percentile latencies in ms, and the CPU time of the whole process per
// operation in µs (0 where it cannot be read; with the embedded server,
// JetStream's share too).
type load struct{ rate, p50, p99, cpu float64 }

// report reports a load's figures as the benchmark's metrics.
func report(b *testing.B, l load) {
	b.ReportMetric(l.rate, "ops/s")
	b.ReportMetric(l.p50, "p50-ms")
	b.ReportMetric(l.p99, "p99-ms")
	b.ReportMetric(l.cpu, "cpu-µs/op")
}

// runLoad runs n operations from k concurrent clients, each starting its
// next when the last answered (a closed loop).
func runLoad(n, k int, op func(client, i int) error) (load, error) {
	lat := make([]time.Duration, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Value
	cpu0, _ := synth.CPUTime()
	start := time.Now()
	for c := range k {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				t0 := time.Now()
				if err := op(c, i); err != nil {
					failed.Store(err)
					return
				}
				lat[i] = time.Since(t0)
			}
		})
	}
	wg.Wait()
	return finish(lat, time.Since(start), cpu0, &failed)
}

// openLoop sends n operations at rate per second whether or not the
// earlier ones answered (an open loop, as a hall of phones reads), each
// on its own goroutine, at most 1,024 in flight. Latencies count from
// when each operation was due, so that a stalled server cannot hide its
// queue (coordinated omission).
func openLoop(n, rate int, op func() error) (load, error) {
	lat := make([]time.Duration, n)
	sem := make(chan struct{}, 1024)
	var wg sync.WaitGroup
	var failed atomic.Value
	interval := time.Second / time.Duration(rate)
	cpu0, _ := synth.CPUTime()
	start := time.Now()
	for i := range n {
		due := start.Add(time.Duration(i) * interval)
		time.Sleep(time.Until(due))
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := op(); err != nil {
				failed.Store(err)
			}
			lat[i] = time.Since(due)
		})
	}
	wg.Wait()
	return finish(lat, time.Since(start), cpu0, &failed)
}

// finish is a load's figures, or the error one of its operations failed
// with.
func finish(lat []time.Duration, el, cpu0 time.Duration, failed *atomic.Value) (load, error) {
	if err, _ := failed.Load().(error); err != nil {
		return load{}, err
	}
	slices.Sort(lat)
	n := len(lat)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	l := load{rate: float64(n) / el.Seconds(), p50: ms(lat[n/2]), p99: ms(lat[n*99/100])}
	if cpu1, ok := synth.CPUTime(); ok {
		l.cpu = float64((cpu1 - cpu0).Microseconds()) / float64(n)
	}
	return l, nil
}
