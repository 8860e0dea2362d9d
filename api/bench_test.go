package api_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/referto/referto/commands/sim"
	"github.com/referto/referto/events"
)

// benchClients is the number of concurrent clients, as in the issue.
const benchClients = 8

// latencies runs op b.N times from benchClients goroutines and reports the
// rate and the p50/p99 latency.
func latencies(b *testing.B, op func(client, i int) error) {
	b.Helper()
	lat := make([]time.Duration, b.N)
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Value
	b.ResetTimer()
	start := time.Now()
	for c := range benchClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= b.N {
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
	elapsed := time.Since(start)
	b.StopTimer()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	slices.Sort(lat)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "ops/s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkRegisterPlayer measures RegisterPlayer over HTTP (8 concurrent
// clients, each on its own tournament, and all 8 on one tournament) against
// a raw JetStream synchronous publish of a message of the same size to the
// same embedded, fsync-per-write server, in one run:
//
//	go test -run '^$' -bench RegisterPlayer -benchtime 3000x ./api/
func BenchmarkRegisterPlayer(b *testing.B) {
	s := newStack(b)
	tokens := make([]string, benchClients)
	for i := range tokens {
		tokens[i] = benchCreate(b, s, fmt.Sprintf("bench-%d", i))
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: benchClients}}
	var size atomic.Int64
	post := func(tour, token string, i, c int) error {
		body := fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%d-%d","name":"Mario Rossi %d","club":"Bologna – Asinelli","region":"Emilia-Romagna"}`, c, i, i)
		req, _ := http.NewRequest("POST", s.srv.URL+"/v1/tournaments/"+tour+"/commands", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := client.Do(req)
		if err != nil {
			return err
		}
		// Drain the body so the connection is reused.
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 201 {
			return fmt.Errorf("status %d", res.StatusCode)
		}
		return nil
	}
	b.Run("http-8-tournaments", func(b *testing.B) {
		latencies(b, func(c, i int) error { return post(fmt.Sprintf("bench-%d", c), tokens[c], i, c+100*b.N) })
	})
	b.Run("http-1-tournament", func(b *testing.B) {
		latencies(b, func(c, i int) error { return post("bench-0", tokens[0], i, c+1000+100*b.N) })
	})

	// The stored commit of one RegisterPlayer is the raw message.
	envs, _ := events.Seal("bench-0", 1000, time.Now(), events.Actor{ID: "o1", Role: "arbiter"}, "0123456789abcdef0123456789abcdef",
		[]events.Event{events.PlayerRegistered{Player: "p1-1000", Name: "Mario Rossi 1000", Club: "Bologna – Asinelli", Region: "Emilia-Romagna"}})
	msg, _ := events.EncodeCommit(envs)
	size.Store(int64(len(msg)))
	js, _ := jetstream.New(s.node.Conn)
	if _, err := js.CreateStream(context.Background(), jetstream.StreamConfig{Name: "RAWBENCH", Subjects: []string{"rawbench.>"}, Storage: jetstream.FileStorage}); err != nil {
		b.Fatal(err)
	}
	b.Run("raw-jetstream-publish", func(b *testing.B) {
		latencies(b, func(c, i int) error {
			_, err := js.PublishMsg(context.Background(), &nats.Msg{Subject: fmt.Sprintf("rawbench.%d", c), Data: msg})
			return err
		})
		b.ReportMetric(float64(size.Load()), "msg-bytes")
	})
}

func benchCreate(b *testing.B, s *stack, id string) string {
	b.Helper()
	r := s.do("POST", "/v1/tournaments", adminToken, map[string]any{"id": id, "name": id, "ruleset": "rtu"})
	if r.status != 201 {
		b.Fatalf("create: %d %s", r.status, r.body)
	}
	r = s.do("POST", "/v1/tournaments/"+id+"/officials", adminToken, map[string]any{"name": "A", "role": "arbiter"})
	if r.status != 201 {
		b.Fatalf("appoint: %d %s", r.status, r.body)
	}
	tok, _ := r.json(b)["token"].(string)
	return tok
}

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
