package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/referto/referto/api"
	"github.com/referto/referto/api/node"
	"github.com/referto/referto/api/problem"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/events/fault"
)

// testClock is the injected clock: it moves only when a test says so.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func newTestClock() *testClock {
	return &testClock{now: time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)}
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// newClockedStack is newStack with the API's clock injected (and a logger,
// when not nil).
func newClockedStack(t *testing.T, logger *slog.Logger) (*stack, *testClock) {
	t.Helper()
	clk := newTestClock()
	s := &stack{t: t, dir: t.TempDir(), opts: node.NodeOptions{Clock: clk.Now, Logger: logger}}
	s.start()
	t.Cleanup(s.stop)
	return s, clk
}

// The failed-authentication limit of auth.go, restated: the tests must fail
// if it changes without them.
const (
	authLimit  = 10
	authWindow = time.Minute
)

// A stale If-Match: a command that passes authentication and authorization
// is then refused with 412 before it is decided, so the authorization
// matrix tells "allowed" (412) from "refused" (401/403) exactly and never
// changes the log.
var staleIfMatch = []string{"If-Match", `"999999"`}

// commandAccess is who may issue each command type in their own tournament,
// written out by hand from the intent of commands.permitted (the
// administrator may issue every command in every tournament; the auditor
// none): the table is the spec. Payloads are minimal but parse, so that
// the permission check is reached.
var commandAccess = []struct {
	typ                      string
	payload                  string
	arbiter, appeals, player bool
}{
	{"AmendRuleset", `{"params":{"discards":0}}`, true, false, false},
	{"AmendOrganizer", `{"organizer":"ROMA [Il Gufo]"}`, true, false, false},
	{"RecordWorkbookImport", `{"file_name":"iscritti.xlsx","sha256":"0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a","scope":"entry_list"}`, true, false, false},
	{"RegisterPlayer", `{"player":"p900","name":"Nuovo"}`, true, false, false},
	{"RefuseRegistration", `{"player":"p900","name":"Nuovo","reason":"no waiver"}`, true, false, false},
	{"CloseRegistration", `{}`, true, false, false},
	{"DesignateReserve", `{"player":"r900","name":"Riserva"}`, true, false, false},
	{"CheckIn", `{"round":2,"player":"p001","minutes_late":0}`, true, false, false},
	{"SubstituteReserve", `{"round":2,"absent":"p001","reserve":"r900"}`, true, false, false},
	{"DrawTables", `{"round":2}`, true, false, false},
	{"SetTurnOrder", `{"round":1,"table":1,"order":["p001","p002","p003","p004"]}`, true, false, false},
	{"RecordResult", `{"round":1,"table":1,"closed_by":"time","players":[
		{"player":"p001","turn":1,"table_points":30,"off_objective_points":1,"objective_territories":1,"territories":10,"armies":20,"status":"finished"},
		{"player":"p002","turn":2,"table_points":20,"off_objective_points":1,"objective_territories":1,"territories":10,"armies":20,"status":"finished"},
		{"player":"p003","turn":3,"table_points":10,"off_objective_points":1,"objective_territories":1,"territories":10,"armies":20,"status":"finished"},
		{"player":"p004","turn":4,"table_points":5,"off_objective_points":1,"objective_territories":1,"territories":12,"armies":20,"status":"finished"}]}`, true, false, false},
	{"RecordTieBreakRoll", `{"players":["p001","p002"],"rolls":[5,2]}`, true, false, false},
	{"Renounce", `{"player":"p001","phase":"final"}`, true, false, false},
	{"Repechage", `{"phase":"final","replaces":"p001"}`, true, false, false},
	{"Withdraw", `{"player":"p001","scope":"tournament","reason":"force_majeure"}`, true, false, false},
	{"ImposeSanction", `{"player":"p001","round":1,"kind":"reminder","article":"master §richiamo"}`, true, false, false},
	{"RevokeSanction", `{"sanction":"s1","ruling":"wrongly imposed"}`, true, true, false},
	{"AnnulGame", `{"round":1,"table":1,"reason":"the board fell"}`, true, false, false},
	{"PublishClassification", `{"final":false}`, true, false, false},
	{"CloseTournament", `{}`, true, false, false},
	{"FileContestation", `{"against":1,"claim":"wrong table points"}`, true, true, false},
	{"RuleContestation", `{"contestation":"c1","upheld":false,"ruling":"rejected"}`, true, true, false},
	{"RevokePlayerToken", `{"player":"p001","reason":"the slip was lost"}`, true, false, false},
	// A player's link writes only these, for its own player and table
	// (who sits where is decided, not checked here: TestPlayerLinksActOnlyAtTheirOwnTable).
	{"ProposeResult", `{"player":"p001","round":1,"table":1,"closed_by":"time","players":[
		{"player":"p001","turn":1,"table_points":30,"status":"finished"},{"player":"p002","turn":2,"table_points":20,"status":"finished"},
		{"player":"p003","turn":3,"table_points":10,"status":"finished"},{"player":"p004","turn":4,"table_points":5,"status":"finished"}]}`, false, false, true},
	{"ConfirmProposal", `{"player":"p001","proposal":"r1t1-1"}`, false, false, true},
	{"DisputeProposal", `{"player":"p001","proposal":"r1t1-1","reason":"the table points of p002 were 25"}`, false, false, true},
}

// Who a request comes from: an official of the tournament it addresses
// (role), of another one (role@other), the administrator (of every
// tournament), nobody, or a token nobody was given.
var principals = []string{"admin", "arbiter", "arbiter@other", "appeals", "appeals@other",
	"auditor", "auditor@other", "player", "player@other", "none", "bad"}

// readAccess is the status each principal gets from each access class of
// route below, written out: public reads serve anyone (a token, even a bad
// one, is not looked at); the event log and its export serve the
// tournament's officials; /v1/me serves any valid token; creating
// tournaments and appointing officials is the administrator's (412 here:
// allowed, then refused by the stale If-Match).
var readAccess = map[string]map[string]int{
	"public": {"admin": 200, "arbiter": 200, "arbiter@other": 200, "appeals": 200, "appeals@other": 200,
		"auditor": 200, "auditor@other": 200, "player": 200, "player@other": 200, "none": 200, "bad": 200},
	"officials": {"admin": 200, "arbiter": 200, "arbiter@other": 403, "appeals": 200, "appeals@other": 403,
		"auditor": 200, "auditor@other": 403, "player": 403, "player@other": 403, "none": 401, "bad": 401},
	"token": {"admin": 200, "arbiter": 200, "arbiter@other": 200, "appeals": 200, "appeals@other": 200,
		"auditor": 200, "auditor@other": 200, "player": 200, "player@other": 200, "none": 401, "bad": 401},
	"admin": {"admin": 412, "arbiter": 403, "arbiter@other": 403, "appeals": 403, "appeals@other": 403,
		"auditor": 403, "auditor@other": 403, "player": 403, "player@other": 403, "none": 401, "bad": 401},
	// The personal links, which show tokens, are the arbiters' own.
	"arbiters": {"admin": 200, "arbiter": 200, "arbiter@other": 403, "appeals": 403, "appeals@other": 403,
		"auditor": 403, "auditor@other": 403, "player": 403, "player@other": 403, "none": 401, "bad": 401},
	"arbiters-write": {"admin": 412, "arbiter": 412, "arbiter@other": 403, "appeals": 403, "appeals@other": 403,
		"auditor": 403, "auditor@other": 403, "player": 403, "player@other": 403, "none": 401, "bad": 401},
	// A draw's draft is decided (here refused by the rules: round 1 has no
	// results yet) only for those who may draw.
	"drafts": {"admin": 422, "arbiter": 422, "arbiter@other": 403, "appeals": 403, "appeals@other": 403,
		"auditor": 403, "auditor@other": 403, "player": 403, "player@other": 403, "none": 401, "bad": 401},
}

// routeAccess is every route of api/server.go routes() (the web UI aside)
// with its access class; {t} is the tournament addressed.
var routeAccess = []struct {
	method, path, class string
	body                string
}{
	{"GET", "/healthz", "public", ""},
	{"GET", "/readyz", "public", ""},
	{"GET", "/v1/tournaments", "public", ""},
	{"POST", "/v1/tournaments", "admin", `{"id":"new-one","name":"Nuovo","ruleset":"rtu"}`},
	{"GET", "/v1/tournaments/{t}", "public", ""},
	{"POST", "/v1/tournaments/{t}/officials", "admin", `{"name":"Nuovo arbitro","role":"arbiter"}`},
	{"GET", "/v1/tournaments/{t}/players", "public", ""},
	{"GET", "/v1/tournaments/{t}/events", "officials", ""},
	{"GET", "/v1/tournaments/{t}/officials", "officials", ""},
	{"POST", "/v1/tournaments/{t}/draft", "drafts", `{"type":"DrawTables","round":2}`},
	{"GET", "/v1/tournaments/{t}/events?from=2&limit=3", "officials", ""},
	{"GET", "/v1/tournaments/{t}/rounds/1/tables", "public", ""},
	{"GET", "/v1/tournaments/{t}/standings", "public", ""},
	{"GET", "/v1/tournaments/{t}/standings?at=3", "public", ""},
	{"GET", "/v1/tournaments/{t}/classification", "public", ""},
	{"GET", "/v1/tournaments/{t}/state", "public", ""},
	{"GET", "/v1/tournaments/{t}/state?at=3", "public", ""},
	{"GET", "/v1/tournaments/{t}/checkpoint", "public", ""},
	{"GET", "/v1/tournaments/{t}/checkpoint?size=2", "public", ""},
	{"GET", "/v1/tournaments/{t}/events/1/proof", "public", ""},
	{"GET", "/v1/tournaments/{t}/consistency?from=1&to=2", "public", ""},
	{"GET", "/v1/tournaments/{t}/export", "officials", ""},
	{"GET", "/v1/keys", "public", ""},
	{"GET", "/v1/me", "token", ""},
	{"GET", "/v1/rulesets", "public", ""},
	{"GET", "/v1/tournaments/{t}/player-tokens", "arbiters", ""},
	{"POST", "/v1/tournaments/{t}/player-tokens", "arbiters-write", `{"players":["p002"]}`},
	{"GET", "/v1/tournaments/{t}/stream?max_seconds=1", "public", ""},
	// GET …/classification/rows/{player}/proof is public too; it answers
	// 404 until a classification is published (TestClassificationRowProof).
}

// accessFixture is two tournaments, each with a drawn round 1 and one
// official of every role, and the token and target of each principal.
type accessFixture struct {
	s      *stack
	clk    *testClock
	tokens map[string]string // principal → token ("" for none)
}

func newAccessFixture(t *testing.T) *accessFixture {
	t.Helper()
	s, clk := newClockedStack(t, nil)
	f := &accessFixture{s: s, clk: clk, tokens: map[string]string{"admin": adminToken, "none": "", "bad": "not-a-token"}}
	for _, tour := range []string{"bo", "mi"} {
		s.must(201, "POST", "/v1/tournaments", adminToken, map[string]any{"id": tour, "name": tour, "ruleset": "master"})
		for _, role := range []string{"arbiter", "appeals", "auditor"} {
			tok := s.appoint(tour, role)
			if tour == "bo" {
				f.tokens[role] = tok
			} else {
				f.tokens[role+"@other"] = tok
			}
		}
		arb := f.tokens["arbiter"]
		if tour == "mi" {
			arb = f.tokens["arbiter@other"]
		}
		for i := 1; i <= 4; i++ {
			s.must(201, "POST", "/v1/tournaments/"+tour+"/commands", arb, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%03d","name":"P %d"}`, i, i))
		}
		s.must(201, "POST", "/v1/tournaments/"+tour+"/commands", arb, `{"type":"CloseRegistration"}`)
		s.must(201, "POST", "/v1/tournaments/"+tour+"/commands", arb, `{"type":"DrawTables","round":1,"seed":"s"}`)
		var issued struct {
			Tokens []struct {
				Token string `json:"token"`
			} `json:"tokens"`
		}
		if err := json.Unmarshal(s.must(201, "POST", "/v1/tournaments/"+tour+"/player-tokens", arb, `{"players":["p001"]}`).body, &issued); err != nil || len(issued.Tokens) != 1 {
			t.Fatalf("personal link of p001 in %s: %v %+v", tour, err, issued)
		}
		if tour == "bo" {
			f.tokens["player"] = issued.Tokens[0].Token
		} else {
			f.tokens["player@other"] = issued.Tokens[0].Token
		}
	}
	return f
}

// send makes one request as principal p to tournament "bo". A request with
// a bad token is followed by a jump of the clock past the window of the
// failed-authentication limit, which the matrix is not about.
func (f *accessFixture) send(p, method, path string, body any, headers ...string) resp {
	f.s.t.Helper()
	if body == "" {
		body = nil
	}
	r := f.s.do(method, path, f.tokens[p], body, headers...)
	if p == "bad" {
		f.clk.Advance(authWindow + time.Second)
	}
	return r
}

// checkStatus asserts one response of the matrix: the status, and for a
// refusal (or the 412 that stands for "allowed") a problem with the right
// code and the log unchanged.
func checkStatus(t *testing.T, what string, r resp, want int, sizeBefore, sizeAfter uint64) {
	t.Helper()
	if r.status != want {
		t.Errorf("%s: status %d, want %d: %s", what, r.status, want, bytes.TrimSpace(r.body))
		return
	}
	if want < 400 {
		if ct := r.header.Get("Content-Type"); strings.HasPrefix(ct, "application/problem+json") {
			t.Errorf("%s: %d with a problem: %s", what, r.status, r.body)
		}
		return
	}
	codes := map[int]fault.Code{401: "unauthorized", 403: "forbidden", 412: "precondition_failed", 422: "rule_violation"}
	var p problem.Problem
	if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("%s: Content-Type %q, want application/problem+json", what, ct)
	} else if err := json.Unmarshal(r.body, &p); err != nil || p.Status != want || p.Code != codes[want] {
		t.Errorf("%s: problem %s, want status %d code %s", what, r.body, want, codes[want])
	}
	if sizeAfter != sizeBefore {
		t.Errorf("%s: refused, but the log went from %d to %d messages", what, sizeBefore, sizeAfter)
	}
}

// TestAuthorizationMatrix sends every command type and every route as every
// principal, to its own tournament and to another, and checks that exactly
// the allowed set gets through.
func TestAuthorizationMatrix(t *testing.T) {
	t.Parallel()
	f := newAccessFixture(t)
	s := f.s

	// The table covers exactly the command types the endpoint accepts.
	var listed []string
	for _, c := range commandAccess {
		listed = append(listed, c.typ)
	}
	if got, want := slices.Sorted(slices.Values(listed)), slices.Sorted(slices.Values(commands.Types())); !slices.Equal(got, want) {
		t.Fatalf("command table lists %v, the endpoint accepts %v", got, want)
	}

	checked := 0
	for _, c := range commandAccess {
		for _, p := range principals {
			role, other := strings.CutSuffix(p, "@other")
			want := 412 // allowed
			switch {
			case role == "none" || role == "bad":
				want = 401
			case role == "admin":
			case other:
				want = 403
			case role == "arbiter" && !c.arbiter, role == "appeals" && !c.appeals, role == "player" && !c.player, role == "auditor":
				want = 403
			}
			before := s.logSize()
			var body map[string]any
			if err := json.Unmarshal([]byte(c.payload), &body); err != nil {
				t.Fatalf("%s payload: %v", c.typ, err)
			}
			body["type"] = c.typ
			r := f.send(p, "POST", "/v1/tournaments/bo/commands", body, staleIfMatch...)
			checkStatus(t, c.typ+" as "+p, r, want, before, s.logSize())
			checked++
		}
	}
	commandChecks := checked

	for _, rt := range routeAccess {
		// A stream lasts its max_seconds: every principal's runs at once.
		var streams sync.WaitGroup
		for _, p := range principals {
			path := strings.ReplaceAll(rt.path, "{t}", "bo")
			if !strings.Contains(rt.path, "{t}") && strings.HasSuffix(p, "@other") {
				continue // no tournament addressed: "other" is the same principal again
			}
			want, ok := readAccess[rt.class][p]
			if !ok {
				t.Fatalf("no expectation for %s as %s", rt.path, p)
			}
			var headers []string
			if rt.method == "POST" {
				headers = staleIfMatch
			}
			check := func() {
				before := s.logSize()
				r := f.send(p, rt.method, path, rt.body, headers...)
				checkStatus(t, rt.method+" "+path+" as "+p, r, want, before, s.logSize())
			}
			checked++
			if strings.Contains(rt.path, "/stream") {
				streams.Go(check)
			} else {
				check()
			}
		}
		streams.Wait()
	}
	t.Logf("authorization matrix: %d command checks (%d types × %d principals), %d route checks (%d routes)",
		commandChecks, len(commandAccess), len(principals), checked-commandChecks, len(routeAccess))
}

// TestTokensAreNeverStoredOrEchoed: after officials are appointed and have
// acted, no bearer token is anywhere in the data directory (log, Pebble,
// keys; read raw with the node stopped), while their hashes are (so the
// search can find what is there). A wrong token is refused the same way
// whether it is nearly right or wholly wrong, and never echoed.
func TestTokensAreNeverStoredOrEchoed(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	arb := s.create("bo", "rtu")
	app := s.appoint("bo", "appeals")
	aud := s.appoint("bo", "auditor")
	s.must(201, "POST", "/v1/tournaments/bo/commands", arb, `{"type":"RegisterPlayer","player":"p1","name":"M"}`)
	s.must(200, "GET", "/v1/tournaments/bo/events", aud, nil)
	s.must(200, "GET", "/v1/me", app, nil)
	var issued struct {
		Tokens []struct{ Token string } `json:"tokens"`
	}
	json.Unmarshal(s.must(201, "POST", "/v1/tournaments/bo/player-tokens", arb, `{}`).body, &issued)
	player := issued.Tokens[0].Token
	s.must(200, "GET", "/v1/me", player, nil)

	// Nearly right (one character off at the end) and wholly wrong tokens
	// get the same answer: no oracle for how much of a guess was right.
	// (The hash lookup and the constant-time comparison with the
	// administrator's hash are in auth.go; timing is not asserted here.)
	near := arb[:len(arb)-1] + string("0123456789abcdef"[(strings.IndexByte("0123456789abcdef", arb[len(arb)-1])+1)%16])
	rNear := s.must(401, "GET", "/v1/me", near, nil)
	rFar := s.must(401, "GET", "/v1/me", "zz"+strings.Repeat("9", 62), nil)
	if !bytes.Equal(rNear.body, rFar.body) {
		t.Errorf("a nearly right token is refused differently:\n%s\n%s", rNear.body, rFar.body)
	}
	if bytes.Contains(rNear.body, []byte(near)) {
		t.Errorf("the refusal echoes the token: %s", rNear.body)
	}

	s.stop()
	secrets := map[string]string{"admin token": adminToken, "arbiter token": arb, "appeals token": app, "auditor token": aud,
		"player's token": player}
	hashes := map[string]string{"arbiter token hash": api.TokenHash(arb), "appeals token hash": api.TokenHash(app), "auditor token hash": api.TokenHash(aud),
		"player's token hash": api.TokenHash(player)}
	found := map[string]bool{}
	files := 0
	err := filepath.WalkDir(s.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		for what, v := range secrets {
			if bytes.Contains(b, []byte(v)) {
				t.Errorf("%s stored in plain text in %s", what, path)
			}
		}
		for what, v := range hashes {
			if bytes.Contains(b, []byte(v)) {
				found[what] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for what := range hashes {
		if !found[what] {
			t.Errorf("%s found in none of the %d files: the search cannot see stored data", what, files)
		}
	}
	s.start()
	s.must(201, "POST", "/v1/tournaments/bo/commands", arb, `{"type":"RegisterPlayer","player":"p2","name":"N"}`)
}

// TestKeyFilesArePrivate: a data directory the node creates is 0700, and
// so is DATA/keys; the signing key and its public half are 0600.
// (DATA/keys/admin-token.sha256 is written by cmd/referto serve, not by
// the node: its mode is cmd/referto's to test.)
func TestKeyFilesArePrivate(t *testing.T) {
	s := &stack{t: t, dir: filepath.Join(t.TempDir(), "data")}
	s.start()
	t.Cleanup(s.stop)
	s.stop()
	for _, c := range []struct {
		path string
		mode fs.FileMode
	}{
		{"", 0o700 | fs.ModeDir},
		{"keys", 0o700 | fs.ModeDir},
		{"keys/checkpoint.key", 0o600},
		{"keys/checkpoint.pub", 0o600},
	} {
		fi, err := os.Stat(filepath.Join(s.dir, c.path))
		if err != nil {
			t.Error(err)
			continue
		}
		if got := fi.Mode() & (fs.ModePerm | fs.ModeDir); got != c.mode {
			t.Errorf("DATA/%s: mode %v, want %v", c.path, got, c.mode)
		}
	}
}

// serveAs sends one request straight to the node's handler as if from
// addr (a client the loopback listener cannot impersonate).
func serveAs(s *stack, addr, method, path, token string, body string, headers ...string) *httptest.ResponseRecorder {
	s.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.RemoteAddr = addr
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	s.api.Handler().ServeHTTP(rec, req)
	return rec
}

// TestFailedAuthenticationsAreRateLimited: ten unknown tokens from one
// address within a minute and that address is refused with 429 (its
// tokens not even looked at) until the minute has passed; successes do not
// count; other addresses are unaffected; the web UI's login counts against
// the browser's address.
func TestFailedAuthenticationsAreRateLimited(t *testing.T) {
	s, clk := newClockedStack(t, nil)
	arb := s.create("bo", "rtu")

	// Successes, however many, do not count.
	for range 2 * authLimit {
		s.must(200, "GET", "/v1/me", arb, nil)
	}
	for i := range authLimit {
		s.must(401, "GET", "/v1/me", fmt.Sprintf("guess-%d", i), nil)
		if i < authLimit-1 {
			s.must(200, "GET", "/v1/me", arb, nil) // still below the limit
		}
	}
	size := s.logSize()
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/v1/me", ""},
		{"GET", "/v1/tournaments/bo/events", ""},
		{"POST", "/v1/tournaments/bo/commands", `{"type":"RegisterPlayer","player":"p1","name":"M"}`},
	} {
		r := s.do(c.method, c.path, arb, nilIfEmpty(c.body))
		checkLimited(t, c.method+" "+c.path+" with the right token", r.status, r.header, r.body, "60")
	}
	r := s.do("GET", "/v1/me", "guess-again", nil)
	checkLimited(t, "another guess", r.status, r.header, r.body, "60")
	if s.logSize() != size {
		t.Error("a refused command changed the log")
	}
	// Requests without a token are not authentications: public reads go on.
	s.must(200, "GET", "/v1/tournaments/bo", "", nil)
	s.must(401, "GET", "/v1/me", "", nil)

	// Another address is unaffected, and so is another IPv6 /64; addresses
	// in one /64 share a count.
	if rec := serveAs(s, "192.0.2.7:4242", "GET", "/v1/me", arb, ""); rec.Code != 200 {
		t.Errorf("another address: %d %s", rec.Code, rec.Body)
	}
	for i := range authLimit {
		serveAs(s, fmt.Sprintf("[2001:db8:1:1::%x]:4242", i+1), "GET", "/v1/me", "guess", "")
	}
	if rec := serveAs(s, "[2001:db8:1:1:ffff::1]:4242", "GET", "/v1/me", arb, ""); rec.Code != 429 {
		t.Errorf("same IPv6 /64: %d, want 429", rec.Code)
	}
	if rec := serveAs(s, "[2001:db8:1:2::1]:4242", "GET", "/v1/me", arb, ""); rec.Code != 200 {
		t.Errorf("another IPv6 /64: %d %s", rec.Code, rec.Body)
	}
	// A request made in-process with no client address is never limited:
	// one shared count would let anyone lock everybody out.
	for range 2 * authLimit {
		if rec := serveAs(s, "in-process", "GET", "/v1/me", "guess", ""); rec.Code != 401 {
			t.Fatalf("in-process guess: %d, want 401", rec.Code)
		}
	}

	// The refusal lasts the window, counted from the failure that hit the
	// limit, and no longer.
	clk.Advance(authWindow - time.Second)
	r = s.do("GET", "/v1/me", arb, nil)
	checkLimited(t, "a second before the end", r.status, r.header, r.body, "1")
	clk.Advance(time.Second)
	s.must(200, "GET", "/v1/me", arb, nil)
	// The count starts again: one failure does not refuse.
	s.must(401, "GET", "/v1/me", "guess", nil)
	s.must(200, "GET", "/v1/me", arb, nil)

	// Failures spread wider than the window never add up to a refusal.
	clk.Advance(authWindow)
	for range 3 * authLimit {
		s.must(401, "GET", "/v1/me", "guess", nil)
		clk.Advance(authWindow / time.Duration(authLimit-2))
		s.must(200, "GET", "/v1/me", arb, nil)
	}

	// The web UI logs in through the API from the browser's address: ten
	// bad logins from this address, and the API refuses this address too,
	// while a browser elsewhere still logs in.
	clk.Advance(2 * authWindow)
	login := func(addr, token string) *httptest.ResponseRecorder {
		form := url.Values{"token": {token}}.Encode()
		return serveAs(s, addr, "POST", "/ui/login", "", form,
			"Content-Type", "application/x-www-form-urlencoded", "Origin", "http://example.com")
	}
	for i := range authLimit {
		if rec := login("198.51.100.4:5000", fmt.Sprintf("guess-%d", i)); rec.Code == http.StatusSeeOther {
			t.Fatalf("a bad token logged in: %d", rec.Code)
		}
	}
	if rec := login("198.51.100.4:5001", arb); rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" {
		t.Errorf("UI login from an address over the limit: %d, Retry-After %q; want 429 and when to retry", rec.Code, rec.Header().Get("Retry-After"))
	}
	if rec := serveAs(s, "198.51.100.4:5002", "GET", "/v1/me", arb, ""); rec.Code != 429 {
		t.Errorf("API from the browser's address after ten bad UI logins: %d, want 429", rec.Code)
	}
	if rec := login("198.51.100.5:5000", arb); rec.Code != http.StatusSeeOther {
		t.Errorf("UI login from another address: %d %s", rec.Code, rec.Body)
	}
}

// TestAFormsFailedAuthenticationsCountAgainstTheBrowser: a form's command
// goes to the command service with the browser's address, so ten forms
// sent with unknown tokens from one browser and that address is refused,
// by the forms and the API alike, its log untouched, while a browser
// elsewhere records the same form.
func TestAFormsFailedAuthenticationsCountAgainstTheBrowser(t *testing.T) {
	s := newStack(t)
	arb := s.create("fo", "rtu")
	form := func(addr, token, key string) *httptest.ResponseRecorder {
		body := url.Values{"_action": {"register"}, "_key": {key}, "player": {"p1"}, "name": {"Uno"}}.Encode()
		return serveAs(s, addr, "POST", "/ui/t/fo/players", "", body, "Content-Type", "application/x-www-form-urlencoded",
			"Origin", "http://example.com", "Cookie", "referto_token="+token)
	}
	// A refused form's page reads the tournament with the same token: a
	// form may count more than once, never less.
	if rec := form("198.51.100.9:5000", "guess", "g"); rec.Code != http.StatusUnauthorized {
		t.Fatalf("a form with an unknown token: %d, want 401", rec.Code)
	}
	for i := 1; ; i++ {
		rec := form("198.51.100.9:5000", fmt.Sprintf("guess-%d", i), fmt.Sprintf("g%d", i))
		if rec.Code == http.StatusTooManyRequests {
			break
		}
		if rec.Code != http.StatusUnauthorized || i == authLimit {
			t.Fatalf("form %d with an unknown token: %d, want 401 and, by the %dth, 429", i+1, rec.Code, authLimit)
		}
	}
	size := s.logSize()
	if rec := form("198.51.100.9:5001", arb, "k1"); rec.Code != http.StatusTooManyRequests {
		t.Errorf("a form with the right token from a browser over the limit: %d, want 429", rec.Code)
	}
	if rec := serveAs(s, "198.51.100.9:5002", "GET", "/v1/me", arb, ""); rec.Code != http.StatusTooManyRequests {
		t.Errorf("API from the browser's address after ten refused forms: %d, want 429", rec.Code)
	}
	if got, want := s.logSize(), size; got != want {
		t.Errorf("the log is at %d after refused forms, want %d", got, want)
	}
	if rec := form("198.51.100.10:5000", arb, "k1"); rec.Code != http.StatusSeeOther {
		t.Errorf("the form from another browser: %d, want 303: %s", rec.Code, rec.Body)
	}
}

// TestRateLimiterMemoryIsBounded: the limiter tracks a bounded number of
// addresses, forgetting those that failed least recently; a flood of
// addresses makes it forget an old count rather than grow.
func TestRateLimiterMemoryIsBounded(t *testing.T) {
	s, _ := newClockedStack(t, nil)
	arb := s.create("bo", "rtu")
	const victim = "203.0.113.9:1"
	for range authLimit - 1 {
		serveAs(s, victim, "GET", "/v1/me", "guess", "")
	}
	// More distinct addresses than the limiter tracks (4096) fail once each.
	for i := range 4100 {
		serveAs(s, fmt.Sprintf("10.%d.%d.%d:1", i>>16, (i>>8)&255, i&255), "GET", "/v1/me", "guess", "")
	}
	// The victim's nine failures were forgotten: a tenth does not refuse.
	serveAs(s, victim, "GET", "/v1/me", "guess", "")
	if rec := serveAs(s, victim, "GET", "/v1/me", arb, ""); rec.Code != 200 {
		t.Errorf("after the flood: %d, want 200 (the oldest count evicted)", rec.Code)
	}
	// Without the flood the tenth failure refuses: the test above can fail.
	const other = "203.0.113.10:1"
	for range authLimit {
		serveAs(s, other, "GET", "/v1/me", "guess", "")
	}
	if rec := serveAs(s, other, "GET", "/v1/me", arb, ""); rec.Code != 429 {
		t.Errorf("ten failures: %d, want 429", rec.Code)
	}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// checkLimited asserts a 429 problem with its Retry-After.
func checkLimited(t *testing.T, what string, status int, h http.Header, body []byte, retryAfter string) {
	t.Helper()
	var p problem.Problem
	switch {
	case status != http.StatusTooManyRequests:
		t.Errorf("%s: status %d, want 429: %s", what, status, body)
	case h.Get("Content-Type") != "application/problem+json":
		t.Errorf("%s: Content-Type %q", what, h.Get("Content-Type"))
	case json.Unmarshal(body, &p) != nil || p.Status != 429 || p.Code != "too_many_requests" || p.Detail == "":
		t.Errorf("%s: problem %s", what, body)
	case h.Get("Retry-After") != retryAfter:
		t.Errorf("%s: Retry-After %q, want %q", what, h.Get("Retry-After"), retryAfter)
	}
}

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestNoSecretInTheLogs runs a node logging everything (JSON, debug level)
// through appointments, commands, refusals of every kind, bad tokens, UI
// logins, an export and a restart, and checks that no token and no part of
// the signing key reaches the log.
func TestNoSecretInTheLogs(t *testing.T) {
	var out syncBuffer
	logger := slog.New(slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s, clk := newClockedStack(t, logger)
	// Rulings left to the appeals committee: an arbiter's ruling is a
	// refusal of its own kind (403 decided against the ruleset).
	s.must(201, "POST", "/v1/tournaments", adminToken, map[string]any{"id": "bo", "name": "Torneo bo", "ruleset": "master",
		"params": map[string]any{"rulings": "appeals"}})
	arb := s.appoint("bo", "arbiter")
	app := s.appoint("bo", "appeals")
	aud := s.appoint("bo", "auditor")
	cmds := "/v1/tournaments/bo/commands"
	for i := 1; i <= 4; i++ {
		s.must(201, "POST", cmds, arb, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%d","name":"P %d"}`, i, i))
	}
	s.must(409, "POST", cmds, arb, `{"type":"RegisterPlayer","player":"p1","name":"Again"}`)
	s.must(400, "POST", cmds, arb, `{"type":"RegisterPlayer","player":"p5"}`)
	s.must(422, "POST", cmds, arb, `{"type":"DrawTables","round":1}`)
	s.must(403, "POST", cmds, aud, `{"type":"CloseRegistration"}`)
	s.must(412, "POST", cmds, app, `{"type":"FileContestation","against":1,"claim":"x"}`, staleIfMatch...)
	s.must(201, "POST", cmds, app, `{"type":"FileContestation","against":5,"claim":"wrong name"}`)
	s.must(403, "POST", cmds, arb, `{"type":"RuleContestation","contestation":"c1","upheld":false,"ruling":"no"}`)
	s.must(403, "GET", "/v1/tournaments/nope/events", aud, nil)
	s.must(404, "GET", "/v1/tournaments/nope/events", adminToken, nil)
	s.must(200, "GET", "/v1/tournaments/bo/export", aud, nil)
	s.must(200, "GET", "/v1/me", app, nil)
	for i := range authLimit + 2 {
		s.do("GET", "/v1/me", fmt.Sprintf("%s-%d", arb, i), nil) // 401, then 429
	}
	for _, tok := range []string{arb, "wrong-" + app} {
		serveAs(s, "198.51.100.4:5000", "POST", "/ui/login", "", url.Values{"token": {tok}}.Encode(),
			"Content-Type", "application/x-www-form-urlencoded", "Origin", "http://example.com")
	}
	// A player's personal link: issued, shown to the arbiter, used for the
	// API and opened in the web UI (its token in the query of /ui/join).
	clk.Advance(2 * authWindow)
	var issued struct {
		Tokens []struct{ Player, Token, Link string } `json:"tokens"`
	}
	json.Unmarshal(s.must(201, "POST", "/v1/tournaments/bo/player-tokens", arb, `{"players":["p1"]}`).body, &issued)
	if len(issued.Tokens) != 1 {
		t.Fatal("no personal link issued")
	}
	player := issued.Tokens[0].Token
	s.must(200, "GET", "/v1/tournaments/bo/player-tokens", arb, nil)
	s.must(200, "GET", "/v1/me", player, nil)
	s.must(403, "POST", cmds, player, `{"type":"CloseRegistration"}`)
	if rec := serveAs(s, "198.51.100.9:5000", "GET", issued.Tokens[0].Link, "", ""); rec.Code != http.StatusSeeOther {
		t.Errorf("opening the personal link: %d", rec.Code)
	}
	serveAs(s, "198.51.100.9:5000", "GET", "/ui/join?k="+player+"0", "", "")
	clk.Advance(2 * authWindow)
	s.restart()
	s.must(201, "POST", cmds, arb, `{"type":"CloseRegistration"}`)
	s.stop()

	key, err := os.ReadFile(filepath.Join(s.dir, "keys", "checkpoint.key"))
	if err != nil {
		t.Fatal(err)
	}
	// PRIVATE+KEY+<name>+<hash>+<base64 key>: the key material is the last
	// part, which may hold a "+" of its own.
	parts := strings.SplitN(strings.TrimSpace(string(key)), "+", 5)
	logs := out.String()
	if logs == "" {
		t.Fatal("the node logged nothing at debug level: the test would prove nothing")
	}
	for what, v := range map[string]string{"admin token": adminToken, "arbiter token": arb, "appeals token": app,
		"auditor token": aud, "player's token": player, "player's token secret": player[strings.IndexByte(player, '.')+1:],
		"signing key": strings.TrimSpace(string(key)), "signing key material": parts[len(parts)-1]} {
		if strings.Contains(logs, v) {
			t.Errorf("the %s is in the log", what)
		}
	}
	t.Logf("%d bytes, %d lines of log checked", len(logs), strings.Count(logs, "\n"))
}
