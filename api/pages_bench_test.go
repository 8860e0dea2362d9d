package api_test

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/referto/referto/cmd/referto/sim"
)

// BenchmarkPrintablePages5000: the players' links and a round's table
// slips, as an arbiter's browser asks for them (each page as served), for
// a tournament of 5,000 players drawn at 1,250 tables. Reported per page:
// the HTML's bytes, what the process allocated while making it
// (runtime.MemStats.TotalAlloc) and the most its live heap held meanwhile
// (sampled every 5 ms) beside what it held before (idle), the whole
// process's, server and client:
//
//	go test -run '^$' -bench PrintablePages5000 -benchtime 3x ./api/
func BenchmarkPrintablePages5000(b *testing.B) {
	s := &stack{t: b, dir: b.TempDir()}
	s.opts.SyncInterval = time.Minute // the setup's 5,000 registrations
	s.start()
	b.Cleanup(s.stop)
	arb := benchCreateRuleset(b, s, "grande", "rtu")
	for p := range 5000 {
		if r := s.do("POST", "/v1/tournaments/grande/commands", arb, map[string]any{"type": "RegisterPlayer",
			"player": fmt.Sprintf("p%04d", p), "name": fmt.Sprintf("Giocatore %d", p)}); r.status != 201 {
			b.Fatalf("%d %s", r.status, r.body)
		}
	}
	s.must(201, "POST", "/v1/tournaments/grande/commands", arb, `{"type":"CloseRegistration"}`)
	s.must(201, "POST", "/v1/tournaments/grande/commands", arb, `{"type":"DrawTables","round":1,"seed":"grande"}`)
	s.must(201, "POST", "/v1/tournaments/grande/player-tokens", arb, `{}`)
	for _, page := range []string{"links", "rounds/1/slips"} {
		b.Run(page, func(b *testing.B) {
			var html int
			var ms0, ms1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms0)
			stop, peak := make(chan struct{}), make(chan uint64)
			go func() {
				sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
				var most uint64
				tick := time.NewTicker(5 * time.Millisecond)
				defer tick.Stop()
				for {
					metrics.Read(sample)
					most = max(most, sample[0].Value.Uint64())
					select {
					case <-stop:
						peak <- most
						return
					case <-tick.C:
					}
				}
			}()
			for range b.N {
				req, _ := http.NewRequest("GET", s.srv.URL+"/ui/t/grande/"+page, nil)
				req.AddCookie(&http.Cookie{Name: "referto_token", Value: arb})
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				n, _ := io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != 200 {
					b.Fatalf("%s: %d", page, res.StatusCode)
				}
				html = int(n)
			}
			runtime.ReadMemStats(&ms1)
			close(stop)
			b.ReportMetric(float64(<-peak), "peak-heap-bytes")
			b.ReportMetric(float64(ms0.HeapAlloc), "idle-heap-bytes")
			b.ReportMetric(float64(html), "html-bytes/page")
			b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(b.N), "alloc-bytes/page")
		})
	}
}

// BenchmarkPagesRaduno140: the pages an arbiter and the hall read most
// (the overview, a round, the standings, the event log), each as served,
// for a Raduno of 140 players with round 1 drawn at 35 tables and every
// result recorded. Reported per page: what the process allocated while
// making it (runtime.MemStats.TotalAlloc), server and client:
//
//	go test -run '^$' -bench PagesRaduno140 ./api/
func BenchmarkPagesRaduno140(b *testing.B) {
	s := newStack(b)
	sm, err := sim.New(sim.Options{})
	if err != nil {
		b.Fatal(err)
	}
	arb := benchCreateRuleset(b, s, "raduno", "rur-2015")
	for p := range 140 {
		s.must(201, "POST", "/v1/tournaments/raduno/commands", arb, map[string]any{"type": "RegisterPlayer",
			"player": fmt.Sprintf("p%03d", p), "name": fmt.Sprintf("Giocatore %d", p), "club": fmt.Sprintf("club-%d", p%20)})
	}
	s.must(201, "POST", "/v1/tournaments/raduno/commands", arb, `{"type":"CloseRegistration"}`)
	s.must(201, "POST", "/v1/tournaments/raduno/commands", arb, `{"type":"DrawTables","round":1,"seed":"raduno"}`)
	rng := rand.New(rand.NewPCG(1, 140))
	seats := s.tableSeats("raduno", 1)
	for n := 1; n <= len(seats); n++ {
		s.recordResult("raduno", arb, sm.Report(rng, 1, n, seats[n]), rng)
	}
	for _, page := range []string{"", "rounds/1", "standings", "events"} {
		b.Run("page="+page, func(b *testing.B) {
			var ms0, ms1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms0)
			for range b.N {
				req, _ := http.NewRequest("GET", s.srv.URL+"/ui/t/raduno/"+page, nil)
				req.AddCookie(&http.Cookie{Name: "referto_token", Value: arb})
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != 200 {
					b.Fatalf("%s: %d", page, res.StatusCode)
				}
			}
			runtime.ReadMemStats(&ms1)
			b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(b.N), "alloc-bytes/page")
		})
	}
}
