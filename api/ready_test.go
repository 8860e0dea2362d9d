package api_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/referto/referto/api/node"
	"github.com/referto/referto/commands/ledger"
)

// TestReadyzReportsWhatMakesTheNodeReady: a node is ready with its NATS
// connection up, its stream readable and its projections caught up; a
// disk below the reserve is reported (commands are refused) without making
// it unready; a lost NATS connection makes it unready, with 503 and why.
func TestReadyzReportsWhatMakesTheNodeReady(t *testing.T) {
	s := &stack{t: t, dir: t.TempDir()}
	var free atomic.Uint64 // read by the server's goroutines
	free.Store(1 << 30)
	s.opts.Disk = func() (ledger.DiskState, error) { return ledger.DiskState{Free: free.Load()}, nil }
	s.start()
	t.Cleanup(s.stop)
	arb := s.create("rd", "rtu")
	s.must(201, "POST", "/v1/tournaments/rd/commands", arb, `{"type":"RegisterPlayer","player":"p1","name":"Uno"}`)
	// A 201 is answered once the log has the command; the projections
	// apply it just after (readyz reports the lag as it is).
	if err := s.node.Runner.WaitFor(context.Background(), uint64(s.logSize())); err != nil {
		t.Fatal(err)
	}

	r := s.must(200, "GET", "/readyz", "", nil).json(t)
	want := map[string]any{
		"ready": true,
		"nats":  map[string]any{"connected": true, "status": "CONNECTED"},
		"stream": map[string]any{"name": "REFERTO", "exists": true, "replicas": float64(1),
			"last_seq": float64(s.logSize())},
		"projections": map[string]any{"ready": true, "applied": float64(s.logSize()), "lag": float64(0)},
		"disk": map[string]any{"free": float64(free.Load()), "reserve": float64(node.DefaultDiskReserve),
			"read_only": false, "accepting_commands": true},
	}
	for k, v := range want {
		if !equalJSON(r[k], v) {
			t.Errorf("readyz %s = %v, want %v", k, r[k], v)
		}
	}
	if _, ok := r["not_ready"]; ok {
		t.Errorf("a ready node says why it is not: %v", r["not_ready"])
	}

	// A full disk refuses commands, and readyz says so, but reads work.
	free.Store(node.DefaultDiskReserve - 1)
	s.must(503, "POST", "/v1/tournaments/rd/commands", arb, `{"type":"RegisterPlayer","player":"p2","name":"Due"}`)
	r = s.must(200, "GET", "/readyz", "", nil).json(t)
	if d := r["disk"].(map[string]any); d["accepting_commands"] != false || d["free"] != float64(free.Load()) {
		t.Errorf("readyz disk = %v, want commands refused", d)
	}

	// Without NATS the node can neither append nor follow the log.
	s.node.Conn.Close()
	res := s.must(503, "GET", "/readyz", "", nil)
	r = res.json(t)
	if r["ready"] != false {
		t.Errorf("readyz ready = %v without NATS", r["ready"])
	}
	if n := r["nats"].(map[string]any); n["connected"] != false || n["status"] != "CLOSED" {
		t.Errorf("readyz nats = %v, want closed", n)
	}
	if st := r["stream"].(map[string]any); st["exists"] != false || st["error"] == nil {
		t.Errorf("readyz stream = %v, want it unreadable, with the error", st)
	}
	reasons, _ := r["not_ready"].([]any)
	if len(reasons) == 0 || !strings.HasPrefix(reasons[0].(string), "nats: ") {
		t.Errorf("readyz not_ready = %v, want the NATS connection first", r["not_ready"])
	}
	s.must(200, "GET", "/healthz", "", nil) // no I/O: still alive
}

// equalJSON compares decoded JSON values; maps need only hold want's keys.
func equalJSON(got, want any) bool {
	wm, ok := want.(map[string]any)
	if !ok {
		return got == want
	}
	gm, ok := got.(map[string]any)
	if !ok {
		return false
	}
	for k, v := range wm {
		if !equalJSON(gm[k], v) {
			return false
		}
	}
	return true
}
