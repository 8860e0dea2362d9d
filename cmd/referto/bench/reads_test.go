package bench

import (
	"context"
	"errors"
	"flag"
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/referto/referto/api/client"
)

// readRate is the rate BenchmarkReadStandingsAtRate reads at.
var readRate = flag.Int("rate", 1000, "standings reads a second of BenchmarkReadStandingsAtRate")

// standings serves a generated tournament of 1,000 players (about one
// registration, three check-ins and three quarters of a report each, over
// three rounds) once its standings are stored, and returns the two sides
// that read them: over HTTP and, beside it, from Pebble.
func standings(b *testing.B) []readSide {
	b.Helper()
	n, url := serve(b, generated(b, b.TempDir(), 1000*5+20, 3))
	// The standings are ranked into Pebble once the runner is idle: both
	// sides read them as stored.
	for deadline := time.Now().Add(30 * time.Second); n.Runner.Stale("bench"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatal("standings not stored 30 s after the node was ready")
		}
	}
	c := &client.Client{Base: url, HTTP: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}, Timeout: 10 * time.Second}}
	return []readSide{
		{"http", func() error { return c.Get(context.Background(), "/v1/tournaments/bench/standings", nil) }},
		{"pebble", func() error {
			_, ok, err := n.Store.Standings("bench")
			if err == nil && !ok {
				err = errors.New("no stored standings")
			}
			return err
		}},
	}
}

// readSide is one side of a read benchmark: its name and one read.
type readSide struct {
	name string
	get  func() error
}

// BenchmarkReadStandings reads the standings of a 1,000-player tournament
// (310 KB) as fast as 8 concurrent clients can, over HTTP and from Pebble:
// the rate a node saturates at and the process's CPU time per read, which
// a machine other work shares changes less than the latencies:
//
//	go test -run '^$' -bench 'ReadStandings$' -count 6 ./cmd/referto/bench/ | tee new.txt
func BenchmarkReadStandings(b *testing.B) {
	for _, side := range standings(b) {
		b.Run(side.name, func(b *testing.B) {
			l, err := runLoad(b.N, 8, func(_, _ int) error { return side.get() })
			if err != nil {
				b.Fatal(err)
			}
			report(b, l)
		})
	}
}

// BenchmarkReadStandingsAtRate is a hall of phones reading the same
// standings: b.N reads at -rate a second (1,000 by default), sent on
// schedule whether or not the earlier ones answered, over HTTP and from
// Pebble. Read p50-ms and p99-ms (from when each read was due) at a
// benchtime of several seconds' reads:
//
//	go test -run '^$' -bench ReadStandingsAtRate -benchtime 10000x -count 3 ./cmd/referto/bench/ -args -rate 1000
func BenchmarkReadStandingsAtRate(b *testing.B) {
	for _, side := range standings(b) {
		b.Run(side.name, func(b *testing.B) {
			// From a collected heap: the Pebble side copies hundreds
			// of KB out for every read, garbage the other side must
			// not pay for.
			runtime.GC()
			b.ResetTimer()
			l, err := openLoop(b.N, *readRate, side.get)
			if err != nil {
				b.Fatal(err)
			}
			report(b, l)
		})
	}
}
