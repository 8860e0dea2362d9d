package api_test

import (
	"encoding/json"
	"log/slog"
	"regexp"
	"strings"
	"testing"
)

// logLines decodes a JSON log, one object per line.
func logLines(t *testing.T, log string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(log), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		out = append(out, m)
	}
	return out
}

// TestRequestLogLine checks the line one command request leaves in the
// log: its id (the client's, returned on the response), the route template,
// method, status, latency, tournament and the official who sent it, and no
// token anywhere.
func TestRequestLogLine(t *testing.T) {
	var out syncBuffer
	s, _ := newClockedStack(t, slog.New(slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: slog.LevelInfo})))
	arb := s.create("lg", "rtu")
	official := s.must(200, "GET", "/v1/me", arb, nil).json(t)["official"]

	r := s.must(201, "POST", "/v1/tournaments/lg/commands?token="+arb, arb, `{"type":"RegisterPlayer","player":"p1","name":"Uno"}`,
		"X-Request-Id", "client-req.42")
	if got := r.header.Get("X-Request-Id"); got != "client-req.42" {
		t.Errorf("X-Request-Id = %q, want the client's", got)
	}
	var line map[string]any
	for _, m := range logLines(t, out.String()) {
		if m["request_id"] == "client-req.42" {
			if line != nil {
				t.Errorf("two lines for one request: %v and %v", line, m)
			}
			line = m
		}
	}
	if line == nil {
		t.Fatalf("no log line for the request:\n%s", out.String())
	}
	for k, want := range map[string]any{"msg": "http request", "level": "INFO", "method": "POST",
		"route": "/v1/tournaments/{t}/commands", "status": float64(201), "tournament": "lg", "actor": official} {
		if line[k] != want {
			t.Errorf("log line %s = %v, want %v", k, line[k], want)
		}
	}
	if got, want := line["time"], "2026-03-14T09:00:00Z"; got != want {
		t.Errorf("log line time = %v, want the server clock's %v", got, want)
	}
	if l, ok := line["latency_ms"].(float64); !ok || l <= 0 {
		t.Errorf("log line latency_ms = %v, want a positive number", line["latency_ms"])
	}
	if official == nil || official == "" {
		t.Errorf("GET /v1/me gave no official id")
	}

	// Without an id, or with a malformed one, the server makes one up.
	hexID := regexp.MustCompile(`^[0-9a-f]{16}$`)
	for _, sent := range []string{"", "has space", strings.Repeat("x", 65), `quote"d`} {
		var h []string
		if sent != "" {
			h = []string{"X-Request-Id", sent}
		}
		r := s.must(404, "GET", "/v1/tournaments/nope", "", nil, h...)
		if id := r.header.Get("X-Request-Id"); !hexID.MatchString(id) {
			t.Errorf("sent X-Request-Id %q, got %q, want 16 hex digits", sent, id)
		}
	}
	// Probes are logged at debug level only.
	s.must(200, "GET", "/healthz", "", nil, "X-Request-Id", "probe-1")

	logs := out.String()
	if strings.Contains(logs, arb) || strings.Contains(logs, adminToken) {
		t.Error("a token is in the log")
	}
	if strings.Contains(logs, "probe-1") {
		t.Error("a /healthz request was logged at info level")
	}
	if strings.Contains(logs, "has space") || strings.Contains(logs, "xxxxxxxx") {
		t.Error("a malformed request id reached the log")
	}
}
