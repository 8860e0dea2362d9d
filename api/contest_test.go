package api_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/referto/referto/api/problem"
)

// TestContestationThroughTheAPI files a contestation against a recorded
// result and has it ruled in a tournament whose ruleset leaves rulings to
// the appeals committee (rulings: appeals): only the appeals committee
// rules, its ruling and the amended report land in one commit, and the
// standings follow. Once the next round is drawn, the same contestation is
// recorded as inadmissible.
func TestContestationThroughTheAPI(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	s.must(201, "POST", "/v1/tournaments", adminToken, map[string]any{"id": "bo", "name": "Torneo bo", "ruleset": "rur-2015",
		"params": map[string]any{"rulings": "appeals"}})
	arb := s.appoint("bo", "arbiter")
	app := s.appoint("bo", "appeals")
	aud := s.appoint("bo", "auditor")
	cmds := "/v1/tournaments/bo/commands"
	for i := 1; i <= 8; i++ {
		s.must(201, "POST", cmds, arb, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%d","name":"P %d"}`, i, i))
	}
	s.must(201, "POST", cmds, arb, `{"type":"CloseRegistration"}`)
	s.must(201, "POST", cmds, arb, `{"type":"DrawTables","round":1,"tables":[{"table":1,"players":["p1","p2","p3","p4"]},{"table":2,"players":["p5","p6","p7","p8"]}]}`)
	report := func(table int, players [4]string, points [4]int) string {
		var seats []map[string]any
		for i, p := range players {
			seats = append(seats, map[string]any{"player": p, "turn": i + 1, "table_points": points[i], "status": "finished"})
		}
		b, _ := json.Marshal(map[string]any{"type": "RecordResult", "round": 1, "table": table, "closed_by": "closing_roll", "players": seats})
		return string(b)
	}
	var res struct {
		Seq    uint64 `json:"seq"`
		Events []struct {
			Seq  uint64          `json:"seq"`
			Type string          `json:"type"`
			Data json.RawMessage `json:"data"`
		} `json:"events"`
	}
	json.Unmarshal(s.must(201, "POST", cmds, arb, report(1, [4]string{"p1", "p2", "p3", "p4"}, [4]int{62, 55, 40, 7})).body, &res)
	contested := res.Seq
	s.must(201, "POST", cmds, arb, report(2, [4]string{"p5", "p6", "p7", "p8"}, [4]int{30, 20, 10, 5}))
	before := s.standings("bo", "")

	// Filing: an arbiter may file for a player; the verdict on
	// admissibility is the ledger's, with its rule.
	json.Unmarshal(s.must(201, "POST", cmds, arb, fmt.Sprintf(`{"type":"FileContestation","against":%d,"claim":"p4 had 80, not 7","by":"p4"}`, contested)).body, &res)
	var filed struct {
		Contestation string `json:"contestation"`
		Admissible   bool   `json:"admissible"`
		Rule         string `json:"rule"`
	}
	if len(res.Events) != 1 || res.Events[0].Type != "ContestationFiled" || json.Unmarshal(res.Events[0].Data, &filed) != nil || !filed.Admissible || filed.Rule == "" {
		t.Fatalf("filing: %+v %+v", res, filed)
	}
	ruling := fmt.Sprintf(`{"type":"RuleContestation","contestation":%q,"upheld":true,"ruling":"the referto was misread","corrections":[%s]}`,
		filed.Contestation, report(1, [4]string{"p1", "p2", "p3", "p4"}, [4]int{40, 30, 14, 80}))
	s.expectProblems(t, []problemCase{
		{name: "ruling by an arbiter under rulings: appeals", method: "POST", path: cmds, token: arb, body: ruling, status: 403, code: "forbidden"},
		{name: "ruling by an auditor", method: "POST", path: cmds, token: aud, body: ruling, status: 403, code: "forbidden"},
		{name: "filing by an auditor", method: "POST", path: cmds, token: aud, body: `{"type":"FileContestation","against":1,"claim":"x"}`, status: 403, code: "forbidden"},
		{name: "filing against no event", method: "POST", path: cmds, token: arb, body: `{"type":"FileContestation","against":999,"claim":"x"}`, status: 400, code: "invalid", field: "against"},
		{name: "a correction that is no correction", method: "POST", path: cmds, token: app,
			body:   fmt.Sprintf(`{"type":"RuleContestation","contestation":%q,"upheld":true,"ruling":"r","corrections":[{"type":"DrawTables","round":1}]}`, filed.Contestation),
			status: 400, code: "invalid", field: "corrections[0].type"},
	})

	// The appeals committee upholds: ruling and amended report, one commit.
	json.Unmarshal(s.must(201, "POST", cmds, app, ruling).body, &res)
	if len(res.Events) != 2 || res.Events[0].Type != "ContestationRuled" || res.Events[1].Type != "ResultAmended" {
		t.Fatalf("ruling: %+v", res.Events)
	}
	after := s.standings("bo", "")
	total := func(v standingsView, p string) float64 {
		for _, r := range v.Rows {
			if r.Player == p {
				return r.Total
			}
		}
		t.Fatalf("%s not in the standings", p)
		return 0
	}
	if total(after, "p4") <= total(before, "p4") || total(after, "p1") >= total(before, "p1") {
		t.Errorf("standings did not follow the amended report: p4 %v → %v, p1 %v → %v", total(before, "p4"), total(after, "p4"), total(before, "p1"), total(after, "p1"))
	}
	// What was known then is still there.
	if then := s.standings("bo", fmt.Sprintf("?at=%d", contested+1)); total(then, "p4") != total(before, "p4") {
		t.Errorf("standings at %d changed after the ruling", contested+1)
	}
	// A ruling is final.
	s.must(409, "POST", cmds, app, ruling)

	// After the next round's draw the round-1 result is homologated: a
	// new contestation is recorded, and recorded as inadmissible.
	s.must(201, "POST", cmds, arb, `{"type":"DrawTables","round":2,"seed":"s"}`)
	json.Unmarshal(s.must(201, "POST", cmds, arb, fmt.Sprintf(`{"type":"FileContestation","against":%d,"claim":"p3 had 45"}`, contested)).body, &res)
	if json.Unmarshal(res.Events[0].Data, &filed) != nil || filed.Admissible {
		t.Errorf("a contestation after the next draw: %s", res.Events[0].Data)
	}
}

// TestWhoRulesOnAContestation: rur-2015 art. 9 gives the controversies to
// the arbiters ("giudica sulle controversie"), so by default an arbiter
// rules on a contestation as the appeals committee does (docs/rules.md#13-contestation);
// with rulings: appeals the arbiter gets 403 with a problem that says why,
// the log unchanged, and /v1/me stops offering him RuleContestation.
func TestWhoRulesOnAContestation(t *testing.T) {
	s := newStack(t)
	for _, c := range []struct {
		tour    string
		params  map[string]any
		arbiter bool
	}{
		{"preset", nil, true},
		{"appeals", map[string]any{"rulings": "appeals"}, false},
	} {
		body := map[string]any{"id": c.tour, "name": "Torneo " + c.tour, "ruleset": "rur-2015"}
		if c.params != nil {
			body["params"] = c.params
		}
		s.must(201, "POST", "/v1/tournaments", adminToken, body)
		arb := s.appoint(c.tour, "arbiter")
		app := s.appoint(c.tour, "appeals")
		cmds := "/v1/tournaments/" + c.tour + "/commands"
		for i := 1; i <= 4; i++ {
			s.must(201, "POST", cmds, arb, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%d","name":"P %d"}`, i, i))
		}
		s.must(201, "POST", cmds, arb, `{"type":"CloseRegistration"}`)
		drawn := s.must(201, "POST", cmds, arb, `{"type":"DrawTables","round":1,"tables":[{"table":1,"players":["p1","p2","p3","p4"]}]}`).json(t)
		s.must(201, "POST", cmds, arb, fmt.Sprintf(`{"type":"FileContestation","against":%v,"claim":"p1 and p3 are brothers"}`, drawn["seq"]))
		ruling := `{"type":"RuleContestation","contestation":"c1","upheld":false,"ruling":"kinship is no constraint of the draw"}`

		offered := false
		for _, typ := range s.must(200, "GET", "/v1/me", arb, nil).json(t)["commands"].([]any) {
			offered = offered || typ == "RuleContestation"
		}
		if offered != c.arbiter {
			t.Errorf("%s: /v1/me offers the arbiter RuleContestation: %v, want %v", c.tour, offered, c.arbiter)
		}
		if c.arbiter {
			s.must(201, "POST", cmds, arb, ruling)
			continue
		}
		before := s.logSize()
		r := s.do("POST", cmds, arb, ruling)
		var p problem.Problem
		if err := json.Unmarshal(r.body, &p); err != nil || r.status != 403 || p.Code != "forbidden" || !strings.Contains(p.Detail, "rulings: appeals") {
			t.Errorf("%s: an arbiter's ruling got %d %s, want 403 forbidden naming rulings: appeals", c.tour, r.status, r.body)
		}
		if after := s.logSize(); after != before {
			t.Errorf("%s: the refused ruling changed the log from %d to %d", c.tour, before, after)
		}
		s.must(201, "POST", cmds, app, ruling)
	}
}
