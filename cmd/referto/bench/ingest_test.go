package bench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"

	"github.com/referto/referto/commands"
)

// The ingest pair's two sides as go test benchmarks, one process each, so
// that a CPU profile (-cpuprofile) holds one of them only:
//
//	go test -run '^$' -bench 'Ingest' -benchtime 4000x -cpuprofile cpu.out ./cmd/referto/bench/
//
// Each op is one command (one guarded publish) from 8 concurrent clients.

func BenchmarkIngestReferto(b *testing.B) {
	r := newBenchIngest(b)
	b.ResetTimer()
	l, err := runLoad(b.N, r.k, func(c, i int) error {
		reg := &commands.RegisterPlayer{Player: fmt.Sprintf("p%d-%d", c, i), Name: fmt.Sprintf("Mario Rossi %d", i),
			Club: "Bologna – Asinelli", Region: "Emilia-Romagna"}
		_, err := r.arbs[c].Command(r.b.ctx, fmt.Sprintf("bench-%d", c), "", reg)
		return err
	})
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	report(b, l)
}

func BenchmarkIngestGuarded(b *testing.B) {
	r := newBenchIngest(b)
	ctx := r.b.ctx
	b.ResetTimer()
	l, err := runLoad(b.N, r.k, func(c, i int) error {
		a, err := r.js.PublishMsg(ctx, &nats.Msg{Subject: fmt.Sprintf("rawguard.%d", c), Data: r.msg},
			natsjs.WithMsgID(strconv.Itoa(i)), natsjs.WithExpectLastSequencePerSubject(r.guardLast[c]))
		if err == nil {
			r.guardLast[c] = a.Sequence
		}
		return err
	})
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	report(b, l)
}

func report(b *testing.B, l load) {
	b.ReportMetric(l.rate, "ops/s")
	b.ReportMetric(l.p50, "p50-ms")
	b.ReportMetric(l.p99, "p99-ms")
	b.ReportMetric(l.cpu, "cpu-µs/op")
}

// newBenchIngest starts a node with its API, the bench's tournaments and
// the raw streams, as the ingest pair does.
func newBenchIngest(b *testing.B) *ingestRun {
	b.Helper()
	dir := b.TempDir()
	be := &bencher{ctx: context.Background(), o: Options{Dir: dir}, out: os.Stderr}
	r := &ingestRun{b: be, k: 8}
	node, url, stop, err := be.serve(dir + "/data")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(stop)
	r.admin = newAdmin(url, r.k)
	if err := r.tournaments(); err != nil {
		b.Fatal(err)
	}
	if r.js, err = natsjs.New(node.Conn); err != nil {
		b.Fatal(err)
	}
	if err := r.streams(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(r.stopFollowers)
	return r
}
