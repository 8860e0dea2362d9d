package api_test

import (
	"bufio"
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
	"github.com/referto/referto/events"
)

func TestHealthAndReadiness(t *testing.T) {
	s := newStack(t)
	s.must(200, "GET", "/healthz", "", nil)
	r := s.must(200, "GET", "/readyz", "", nil)
	if r.json(t)["ready"] != true {
		t.Errorf("readyz = %s", r.body)
	}
}

func TestCreateTournament(t *testing.T) {
	s := newStack(t)
	r := s.must(201, "POST", "/v1/tournaments", adminToken, `{"id":"bo-2026","name":"Raduno Bologna","ruleset":"rtu","params":{"scoring":"conv150","discards":1}}`)
	if got := r.json(t)["seq"]; got != float64(1) {
		t.Errorf("seq = %v, want 1", got)
	}
	sum := s.must(200, "GET", "/v1/tournaments/bo-2026", "", nil).json(t)
	rs := sum["ruleset"].(map[string]any)
	if sum["seq"] != float64(1) || rs["scoring"] != "conv150" || rs["discards"] != float64(1) || rs["tie_at_top"] != "split_bonus" {
		t.Errorf("summary = %v", sum)
	}
	list := s.must(200, "GET", "/v1/tournaments", "", nil).json(t)["tournaments"].([]any)
	if len(list) != 1 {
		t.Errorf("tournament list = %v", list)
	}
	s.must(404, "GET", "/v1/tournaments/nope", "", nil)
}

// problemCase is a request that must be refused with a status, a problem
// code and (when set) the field or rule it names.
type problemCase struct {
	name, method, path, token string
	body                      any
	headers                   []string
	status                    int
	code, field, rule         string
}

func (s *stack) expectProblems(t *testing.T, cases []problemCase) {
	t.Helper()
	for _, tc := range cases {
		before := s.logSize()
		r := s.do(tc.method, tc.path, tc.token, tc.body, tc.headers...)
		if r.status != tc.status {
			t.Errorf("%s: status %d, want %d: %s", tc.name, r.status, tc.status, r.body)
			continue
		}
		if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
			t.Errorf("%s: Content-Type %q", tc.name, ct)
		}
		p := r.json(t)
		if p["code"] != tc.code || p["status"] != float64(tc.status) || p["type"] == "" || p["title"] == "" || p["detail"] == "" {
			t.Errorf("%s: problem %s, want code %s", tc.name, r.body, tc.code)
		}
		if tc.field != "" && p["field"] != tc.field {
			t.Errorf("%s: field %v, want %s (%s)", tc.name, p["field"], tc.field, r.body)
		}
		if tc.rule != "" && p["rule"] != tc.rule {
			t.Errorf("%s: rule %v, want %s (%s)", tc.name, p["rule"], tc.rule, r.body)
		}
		if after := s.logSize(); after != before {
			t.Errorf("%s: refused request changed the log from %d to %d messages", tc.name, before, after)
		}
	}
}

func TestRefusedRequestsLeaveTheLogUnchanged(t *testing.T) {
	s := newStack(t)
	arb := s.create("bo", "rur-2015")
	other := s.create("mi", "rtu")
	aud := s.appoint("bo", "auditor")
	s.must(201, "POST", "/v1/tournaments/bo/commands", arb, `{"type":"RegisterPlayer","player":"p001","name":"Mario Rossi"}`)
	cmds := "/v1/tournaments/bo/commands"
	big := `{"type":"RegisterPlayer","player":"p9","name":"` + strings.Repeat("x", 1<<20) + `"}`
	s.expectProblems(t, []problemCase{
		{name: "create: no token", method: "POST", path: "/v1/tournaments", body: `{"id":"x","name":"X","ruleset":"rtu"}`, status: 401, code: "unauthorized"},
		{name: "create: bad token", method: "POST", path: "/v1/tournaments", token: "guess", body: `{"id":"x","name":"X","ruleset":"rtu"}`, status: 401, code: "unauthorized"},
		{name: "create: arbiter", method: "POST", path: "/v1/tournaments", token: arb, body: `{"id":"x","name":"X","ruleset":"rtu"}`, status: 403, code: "forbidden"},
		{name: "create: duplicate", method: "POST", path: "/v1/tournaments", token: adminToken, body: `{"id":"bo","name":"X","ruleset":"rtu"}`, status: 409, code: "conflict"},
		{name: "create: unknown ruleset", method: "POST", path: "/v1/tournaments", token: adminToken, body: `{"id":"x","name":"X","ruleset":"risiko-1970"}`, status: 422, code: "rule_violation", rule: "docs/rules.md#2-rulesets"},
		{name: "create: bad id", method: "POST", path: "/v1/tournaments", token: adminToken, body: `{"id":"x.>","name":"X","ruleset":"rtu"}`, status: 400, code: "invalid", field: "id"},
		{name: "create: missing name", method: "POST", path: "/v1/tournaments", token: adminToken, body: `{"id":"x","ruleset":"rtu"}`, status: 400, code: "invalid", field: "name"},
		{name: "create: unknown param", method: "POST", path: "/v1/tournaments", token: adminToken, body: `{"id":"x","name":"X","ruleset":"rtu","params":{"bonuz":3}}`, status: 400, code: "invalid", field: "params.bonuz"},
		{name: "create: bad param value", method: "POST", path: "/v1/tournaments", token: adminToken, body: `{"id":"x","name":"X","ruleset":"rtu","params":{"discards":5}}`, status: 400, code: "invalid", field: "params.discards"},
		{name: "official: bad role", method: "POST", path: "/v1/tournaments/bo/officials", token: adminToken, body: `{"name":"X","role":"king"}`, status: 400, code: "invalid", field: "role"},
		{name: "official: arbiter appoints", method: "POST", path: "/v1/tournaments/bo/officials", token: arb, body: `{"name":"X","role":"arbiter"}`, status: 403, code: "forbidden"},
		{name: "official: no tournament", method: "POST", path: "/v1/tournaments/zz/officials", token: adminToken, body: `{"name":"X","role":"arbiter"}`, status: 404, code: "not_found"},
		{name: "command: no token", method: "POST", path: cmds, body: `{"type":"CloseRegistration"}`, status: 401, code: "unauthorized"},
		{name: "command: other tournament's arbiter", method: "POST", path: cmds, token: other, body: `{"type":"CloseRegistration"}`, status: 403, code: "forbidden"},
		{name: "command: auditor", method: "POST", path: cmds, token: aud, body: `{"type":"CloseRegistration"}`, status: 403, code: "forbidden"},
		{name: "command: too large", method: "POST", path: cmds, token: arb, body: big, status: 413, code: "too_large"},
		{name: "command: malformed JSON", method: "POST", path: cmds, token: arb, body: `{"type":"RegisterPlayer",`, status: 400, code: "invalid"},
		{name: "command: not an object", method: "POST", path: cmds, token: arb, body: `[1,2]`, status: 400, code: "invalid"},
		{name: "command: no type", method: "POST", path: cmds, token: arb, body: `{"player":"p2"}`, status: 400, code: "invalid", field: "type"},
		{name: "command: unknown type", method: "POST", path: cmds, token: arb, body: `{"type":"TeleportPlayer"}`, status: 400, code: "invalid", field: "type"},
		{name: "command: admin-only type", method: "POST", path: cmds, token: arb, body: `{"type":"CreateTournament","id":"q","name":"Q","ruleset":"rtu"}`, status: 400, code: "invalid", field: "type"},
		{name: "command: unknown field", method: "POST", path: cmds, token: arb, body: `{"type":"RegisterPlayer","player":"p2","nome":"Mario"}`, status: 400, code: "invalid", field: "nome"},
		{name: "command: wrong field type", method: "POST", path: cmds, token: arb, body: `{"type":"RegisterPlayer","player":"p2","name":"M","rank":"first"}`, status: 400, code: "invalid", field: "rank"},
		{name: "command: trailing data", method: "POST", path: cmds, token: arb, body: `{"type":"CloseRegistration"} {}`, status: 400, code: "invalid"},
		{name: "register: duplicate id", method: "POST", path: cmds, token: arb, body: `{"type":"RegisterPlayer","player":"p001","name":"Other"}`, status: 409, code: "conflict"},
		{name: "register: missing name", method: "POST", path: cmds, token: arb, body: `{"type":"RegisterPlayer","player":"p002"}`, status: 400, code: "invalid", field: "name"},
		{name: "register: bad player id", method: "POST", path: cmds, token: arb, body: `{"type":"RegisterPlayer","player":"P 2","name":"M"}`, status: 400, code: "invalid", field: "player"},
		{name: "register: bidi override in name", method: "POST", path: cmds, token: arb, body: `{"type":"RegisterPlayer","player":"p002","name":"Mario\u202eissoR"}`, status: 400, code: "invalid", field: "name"},
		{name: "register: minor without waiver", method: "POST", path: cmds, token: arb, body: `{"type":"RegisterPlayer","player":"p002","name":"Kid","minor":true}`, status: 422, code: "rule_violation", rule: "rur-2015 art. 1"},
		{name: "refuse: no reason", method: "POST", path: cmds, token: arb, body: `{"type":"RefuseRegistration","player":"p001"}`, status: 400, code: "invalid", field: "reason"},
		{name: "refuse: unknown applicant without name", method: "POST", path: cmds, token: arb, body: `{"type":"RefuseRegistration","player":"p777","reason":"r"}`, status: 400, code: "invalid", field: "name"},
		{name: "amend: unknown param", method: "POST", path: cmds, token: arb, body: `{"type":"AmendRuleset","params":{"nope":1}}`, status: 400, code: "invalid", field: "params.nope"},
		{name: "if-match: stale", method: "POST", path: cmds, token: arb, body: `{"type":"CloseRegistration"}`, headers: []string{"If-Match", `"1"`}, status: 412, code: "precondition_failed"},
		{name: "if-match: garbage", method: "POST", path: cmds, token: arb, body: `{"type":"CloseRegistration"}`, headers: []string{"If-Match", `"abc"`}, status: 400, code: "invalid", field: "If-Match"},
		{name: "idempotency key: bad", method: "POST", path: cmds, token: arb, body: `{"type":"CloseRegistration"}`, headers: []string{"Idempotency-Key", "has space"}, status: 400, code: "invalid", field: "Idempotency-Key"},
		{name: "events: public", method: "GET", path: "/v1/tournaments/bo/events", status: 401, code: "unauthorized"},
		{name: "events: other tournament", method: "GET", path: "/v1/tournaments/bo/events", token: other, status: 403, code: "forbidden"},
		{name: "unknown route", method: "GET", path: "/v1/nothing", status: 404, code: "not_found"},
		{name: "wrong method", method: "DELETE", path: "/v1/tournaments/bo", token: adminToken, status: 405, code: "method_not_allowed"},
	})
}

func TestRegistrationFlow(t *testing.T) {
	s := newStack(t)
	arb := s.create("bo", "rur-2015")
	cmds := "/v1/tournaments/bo/commands"
	s.must(201, "POST", cmds, arb, `{"type":"RegisterPlayer","player":"p001","name":"Mario Rossi","club":"Bologna – Asinelli","region":"Emilia-Romagna","rank":12}`)
	s.must(201, "POST", cmds, arb, `{"type":"RegisterPlayer","player":"p002","name":"Luca","minor":true,"waiver":"signed by the club president, parent present"}`)
	s.must(201, "POST", cmds, arb, `{"type":"RegisterPlayer","player":"p003","name":"Wario"}`)
	s.must(201, "POST", cmds, arb, `{"type":"RefuseRegistration","player":"p003","reason":"threats at the previous Raduno"}`)
	r := s.must(201, "POST", cmds, arb, `{"type":"CloseRegistration"}`)
	if r.header.Get("ETag") != `"7"` {
		t.Errorf("ETag = %q, want \"7\"", r.header.Get("ETag"))
	}
	// Read-your-writes: a GET waits until the projections hold every
	// command answered 201.
	players := s.must(200, "GET", "/v1/tournaments/bo/players", "", nil).json(t)["players"].([]any)
	if len(players) != 3 {
		t.Fatalf("players = %v", players)
	}
	p1 := players[0].(map[string]any)
	if p1["club"] != "Bologna – Asinelli" || p1["status"] != "active" {
		t.Errorf("p001 = %v", p1)
	}
	if p3 := players[2].(map[string]any); p3["status"] != "refused" || p3["reason"] == "" {
		t.Errorf("p003 = %v", p3)
	}
	sum := s.must(200, "GET", "/v1/tournaments/bo", "", nil).json(t)
	if sum["registration_closed"] != true || sum["players"] != float64(2) || sum["seq"] != float64(7) {
		t.Errorf("summary = %v", sum)
	}
	s.expectProblems(t, []problemCase{
		{name: "register after close", method: "POST", path: cmds, token: arb, body: `{"type":"RegisterPlayer","player":"p004","name":"Late"}`, status: 422, code: "rule_violation", rule: "rur-2015 art. 11"},
		{name: "close twice", method: "POST", path: cmds, token: arb, body: `{"type":"CloseRegistration"}`, status: 409, code: "conflict"},
	})
}

func TestAmendRuleset(t *testing.T) {
	s := newStack(t)
	arb := s.create("bo", "rtu")
	s.must(201, "POST", "/v1/tournaments/bo/commands", arb, `{"type":"AmendRuleset","params":{"scoring":"faentino","discards":2},"reason":"organizer's choice"}`)
	rs := s.must(200, "GET", "/v1/tournaments/bo", "", nil).json(t)["ruleset"].(map[string]any)
	if rs["scoring"] != "faentino" || rs["discards"] != float64(2) || rs["preset"] != "rtu" {
		t.Errorf("ruleset after amendment = %v", rs)
	}
}

func TestTokensAreStoredHashed(t *testing.T) {
	s := newStack(t)
	arb := s.create("bo", "rtu")
	aud := s.appoint("bo", "auditor")
	r := s.must(200, "GET", "/v1/tournaments/bo/events", aud, nil, "Accept", "application/x-ndjson")
	if bytes.Contains(r.body, []byte(arb)) || bytes.Contains(r.body, []byte(aud)) {
		t.Fatal("a bearer token appears in the log")
	}
	if !bytes.Contains(r.body, []byte(events.TypeOfficialAppointed)) {
		t.Fatalf("log has no appointment: %s", r.body)
	}
	// Tokens survive a restart: they are found through the hash index.
	s.restart()
	s.must(201, "POST", "/v1/tournaments/bo/commands", arb, `{"type":"RegisterPlayer","player":"p1","name":"M"}`)
}

func TestIdempotencyKeyReturnsTheOriginalOutcome(t *testing.T) {
	s := newStack(t)
	arb := s.create("bo", "rtu")
	cmds := "/v1/tournaments/bo/commands"
	first := s.must(201, "POST", cmds, arb, `{"type":"RegisterPlayer","player":"p1","name":"Mario"}`, "Idempotency-Key", "reg-p1")
	size := s.logSize()
	again := s.must(201, "POST", cmds, arb, `{"type":"RegisterPlayer","player":"p1","name":"Mario"}`, "Idempotency-Key", "reg-p1")
	if again.header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(first.body, again.body) {
		t.Errorf("retry: %s %s, want the original %s", again.header, again.body, first.body)
	}
	if s.logSize() != size {
		t.Error("a retried command was appended again")
	}
	// Other commands happen in between; the key still answers the original.
	s.must(201, "POST", cmds, arb, `{"type":"RegisterPlayer","player":"p2","name":"Luigi"}`)
	// ... also after a restart, when JetStream's duplicate window no longer matters.
	s.restart()
	later := s.must(201, "POST", cmds, arb, `{"type":"RegisterPlayer","player":"p1","name":"Mario"}`, "Idempotency-Key", "reg-p1")
	if !bytes.Equal(first.body, later.body) {
		t.Errorf("after restart: %s, want %s", later.body, first.body)
	}
	// The same key in another tournament is another command.
	arb2 := s.create("mi", "rtu")
	other := s.must(201, "POST", "/v1/tournaments/mi/commands", arb2, `{"type":"RegisterPlayer","player":"p1","name":"Mario"}`, "Idempotency-Key", "reg-p1")
	if other.header.Get("Idempotent-Replayed") != "" {
		t.Error("an idempotency key leaked across tournaments")
	}
}

// TestIdempotencyOutlivesTheDuplicateWindow shrinks JetStream's duplicate
// window so that only the command index can recognise a retry.
func TestIdempotencyOutlivesTheDuplicateWindow(t *testing.T) {
	t.Parallel()
	s := &stack{t: t, dir: t.TempDir(), opts: node.NodeOptions{DuplicateWindow: 100 * time.Millisecond}}
	s.start()
	t.Cleanup(s.stop)
	arb := s.create("bo", "rtu")
	first := s.must(201, "POST", "/v1/tournaments/bo/commands", arb, `{"type":"RegisterPlayer","player":"p1","name":"M"}`, "Idempotency-Key", "k")
	time.Sleep(300 * time.Millisecond)
	s.restart()
	size := s.logSize()
	again := s.must(201, "POST", "/v1/tournaments/bo/commands", arb, `{"type":"RegisterPlayer","player":"p1","name":"M"}`, "Idempotency-Key", "k")
	if !bytes.Equal(first.body, again.body) || s.logSize() != size {
		t.Errorf("retry after the window: %s (log %d → %d), want the original %s", again.body, size, s.logSize(), first.body)
	}
}

func TestIfMatch(t *testing.T) {
	s := newStack(t)
	arb := s.create("bo", "rtu") // seq 2 after the appointment
	s.must(201, "POST", "/v1/tournaments/bo/commands", arb, `{"type":"RegisterPlayer","player":"p1","name":"M"}`, "If-Match", `"2"`)
	s.must(412, "POST", "/v1/tournaments/bo/commands", arb, `{"type":"RegisterPlayer","player":"p2","name":"N"}`, "If-Match", `"2"`)
}

func TestConcurrentCommandsAllLandWithContiguousSeqs(t *testing.T) {
	s := newStack(t)
	arb := s.create("bo", "rtu")
	const clients, each = 8, 10
	var wg sync.WaitGroup
	errs := make(chan string, clients*each)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				r := s.do("POST", "/v1/tournaments/bo/commands", arb, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%d-%d","name":"P"}`, c, i))
				if r.status != 201 {
					errs <- fmt.Sprintf("%d %s", r.status, r.body)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	// Every command is in the log once, seqs 1..n without gaps.
	r := s.must(200, "GET", "/v1/tournaments/bo/events?limit=1000", arb, nil, "Accept", "application/x-ndjson")
	sc := bufio.NewScanner(bytes.NewReader(r.body))
	sc.Buffer(nil, 1<<20)
	var n uint64
	for sc.Scan() {
		n++
		var env events.Envelope
		if err := json.Unmarshal(sc.Bytes(), &env); err != nil || env.Seq != n {
			t.Fatalf("line %d: seq %d, err %v", n, env.Seq, err)
		}
	}
	if want := uint64(2 + clients*each); n != want {
		t.Errorf("log holds %d events, want %d", n, want)
	}
}

func TestEventsPaging(t *testing.T) {
	s := newStack(t)
	arb := s.create("bo", "rtu")
	for i := range 5 {
		s.must(201, "POST", "/v1/tournaments/bo/commands", arb, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%d","name":"P"}`, i))
	}
	page := s.must(200, "GET", "/v1/tournaments/bo/events?from=3&limit=2", arb, nil).json(t)
	evs := page["events"].([]any)
	if len(evs) != 2 || evs[0].(map[string]any)["seq"] != float64(3) || page["next"] != float64(5) {
		t.Errorf("page = %v", page)
	}
}

func TestShutdownFlushesAndRestartServesTheSameState(t *testing.T) {
	s := newStack(t)
	arb := s.create("bo", "rtu")
	s.must(201, "POST", "/v1/tournaments/bo/commands", arb, `{"type":"RegisterPlayer","player":"p1","name":"M"}`)
	before := s.must(200, "GET", "/v1/tournaments/bo/players", "", nil).body
	s.restart()
	after := s.must(200, "GET", "/v1/tournaments/bo/players", "", nil).body
	if !bytes.Equal(before, after) {
		t.Errorf("after restart: %s, want %s", after, before)
	}
	ctx := context.Background()
	if n, _ := s.node.Log.LastSeq(ctx); n != 3 {
		t.Errorf("log size %d after restart, want 3", n)
	}
	_ = http.StatusOK
}

// TestEveryReadSeesTheCommandAnsweredBeforeIt: a command is answered once
// JetStream stored it, before the projections apply it; the GETs that
// follow each 201 (players, the summary, the standings) must still reflect
// it, every time, while other clients keep the projections busy.
func TestEveryReadSeesTheCommandAnsweredBeforeIt(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	const clients, each = 6, 60
	tokens := make([]string, clients)
	for c := range clients {
		tokens[c] = s.create(fmt.Sprintf("ryw%d", c), "rtu")
	}
	var wg sync.WaitGroup
	errs := make(chan string, clients)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tour := fmt.Sprintf("/v1/tournaments/ryw%d", c)
			for i := range each {
				r := s.do("POST", tour+"/commands", tokens[c], fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%03d","name":"P %d"}`, i, i))
				if r.status != 201 {
					errs <- fmt.Sprintf("register: %d %s", r.status, r.body)
					return
				}
				var sum, players, standings map[string]any
				_ = json.Unmarshal([]byte(s.do("GET", tour, "", nil).body), &sum)
				_ = json.Unmarshal([]byte(s.do("GET", tour+"/players", "", nil).body), &players)
				_ = json.Unmarshal([]byte(s.do("GET", tour+"/standings", "", nil).body), &standings)
				p, _ := players["players"].([]any)
				rows, _ := standings["rows"].([]any)
				if sum["players"] != float64(i+1) || len(p) != i+1 || len(rows) != i+1 {
					errs <- fmt.Sprintf("%s: after the 201 of registration %d, the summary counts %v players, GET players lists %d, the standings %d rows", tour, i+1, sum["players"], len(p), len(rows))
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
