package api_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// sample is one line of the Prometheus text format.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

type samples []sample

// scrape reads /metrics and parses it: name{label="value",…} value.
func (s *stack) scrape() samples {
	s.t.Helper()
	r := s.must(200, "GET", "/metrics", "", nil)
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		s.t.Fatalf("/metrics Content-Type = %q, want the text format", ct)
	}
	var out samples
	for line := range strings.SplitSeq(string(r.body), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		sp := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[sp+1:], 64)
		if err != nil {
			s.t.Fatalf("/metrics: bad line %q", line)
		}
		sm := sample{name: line[:sp], labels: map[string]string{}, value: v}
		if i := strings.IndexByte(sm.name, '{'); i >= 0 {
			for pair := range strings.SplitSeq(strings.TrimSuffix(sm.name[i+1:], "}"), ",") {
				k, v, _ := strings.Cut(pair, "=")
				sm.labels[k] = strings.Trim(v, `"`)
			}
			sm.name = sm.name[:i]
		}
		out = append(out, sm)
	}
	return out
}

// get sums the samples of a metric whose labels include the given name,
// value pairs.
func (ss samples) get(name string, labels ...string) float64 {
	var sum float64
next:
	for _, sm := range ss {
		if sm.name != name {
			continue
		}
		for i := 0; i+1 < len(labels); i += 2 {
			if sm.labels[labels[i]] != labels[i+1] {
				continue next
			}
		}
		sum += sm.value
	}
	return sum
}

func (ss samples) has(name string) bool {
	for _, sm := range ss {
		if sm.name == name {
			return true
		}
	}
	return false
}

// TestMetrics scrapes /metrics around commands that are accepted, replayed
// and refused for each reason, and checks that every count moved by what
// was sent and no label carries a raw path.
func TestMetrics(t *testing.T) {
	s := newStack(t)
	arb := s.create("mx", "rtu")
	cmds := "/v1/tournaments/mx/commands"
	before := s.scrape()

	s.must(201, "POST", cmds, arb, `{"type":"RegisterPlayer","player":"p1","name":"Uno"}`, "Idempotency-Key", "k1")
	s.must(201, "POST", cmds, arb, `{"type":"RegisterPlayer","player":"p1","name":"Uno"}`, "Idempotency-Key", "k1")
	s.must(409, "POST", cmds, arb, `{"type":"RegisterPlayer","player":"p1","name":"Again"}`)
	s.must(400, "POST", cmds, arb, `{"type":"RegisterPlayer","player":"p2"}`)
	s.must(422, "POST", cmds, arb, `{"type":"DrawTables","round":1}`)
	s.must(401, "POST", cmds, "not-a-token", `{"type":"RegisterPlayer","player":"p3","name":"Tre"}`)
	s.must(400, "POST", cmds, arb, `{"type":"Teleport"}`)
	s.must(404, "GET", "/v1/tournaments/mx/no-such-thing", "", nil)
	after := s.scrape()

	delta := func(name string, labels ...string) float64 {
		return after.get(name, labels...) - before.get(name, labels...)
	}
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"referto_commands_total", []string{"type", "RegisterPlayer", "outcome", "accepted"}, 1},
		{"referto_commands_total", []string{"type", "RegisterPlayer", "outcome", "replayed"}, 1},
		{"referto_commands_total", []string{"type", "RegisterPlayer", "outcome", "conflict"}, 1},
		{"referto_commands_total", []string{"type", "RegisterPlayer", "outcome", "invalid"}, 1},
		{"referto_commands_total", []string{"type", "DrawTables", "outcome", "rule_violation"}, 1},
		{"referto_commands_total", []string{"type", "unknown", "outcome", "unauthorized"}, 1},
		{"referto_commands_total", []string{"type", "unknown", "outcome", "invalid"}, 1},
		{"referto_commands_total", nil, 7},
		{"referto_command_duration_seconds_count", []string{"type", "RegisterPlayer", "outcome", "accepted"}, 1},
		{"referto_command_duration_seconds_count", nil, 7},
		// Only the accepted command reached JetStream: the replay was
		// found in the command index, the refusals were decided before.
		{"referto_jetstream_append_duration_seconds_count", []string{"result", "stored"}, 1},
		{"referto_jetstream_append_duration_seconds_count", nil, 1},
		// The accepted command's split, told as its tournament was
		// unlocked at the acknowledgement, before it was answered.
		{"referto_command_phase_seconds_count", []string{"phase", "lock_wait"}, 1},
		{"referto_command_phase_seconds_count", []string{"phase", "decide"}, 1},
		{"referto_command_phase_seconds_count", []string{"phase", "append"}, 1},
		{"referto_command_phase_seconds_count", []string{"phase", "ack_to_unlock"}, 1},
		{"referto_projection_applied_total", nil, 1},
		{"referto_projection_applied_events_total", nil, 1},
		{"referto_merkle_append_seconds_count", nil, 1},
		{"referto_conflict_retries_total", nil, 0},
		{"referto_http_requests_total", []string{"route", "/v1/tournaments/{t}/commands", "method", "POST", "status", "201"}, 2},
		{"referto_http_requests_total", []string{"route", "/v1/tournaments/{t}/commands", "method", "POST", "status", "400"}, 2},
		{"referto_http_requests_total", []string{"route", "/v1/tournaments/{t}/commands", "method", "POST"}, 7},
		{"referto_http_requests_total", []string{"route", "unmatched", "method", "GET", "status", "404"}, 1},
		// The scrape before this one is counted once it has been answered.
		{"referto_http_requests_total", []string{"route", "/metrics", "method", "GET", "status", "200"}, 1},
		{"referto_http_request_duration_seconds_count", []string{"route", "/v1/tournaments/{t}/commands", "method", "POST"}, 7},
	} {
		if got := delta(c.name, c.labels...); got != c.want {
			t.Errorf("%s%q moved by %v, want %v", c.name, c.labels, got, c.want)
		}
	}

	// Since the node started: create, appoint, register.
	for name, want := range map[string]float64{"referto_projection_applied_total": 3, "referto_projection_applied_seq": 3,
		"referto_stream_last_seq": 3, "referto_projection_lag": 0, "referto_merkle_append_seconds_count": 3} {
		if got := after.get(name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total", "referto_conflict_retries_total", "referto_projection_compacting_bytes"} {
		if !after.has(name) {
			t.Errorf("%s is not exported", name)
		}
	}
	for _, sm := range after {
		if r, ok := sm.labels["route"]; ok && (strings.Contains(r, "mx") || strings.Contains(r, "no-such-thing")) {
			t.Errorf("%s has a raw path as its route: %v", sm.name, sm.labels)
		}
	}
}

// TestConflictRetriesAreCounted races two nodes sharing one log on one
// tournament until some append loses to the other node: each loss is an
// append counted as a conflict and a command decided again.
func TestConflictRetriesAreCounted(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS server and two nodes")
	}
	nodes := startTwoNodes(t)
	arb := nodes[0].create("cx", "rtu")
	const perNode = 4
	conflicts := func() (appends, retries float64) {
		for _, n := range nodes {
			m := n.scrape()
			appends += m.get("referto_jetstream_append_duration_seconds_count", "result", "conflict")
			retries += m.get("referto_conflict_retries_total")
		}
		return appends, retries
	}
	player := 0
	for round := 0; round < 50; round++ {
		var wg sync.WaitGroup
		for _, n := range nodes {
			for range perNode {
				player++
				body := fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%d","name":"P"}`, player)
				wg.Go(func() {
					if r := n.do("POST", "/v1/tournaments/cx/commands", arb, body); r.status != http.StatusCreated {
						t.Errorf("%s: %d %s", body, r.status, r.body)
					}
				})
			}
		}
		wg.Wait()
		if a, _ := conflicts(); a > 0 {
			break
		}
	}
	appends, retries := conflicts()
	if appends == 0 {
		t.Skipf("no append lost a race in %d commands: nothing to check", player)
	}
	if retries != appends {
		t.Errorf("%v conflict retries counted for %v appends that lost a race", retries, appends)
	}
	t.Logf("%v of %d commands were decided again", retries, player)
}

// postForm posts a web form as a browser on the server's own origin does,
// with the official's session cookie, and returns the status and Location.
func (s *stack) postForm(path, token string, form url.Values) (int, string) {
	s.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", s.srv.URL)
	req.AddCookie(&http.Cookie{Name: "referto_token", Value: token})
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	return res.StatusCode, res.Header.Get("Location")
}

// TestMetricsCountTheWebFormsCommands: a command sent by a web form is
// counted as the same command sent to the JSON API is, by its type and
// outcome (accepted, replayed when the form is sent again, the problem
// code when refused), and so are the other forms that record: a
// tournament created, an official appointed, personal links issued.
func TestMetricsCountTheWebFormsCommands(t *testing.T) {
	s := newStack(t)
	arb := s.create("wf", "rtu")
	auditor := s.appoint("wf", "auditor")
	before := s.scrape()

	register := url.Values{"_action": {"register"}, "_key": {"k1"}, "player": {"p1"}, "name": {"Uno"}}
	for range 2 {
		if code, loc := s.postForm("/ui/t/wf/players", arb, register); code != http.StatusSeeOther {
			t.Fatalf("registration form: %d %s", code, loc)
		}
	}
	if code, _ := s.postForm("/ui/t/wf/players", auditor, url.Values{"_action": {"register"}, "player": {"p2"}, "name": {"Due"}}); code != http.StatusForbidden {
		t.Errorf("an auditor's registration form: %d, want 403", code)
	}
	if code, _ := s.postForm("/ui/t/wf/players", arb, url.Values{"_action": {"register"}, "player": {"p3"}}); code != http.StatusBadRequest {
		t.Errorf("a registration form with no name: %d, want 400", code)
	}
	if code, loc := s.postForm("/ui/", adminToken, url.Values{"id": {"wf2"}, "name": {"Secondo"}, "ruleset": {"rtu"}}); code != http.StatusSeeOther {
		t.Errorf("creation form: %d %s", code, loc)
	}
	if code, loc := s.postForm("/ui/t/wf/", adminToken, url.Values{"_action": {"appoint"}, "name": {"Carla"}, "role": {"arbiter"}}); code != http.StatusOK && code != http.StatusSeeOther {
		t.Errorf("appointment form: %d %s", code, loc)
	}
	if code, loc := s.postForm("/ui/t/wf/links", arb, url.Values{"_action": {"issue"}}); code != http.StatusSeeOther {
		t.Errorf("links form: %d %s", code, loc)
	}
	after := s.scrape()

	for _, c := range []struct {
		labels []string
		want   float64
	}{
		{[]string{"type", "RegisterPlayer", "outcome", "accepted"}, 1},
		{[]string{"type", "RegisterPlayer", "outcome", "replayed"}, 1},
		// Refused before its body was read, as through the API.
		{[]string{"type", "unknown", "outcome", "forbidden"}, 1},
		{[]string{"type", "RegisterPlayer", "outcome", "invalid"}, 1},
		{[]string{"type", "CreateTournament", "outcome", "accepted"}, 1},
		{[]string{"type", "AppointOfficial", "outcome", "accepted"}, 1},
		{[]string{"type", "IssuePlayerTokens", "outcome", "accepted"}, 1},
		{nil, 7},
	} {
		if got := after.get("referto_commands_total", c.labels...) - before.get("referto_commands_total", c.labels...); got != c.want {
			t.Errorf("referto_commands_total%q moved by %v, want %v", c.labels, got, c.want)
		}
	}
	if got := after.get("referto_command_duration_seconds_count") - before.get("referto_command_duration_seconds_count"); got != 7 {
		t.Errorf("referto_command_duration_seconds_count moved by %v, want 7", got)
	}
}
