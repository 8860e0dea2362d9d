package api_test

import (
	"net/http"
	"net/url"
	"testing"
)

// TestAHubRefusesTheForms: a hub takes no command, from its API nor from
// its pages' forms, which reach the command services without going
// through the routes a hub refuses: the creation form is refused as the
// API refuses the creation, and the log is untouched.
func TestAHubRefusesTheForms(t *testing.T) {
	h := &stack{t: t, dir: t.TempDir(), hub: &fakeHub{registered: map[string]string{}}}
	h.start()
	t.Cleanup(h.stop)
	size := h.logSize()
	h.must(http.StatusMethodNotAllowed, "POST", "/v1/tournaments", adminToken, `{"id":"x","name":"X","ruleset":"rtu"}`)
	if code, loc := h.postForm("/ui/", adminToken, url.Values{"id": {"x"}, "name": {"X"}, "ruleset": {"rtu"}}); code != http.StatusMethodNotAllowed {
		t.Errorf("the creation form at a hub: %d %s, want 405", code, loc)
	}
	if code, loc := h.postForm("/ui/t/x/players", adminToken, url.Values{"_action": {"register"}, "player": {"p1"}, "name": {"Uno"}}); code < 400 {
		t.Errorf("a registration form at a hub: %d %s, want a refusal", code, loc)
	}
	if got, want := h.logSize(), size; got != want {
		t.Errorf("the hub's log is at %d after refused forms, want %d", got, want)
	}
}
