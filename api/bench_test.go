package api_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/referto/referto/cmd/referto/sim"
)

// BenchmarkQualifyingPhase200 runs a whole rur-2015 qualifying phase through
// HTTP on the embedded, fsync-per-write stack: 200 registrations, closing,
// 200 check-ins, two draws, 100 table reports (one client, as at a venue):
//
//	go test -run '^$' -bench QualifyingPhase200 -benchtime 3x ./api/
func BenchmarkQualifyingPhase200(b *testing.B) {
	s := newStack(b)
	sm, err := sim.New(sim.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		tour := fmt.Sprintf("q200-%d", i)
		b.StopTimer()
		arb := benchCreateRuleset(b, s, tour, "rur-2015")
		b.StartTimer()
		commandsSent := 0
		post := func(v any) {
			r := s.do("POST", "/v1/tournaments/"+tour+"/commands", arb, v)
			if r.status != 201 {
				b.Fatalf("%d %s", r.status, r.body)
			}
			commandsSent++
		}
		for p := range 200 {
			post(map[string]any{"type": "RegisterPlayer", "player": fmt.Sprintf("p%03d", p), "name": fmt.Sprintf("Player %d", p),
				"club": fmt.Sprintf("club-%d", p%40), "region": fmt.Sprintf("region-%d", p%12)})
		}
		post(map[string]any{"type": "CloseRegistration"})
		rng := rand.New(rand.NewPCG(uint64(i), 200))
		for round := 1; round <= 2; round++ {
			for p := range 200 {
				post(map[string]any{"type": "CheckIn", "round": round, "player": fmt.Sprintf("p%03d", p), "minutes_late": 0})
			}
			post(map[string]any{"type": "DrawTables", "round": round})
			seats := s.tableSeats(tour, round)
			for n := 1; n <= len(seats); n++ {
				s.recordResult(tour, arb, sm.Report(rng, round, n, seats[n]), rng)
				commandsSent++
			}
		}
		b.ReportMetric(float64(commandsSent), "commands/op")
	}
}

func benchCreateRuleset(b *testing.B, s *stack, id, ruleset string) string {
	b.Helper()
	if r := s.do("POST", "/v1/tournaments", adminToken, map[string]any{"id": id, "name": id, "ruleset": ruleset}); r.status != 201 {
		b.Fatalf("create: %d %s", r.status, r.body)
	}
	r := s.do("POST", "/v1/tournaments/"+id+"/officials", adminToken, map[string]any{"name": "A", "role": "arbiter"})
	tok, _ := r.json(b)["token"].(string)
	return tok
}
