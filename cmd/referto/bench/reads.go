package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"time"

	"github.com/referto/referto/api/client"
)

// reads: GET standings of a tournament at a fixed rate (open loop: a
// request is sent on schedule whether or not the previous one answered),
// against raw Pebble reads of the same stored standings at the same rate.
func (b *bencher) reads(data string, rate int, d time.Duration) error {
	node, url, stop, err := b.serve(data)
	if err != nil {
		return err
	}
	defer stop()
	c := &client.Client{Base: url, HTTP: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}, Timeout: 10 * time.Second}}
	const path = "/v1/tournaments/bench/standings"
	var body json.RawMessage
	if err := c.Get(b.ctx, path, &body); err != nil {
		return err
	}
	var sz struct {
		Rows []json.RawMessage `json:"rows"`
	}
	_ = json.Unmarshal(body, &sz)
	fmt.Fprintf(b.out, "reads: standings of %d players (%d KB), %d req/s for %v\n", len(sz.Rows), len(body)>>10, rate, d)
	get := func() error { return c.Get(b.ctx, path, nil) }
	rawGet := func() error {
		_, ok, err := node.Store.Standings("bench")
		if err == nil && !ok {
			err = errors.New("no stored standings")
		}
		return err
	}
	// Each round starts from a collected heap: the raw side copies a
	// value of hundreds of KB out of Pebble for every read, and that
	// garbage must not be collected during referto's round.
	var ref, raw []load
	if err := b.interleave(func() error {
		runtime.GC()
		l, err := openLoop(rate, d/time.Duration(b.o.Rounds), get)
		ref = append(ref, l)
		return err
	}, func() error {
		runtime.GC()
		l, err := openLoop(rate, d/time.Duration(b.o.Rounds), rawGet)
		raw = append(raw, l)
		return err
	}); err != nil {
		return err
	}
	b.add(Row{What: fmt.Sprintf("standings reads at %d/s, p50", rate), Referto: fmt.Sprintf("%.2f ms", pick(ref, p50)),
		Raw: fmt.Sprintf("%.3f ms", pick(raw, p50))})
	b.add(Row{What: fmt.Sprintf("standings reads at %d/s, p99", rate), Referto: fmt.Sprintf("%.2f ms", pick(ref, p99)),
		Raw: fmt.Sprintf("%.3f ms", pick(raw, p99)), Target: "≤ 5 ms"})
	b.add(Row{What: "CPU per read, whole bench process", Referto: fmt.Sprintf("%.0f µs", pick(ref, func(l load) float64 { return l.cpu })),
		Raw: fmt.Sprintf("%.0f µs", pick(raw, func(l load) float64 { return l.cpu }))})
	return nil
}
