package api_test

import (
	"fmt"
	"io"
	"net/http"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
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
