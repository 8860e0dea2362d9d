package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestTheRulesetIsAmendedInTheSettings: the tournament's page offers the
// arbiter its ruleset's parameters with the creation form's fields, each
// holding the value in force, until the first draw: a form that changes
// nothing is refused saying so, a value the ruleset refuses is said at
// its field in Italian, both leaving the log untouched; a change is
// recorded with only what changed; once tables are drawn the page says
// the ruleset no longer changes.
func TestTheRulesetIsAmendedInTheSettings(t *testing.T) {
	u := newUI(t)
	arbiter := u.setup("rtu", "", 4)
	_, st := u.api("GET", "/v1/tournaments/t1/state", "", "")
	rs := st["summary"].(map[string]any)["ruleset"].(map[string]any)
	rounds := int(rs["qualifying_rounds"].(float64))
	var sizes []string
	for _, n := range rs["table_sizes"].([]any) {
		sizes = append(sizes, fmt.Sprint(n))
	}

	_, _, page := u.get("/ui/t/t1/", arbiter)
	for _, want := range []string{`id="amend-ruleset"`, fmt.Sprintf(`name="qualifying_rounds" type="number" min="1" max="20" value="%d"`, rounds),
		`value="` + sizes[0] + `" checked`, `name="knockout"`, `name="discards"`, "Impostazioni: modifica il regolamento"} {
		if !strings.Contains(page, want) {
			t.Errorf("the settings form lacks %s", want)
		}
	}
	form := func(changes url.Values) url.Values {
		f := url.Values{"_action": {"amend_ruleset"}, "qualifying_rounds": {fmt.Sprint(rounds)}, "knockout": {rs["knockout"].(string)},
			"discards": {fmt.Sprint(rs["discards"])}, "table_sizes": sizes}
		for k, v := range changes {
			f[k] = v
		}
		return f
	}
	before := u.seq("t1")
	for _, tc := range []struct {
		name    string
		changes url.Values
		says    string
	}{
		{"nothing changed", nil, "nessun parametro cambia"},
		{"too many discards", url.Values{"discards": {"7"}}, "Scarti"},
	} {
		code, _, body := u.post("/ui/t/t1/", arbiter, "", form(tc.changes))
		if code != http.StatusBadRequest || !strings.Contains(problemText(body), tc.says) {
			t.Errorf("%s: %d, want 400 saying %q: %s", tc.name, code, tc.says, problemText(body))
		}
		if !strings.Contains(body, `<details class="card" id="settings" open>`) {
			t.Errorf("%s: the refused settings form is not open", tc.name)
		}
	}
	if got := u.seq("t1"); got != before {
		t.Errorf("seq %v after refused settings, want %v", got, before)
	}

	if banner := u.form(arbiter, "/ui/t/t1/", form(url.Values{"qualifying_rounds": {fmt.Sprint(rounds + 1)}, "reason": {"Tre turni per il caldo"}})); !strings.Contains(banner, "Regolamento modificato") {
		t.Errorf("banner %q after amending the ruleset", banner)
	}
	_, st = u.api("GET", "/v1/tournaments/t1/state", "", "")
	after := st["summary"].(map[string]any)["ruleset"].(map[string]any)
	if got := after["qualifying_rounds"]; got != float64(rounds+1) {
		t.Errorf("qualifying rounds %v after the settings, want %d", got, rounds+1)
	}
	if got, want := fmt.Sprint(after["table_sizes"]), fmt.Sprint(rs["table_sizes"]); got != want {
		t.Errorf("table sizes %s after changing only the rounds, want %s", got, want)
	}

	u.cmd(arbiter, `{"type":"CloseRegistration"}`)
	u.cmd(arbiter, `{"type":"DrawTables","round":1,"tables":[{"table":1,"players":["p1","p2","p3","p4"]}]}`)
	if _, _, page := u.get("/ui/t/t1/", arbiter); strings.Contains(page, `id="amend-ruleset"`) || !strings.Contains(page, "Il regolamento non cambia più") {
		t.Error("after the first draw the settings still offer to amend the ruleset")
	}
}
