package bench

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/referto/referto/api/client"
)

// BenchmarkReadStandings reads the standings of a 1,000-player tournament
// (the reads pair's) as fast as 8 concurrent clients can, over HTTP and,
// beside it, from Pebble: the rate a node saturates at and the process's
// CPU time per read, which a machine other work shares changes less than
// the latencies:
//
//	go test -run '^$' -bench ReadStandings -count 6 ./cmd/referto/bench/ | tee new.txt
//
// referto bench --only reads measures the latency at a fixed rate.
func BenchmarkReadStandings(b *testing.B) {
	be := &bencher{ctx: context.Background(), o: Options{Dir: b.TempDir()}, out: io.Discard}
	data, err := be.generated("reads-1000", 1000*5+20, 3)
	if err != nil {
		b.Fatal(err)
	}
	node, url, stop, err := be.serve(data)
	if err != nil {
		b.Fatal(err)
	}
	defer stop()
	c := &client.Client{Base: url, HTTP: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}, Timeout: 10 * time.Second}}
	const path = "/v1/tournaments/bench/standings"
	b.Run("http", func(b *testing.B) {
		l, err := runLoad(b.N, 8, func(_, _ int) error { return c.Get(be.ctx, path, nil) })
		if err != nil {
			b.Fatal(err)
		}
		report(b, l)
	})
	b.Run("pebble", func(b *testing.B) {
		l, err := runLoad(b.N, 8, func(_, _ int) error {
			_, ok, err := node.Store.Standings("bench")
			if err == nil && !ok {
				err = errors.New("no stored standings")
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		report(b, l)
	})
}
