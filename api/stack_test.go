package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/referto/referto/api"
	"github.com/referto/referto/api/hub/registry"
	"github.com/referto/referto/api/node"
)

const adminToken = "admin-secret"

// stack is a whole referto node (embedded NATS, Pebble, runner, ledger)
// and its API behind an httptest server on loopback.
type stack struct {
	t    testing.TB
	opts node.NodeOptions
	dir  string
	node *node.Node
	api  *api.Server
	srv  *httptest.Server
	// spec records what do sent and got, validated against the OpenAPI
	// document when the test ends (openapi_test.go).
	spec exchanges
	// hub, when set, makes the API a national hub's.
	hub api.Hub
	// apiOptions, when set, changes the API's options before it starts.
	apiOptions func(*api.Options)
}

func newStack(t testing.TB) *stack {
	t.Helper()
	s := &stack{t: t, dir: t.TempDir()}
	s.start()
	t.Cleanup(s.stop)
	return s
}

func (s *stack) start() {
	s.t.Helper()
	o := s.opts
	o.Data = s.dir
	if o.Logger == nil {
		// Server warnings and errors land in the test's output: a 500 in
		// a failing test then says why.
		o.Logger = slog.New(slog.NewTextHandler(testLog{s.t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	metrics := api.NewMetrics()
	if o.Observer == nil {
		o.Observer = metrics
	}
	n, err := node.StartNode(context.Background(), o)
	if err != nil {
		s.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := n.Runner.WaitReady(ctx); err != nil {
		n.Close()
		s.t.Fatal(err)
	}
	opts := api.Options{Node: n, AdminTokenSHA256: api.TokenHash(adminToken), Clock: o.Clock, Random: o.Random,
		Logger: o.Logger, Metrics: metrics, Hub: s.hub}
	if s.hub != nil {
		// A hub keeps its season registry beside the venues' logs.
		reg, err := registry.Open(ctx, registry.Options{Conn: n.Conn, Keys: n.Keys,
			Roster: registry.NewRoster(n.Store, n.Runner), Clock: o.Clock, Logger: o.Logger})
		if err != nil {
			n.Close()
			s.t.Fatal(err)
		}
		opts.Registry = reg
	}
	if s.apiOptions != nil {
		s.apiOptions(&opts)
	}
	a, err := api.New(opts)
	if err != nil {
		n.Close()
		s.t.Fatal(err)
	}
	s.node, s.api, s.srv = n, a, httptest.NewServer(a.Handler())
}

// testLog writes a server's log lines to the test's log.
type testLog struct{ t testing.TB }

func (w testLog) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(b), "\n"))
	return len(b), nil
}

func (s *stack) stop() {
	if s.srv != nil {
		s.srv.Close()
		s.srv = nil
	}
	if s.node != nil {
		s.node.Close()
		s.node = nil
	}
}

// restart stops the node and starts a new one on the same data directory.
func (s *stack) restart() {
	s.stop()
	s.start()
}

type resp struct {
	status int
	header http.Header
	body   []byte
}

func (r resp) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("response is not a JSON object: %s", r.body)
	}
	return m
}

// do sends a request; body may be a string, []byte or a value to encode.
// headers are name, value pairs.
func (s *stack) do(method, path, token string, body any, headers ...string) resp {
	s.t.Helper()
	var payload []byte
	switch b := body.(type) {
	case nil:
	case string:
		payload = []byte(b)
	case []byte:
		payload = b
	default:
		payload, _ = json.Marshal(b)
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(payload)
	}
	req, _ := http.NewRequest(method, s.srv.URL+path, rd)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	r := resp{status: res.StatusCode, header: res.Header, body: b}
	s.record(req, payload, r)
	return r
}

// must asserts a status and returns the response.
func (s *stack) must(want int, method, path, token string, body any, headers ...string) resp {
	s.t.Helper()
	r := s.do(method, path, token, body, headers...)
	if r.status != want {
		s.t.Fatalf("%s %s: status %d, want %d: %s", method, path, r.status, want, r.body)
	}
	return r
}

// create makes tournament id under ruleset and returns an arbiter token.
func (s *stack) create(id, ruleset string) string {
	s.t.Helper()
	s.must(201, "POST", "/v1/tournaments", adminToken, map[string]any{"id": id, "name": "Torneo " + id, "ruleset": ruleset})
	return s.appoint(id, "arbiter")
}

func (s *stack) appoint(id, role string) string {
	s.t.Helper()
	r := s.must(201, "POST", "/v1/tournaments/"+id+"/officials", adminToken, map[string]any{"name": "Official", "role": role})
	return r.json(s.t)["token"].(string)
}

// logSize is the stream's last sequence: every refused request must leave it unchanged.
func (s *stack) logSize() uint64 {
	s.t.Helper()
	n, err := s.node.Log.LastSeq(context.Background())
	if err != nil {
		s.t.Fatal(err)
	}
	return n
}
