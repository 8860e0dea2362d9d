package bench

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// load is a closed-loop load of n operations from k clients: the rate and
// the 50th and 99th percentile latencies.
// cpu is the CPU time of the whole process per operation, in µs (0 where
// it cannot be read): with the embedded server, JetStream's share too.
type load struct{ rate, p50, p99, cpu float64 }

func runLoad(n, k int, op func(client, i int) error) (load, error) {
	lat := make([]time.Duration, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Value
	cpu0, cpuOK := cpuTime()
	start := time.Now()
	for c := range k {
		wg.Add(1)
		go func() {
			defer wg.Done()
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
		}()
	}
	wg.Wait()
	l, err := finish(lat, time.Since(start), &failed)
	if cpu1, ok := cpuTime(); ok && cpuOK {
		l.cpu = float64((cpu1 - cpu0).Microseconds()) / float64(n)
	}
	return l, err
}

// openLoop sends op at rate per second for d, each on its own goroutine
// (at most 1,024 in flight), and returns the achieved rate, latencies and
// the process's CPU time per op.
func openLoop(rate int, d time.Duration, op func() error) (load, error) {
	n := int(d.Seconds() * float64(rate))
	if n < 1 {
		n = 1
	}
	cpu0, cpuOK := cpuTime()
	lat := make([]time.Duration, n)
	sem := make(chan struct{}, 1024)
	var wg sync.WaitGroup
	var failed atomic.Value
	interval := time.Second / time.Duration(rate)
	start := time.Now()
	for i := range n {
		if wait := time.Until(start.Add(time.Duration(i) * interval)); wait > 0 {
			time.Sleep(wait)
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			// Latency from when the request was due, so a stalled
			// server cannot hide its queue (coordinated omission).
			due := start.Add(time.Duration(i) * interval)
			if err := op(); err != nil {
				failed.Store(err)
			}
			lat[i] = time.Since(due)
		}()
	}
	wg.Wait()
	l, err := finish(lat, time.Since(start), &failed)
	if cpu1, ok := cpuTime(); ok && cpuOK {
		l.cpu = float64((cpu1 - cpu0).Microseconds()) / float64(n)
	}
	return l, err
}

// finish is a load's figures, or the error one of its operations failed
// with.
func finish(lat []time.Duration, el time.Duration, failed *atomic.Value) (load, error) {
	if err, _ := failed.Load().(error); err != nil {
		return load{}, err
	}
	return summarize(lat, el), nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// summarize is the rate and percentiles of latencies measured over el.
func summarize(lat []time.Duration, el time.Duration) load {
	slices.Sort(lat)
	n := len(lat)
	return load{rate: float64(n) / el.Seconds(), p50: ms(lat[n/2]), p99: ms(lat[n*99/100])}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// pick is the median of one figure of a pair's loads.
func pick(ls []load, f func(load) float64) float64 {
	var xs []float64
	for _, l := range ls {
		xs = append(xs, f(l))
	}
	return median(xs)
}

func rate(l load) float64 { return l.rate }
func p50(l load) float64  { return l.p50 }
func p99(l load) float64  { return l.p99 }
func cpu(l load) float64  { return l.cpu }
