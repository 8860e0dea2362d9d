package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/referto/referto/api/node"
	"github.com/referto/referto/api/problem"
	"github.com/referto/referto/events"
)

// reused asserts that r refuses an Idempotency-Key already bound to another
// request: 422 idempotency_key_reused naming the key and the seq of the
// command the key stands for.
func reused(t *testing.T, what string, r resp, key string, seq uint64) {
	t.Helper()
	if r.status != http.StatusUnprocessableEntity || r.header.Get("Content-Type") != "application/problem+json" {
		t.Errorf("%s: %d %s %s, want 422 problem+json", what, r.status, r.header.Get("Content-Type"), r.body)
		return
	}
	if r.header.Get("Idempotent-Replayed") != "" {
		t.Errorf("%s: a refusal says Idempotent-Replayed", what)
	}
	var p problem.Problem
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatalf("%s: %v: %s", what, err, r.body)
	}
	if p.Code != "idempotency_key_reused" || p.Field != "Idempotency-Key" || p.Seq != seq ||
		!strings.Contains(p.Detail, key) || !strings.Contains(p.Detail, fmt.Sprintf("seq %d", seq)) {
		t.Errorf("%s: problem %s, want idempotency_key_reused naming key %q and seq %d", what, r.body, key, seq)
	}
}

// TestIdempotencyKeyIsBoundToItsRequest: a key replays only the request it
// was first used for (route, actor and body after canonicalization); any
// other request with it is refused with 422 and never happens, and nothing
// is appended. Whitespace and member order are not differences.
func TestIdempotencyKeyIsBoundToItsRequest(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	arb := s.create("bo", "rtu") // seq 1 created, 2 appointed
	arb2 := s.appoint("bo", "arbiter")
	cmds := "/v1/tournaments/bo/commands"
	first := s.must(201, "POST", cmds, arb, `{"type":"RegisterPlayer","player":"p1","name":"Mario","club":"Bologna"}`, "Idempotency-Key", "reg-p1")
	seq := uint64(first.json(t)["seq"].(float64))

	// The same request, written differently: replayed.
	again := s.must(201, "POST", cmds, arb, "{ \"name\" : \"Mario\",\n \"club\":\"Bol\\u006fgna\", \"type\":\"RegisterPlayer\", \"player\":\"p1\" }", "Idempotency-Key", "reg-p1")
	if again.header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(again.body, first.body) {
		t.Errorf("the same request reordered: %s %s, want the original replayed", again.header, again.body)
	}

	size := s.logSize()
	check := func() {
		t.Helper()
		reused(t, "another body", s.do("POST", cmds, arb, `{"type":"RegisterPlayer","player":"p1","name":"Luigi","club":"Bologna"}`, "Idempotency-Key", "reg-p1"), "reg-p1", seq)
		reused(t, "one more field", s.do("POST", cmds, arb, `{"type":"RegisterPlayer","player":"p1","name":"Mario","club":"Bologna","rank":1}`, "Idempotency-Key", "reg-p1"), "reg-p1", seq)
		reused(t, "another command type", s.do("POST", cmds, arb, `{"type":"CloseRegistration"}`, "Idempotency-Key", "reg-p1"), "reg-p1", seq)
		reused(t, "another actor", s.do("POST", cmds, arb2, `{"type":"RegisterPlayer","player":"p1","name":"Mario","club":"Bologna"}`, "Idempotency-Key", "reg-p1"), "reg-p1", seq)
		reused(t, "another route: appoint", s.do("POST", "/v1/tournaments/bo/officials", adminToken, `{"name":"X","role":"arbiter"}`, "Idempotency-Key", "reg-p1"), "reg-p1", seq)
		reused(t, "another route: create", s.do("POST", "/v1/tournaments", adminToken, `{"id":"bo","name":"X","ruleset":"rtu"}`, "Idempotency-Key", "reg-p1"), "reg-p1", seq)
		if after := s.logSize(); after != size {
			t.Errorf("refused reuses changed the log from %d to %d messages", size, after)
		}
		players := s.must(200, "GET", "/v1/tournaments/bo/players", "", nil).json(t)["players"].([]any)
		if len(players) != 1 || players[0].(map[string]any)["name"] != "Mario" {
			t.Errorf("players = %v, want Mario alone", players)
		}
	}
	check()
	// The binding is stored with the log: it outlives a restart.
	s.restart()
	check()

	// The key of the creation, reused for a command in its tournament.
	s.must(201, "POST", "/v1/tournaments", adminToken, `{"id":"mi","name":"Milano","ruleset":"rtu"}`, "Idempotency-Key", "create-mi")
	arbMi := s.appoint("mi", "arbiter")
	reused(t, "a creation's key for a command", s.do("POST", "/v1/tournaments/mi/commands", arbMi, `{"type":"CloseRegistration"}`, "Idempotency-Key", "create-mi"), "create-mi", 1)
	again = s.must(201, "POST", "/v1/tournaments", adminToken, `{"ruleset":"rtu","id":"mi","name":"Milano"}`, "Idempotency-Key", "create-mi")
	if again.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("a creation retried: %s %s, want replayed", again.header, again.body)
	}
	// The key of POST /v1/tournaments is not scoped by the id in the body:
	// creating another tournament under it is refused, not a second
	// tournament (within the log's duplicate window, and after a restart
	// from the creation index).
	for _, when := range []string{"at once", "after a restart"} {
		if when != "at once" {
			s.restart()
		}
		reused(t, "a creation's key for another tournament "+when, s.do("POST", "/v1/tournaments", adminToken, `{"id":"ge","name":"Genova","ruleset":"rtu"}`, "Idempotency-Key", "create-mi"), "create-mi", 1)
		if r := s.do("GET", "/v1/tournaments/ge", "", nil); r.status != 404 {
			t.Errorf("%s: tournament ge: %d %s, want 404: it was never created", when, r.status, r.body)
		}
	}

	// An appointment retried is still the 409 that says the token was shown once.
	s.must(201, "POST", "/v1/tournaments/mi/officials", adminToken, `{"name":"Y","role":"auditor"}`, "Idempotency-Key", "appoint-y")
	r := s.do("POST", "/v1/tournaments/mi/officials", adminToken, `{"role":"auditor","name":"Y"}`, "Idempotency-Key", "appoint-y")
	if r.status != 409 || !strings.Contains(string(r.body), "shown once") {
		t.Errorf("an appointment retried: %d %s, want 409 saying the token was shown once", r.status, r.body)
	}
	reused(t, "an appointment's key for another one", s.do("POST", "/v1/tournaments/mi/officials", adminToken, `{"name":"Z","role":"auditor"}`, "Idempotency-Key", "appoint-y"), "appoint-y", 3)
}

// TestIdempotencyKeyBindingOutlivesTheDuplicateWindow: past JetStream's
// window only the command index knows the key, and the binding holds there
// too.
func TestIdempotencyKeyBindingOutlivesTheDuplicateWindow(t *testing.T) {
	t.Parallel()
	s := &stack{t: t, dir: t.TempDir(), opts: node.NodeOptions{DuplicateWindow: 100 * time.Millisecond}}
	s.start()
	t.Cleanup(s.stop)
	arb := s.create("bo", "rtu")
	s.must(201, "POST", "/v1/tournaments/bo/commands", arb, `{"type":"RegisterPlayer","player":"p1","name":"M"}`, "Idempotency-Key", "k")
	time.Sleep(300 * time.Millisecond)
	size := s.logSize()
	reused(t, "after the window", s.do("POST", "/v1/tournaments/bo/commands", arb, `{"type":"RegisterPlayer","player":"p2","name":"N"}`, "Idempotency-Key", "k"), "k", 3)
	s.must(201, "POST", "/v1/tournaments", adminToken, `{"id":"mo","name":"Modena","ruleset":"rtu"}`, "Idempotency-Key", "create-mo")
	time.Sleep(300 * time.Millisecond)
	size = s.logSize()
	reused(t, "a creation's key for another tournament after the window", s.do("POST", "/v1/tournaments", adminToken, `{"id":"fe","name":"Ferrara","ruleset":"rtu"}`, "Idempotency-Key", "create-mo"), "create-mo", 1)
	if s.logSize() != size {
		t.Error("a reused key appended")
	}
}

// TestRacingOneKeyWithDifferentBodies: clients racing with one key and
// different bodies, on one node and across two sharing the log: exactly one
// command happens, every other client is refused with 422 (or, when its
// body is the winner's, gets the winner's outcome replayed).
func TestRacingOneKeyWithDifferentBodies(t *testing.T) {
	for _, nodes := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d nodes", nodes), func(t *testing.T) {
			var stacks []*stack
			if nodes == 1 {
				stacks = []*stack{newStack(t)}
			} else {
				stacks = startTwoNodes(t)
			}
			s := stacks[0]
			arb := s.create("race", "rtu")
			rc := &racer{nodes: stacks, ctx: context.Background(), client: &http.Client{Timeout: 20 * time.Second}}
			for round := range 3 {
				rc.sync(t)
				key := fmt.Sprintf("shared-%d", round)
				before := s.logSize()
				type answer struct {
					status   int
					replayed bool
					body     []byte
				}
				answers := make([]answer, raceClients)
				var wg sync.WaitGroup
				for i := range raceClients {
					wg.Go(func() {
						// Two clients send each body: one of them may be
						// the winner's twin, replayed.
						body := fmt.Sprintf(`{"type":"RegisterPlayer","player":"r%d-%d","name":"Racer"}`, round, i/2)
						req, _ := http.NewRequest("POST", stacks[i%len(stacks)].srv.URL+"/v1/tournaments/race/commands", strings.NewReader(body))
						req.Header.Set("Authorization", "Bearer "+arb)
						req.Header.Set("Idempotency-Key", key)
						res, err := rc.client.Do(req)
						if err != nil {
							t.Error(err)
							return
						}
						defer res.Body.Close()
						var b bytes.Buffer
						_, _ = b.ReadFrom(res.Body)
						answers[i] = answer{res.StatusCode, res.Header.Get("Idempotent-Replayed") == "true", b.Bytes()}
					})
				}
				wg.Wait()
				winner := -1
				for i, a := range answers {
					if a.status == 201 && !a.replayed {
						if winner >= 0 {
							t.Fatalf("round %d: clients %d and %d both had their command accepted with one key", round, winner, i)
						}
						winner = i
					}
				}
				if winner < 0 {
					t.Fatalf("round %d: no command accepted: %v", round, answers)
				}
				for i, a := range answers {
					switch {
					case i == winner:
					case a.status == 201 && i/2 == winner/2:
						if !a.replayed {
							t.Errorf("round %d: the winner's twin was not a replay", round)
						}
					case a.status != 422 || !strings.Contains(string(a.body), "idempotency_key_reused"):
						t.Errorf("round %d: client %d (body %d, winner's %d): %d %s, want 422 idempotency_key_reused", round, i, i/2, winner/2, a.status, a.body)
					}
				}
				if after := s.logSize(); after != before+1 {
					t.Errorf("round %d: the log grew by %d messages, want 1", round, after-before)
				}
				var got struct {
					Events []events.Envelope `json:"events"`
				}
				r := s.must(200, "GET", fmt.Sprintf("/v1/tournaments/race/events?from=%d", 3+round), arb, nil)
				if err := json.Unmarshal(r.body, &got); err != nil || len(got.Events) != 1 || got.Events[0].CommandID != key ||
					!strings.Contains(string(got.Events[0].Data), fmt.Sprintf(`"r%d-%d"`, round, winner/2)) {
					t.Errorf("round %d: the log holds %s, want the winner's registration under key %s", round, r.body, key)
				}
			}
		})
	}
}
