package api_test

import (
	"fmt"
	"slices"
	"testing"
)

// TestReadsForTheWebUI: who a token is, the resolved presets, and the whole
// tournament as it stands and as it stood after an earlier event.
func TestReadsForTheWebUI(t *testing.T) {
	s := newStack(t)
	arb := s.create("ui", "rur-2015")
	for i := range 3 {
		s.must(201, "POST", "/v1/tournaments/ui/commands", arb, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%d","name":"P %d"}`, i, i))
	}
	me := s.must(200, "GET", "/v1/me", arb, nil).json(t)
	if me["role"] != "arbiter" || me["tournament"] != "ui" || me["name"] != "Official" {
		t.Errorf("/v1/me = %v", me)
	}
	cmds, _ := me["commands"].([]any)
	if !slices.Contains(cmds, any("RuleContestation")) {
		t.Error("an arbiter of a rur-2015 tournament is not told it may rule contestations (rur-2015 art. 9)")
	}
	s.must(401, "GET", "/v1/me", "nope", nil)

	rs := s.must(200, "GET", "/v1/rulesets", "", nil).json(t)["rulesets"].([]any)
	if len(rs) != 5 || rs[0].(map[string]any)["scoring"] == nil {
		t.Errorf("rulesets: %v", rs)
	}

	now := s.must(200, "GET", "/v1/tournaments/ui/state", "", nil).json(t)
	if n := len(now["players"].([]any)); n != 3 {
		t.Errorf("state now has %d players", n)
	}
	// Events 1 and 2 create the tournament and appoint the arbiter: after
	// event 3 one player was registered.
	then := s.must(200, "GET", "/v1/tournaments/ui/state?at=3", "", nil).json(t)
	if n := len(then["players"].([]any)); n != 1 {
		t.Errorf("state at event 3 has %d players, want 1", n)
	}
	s.must(400, "GET", "/v1/tournaments/ui/state?at=99", "", nil)
	s.must(400, "GET", "/v1/tournaments/ui/state?at=x", "", nil)
	s.must(404, "GET", "/v1/tournaments/nope/state", "", nil)
}
