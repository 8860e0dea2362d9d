package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestARulingCorrectsWithTheFormsFields: an upheld contestation's ruling
// orders its corrections with the fields of the reports and sanctions it
// corrects, never a payload to type: the contested report's figures as
// recorded, the sanctions in force to revoke, a sanction to impose. A
// correction the ledger refuses is said in Italian at its own field, the
// log untouched; an accepted ruling records the corrected report and the
// revocation in its commit.
func TestARulingCorrectsWithTheFormsFields(t *testing.T) {
	u := newUI(t)
	arbiter := u.setup("rtu", "", 4)
	u.cmd(arbiter, `{"type":"CloseRegistration"}`)
	u.cmd(arbiter, `{"type":"DrawTables","round":1,"tables":[{"table":1,"players":["p1","p2","p3","p4"]}]}`)
	seats := []string{"p1", "p2", "p3", "p4"}
	recorded := u.cmd(arbiter, report("RecordResult", 1, 1, seats, 58, 52, 33, 21))
	u.cmd(arbiter, `{"type":"ImposeSanction","player":"p2","round":1,"table":1,"kind":"warning","article":"rtu art. 12","reason":"Consigli a un avversario"}`)
	against := recorded["seq"].(float64)
	u.cmd(arbiter, `{"type":"FileContestation","against":`+fmt.Sprint(int(against))+`,"claim":"I punti tavolo sono scambiati","by":"p2"}`)
	_, st := u.api("GET", "/v1/tournaments/t1/state", "", "")
	sanction := st["sanctions"].([]any)[0].(map[string]any)["sanction"].(string)

	_, _, page := u.get("/ui/t/t1/contestations", arbiter)
	for _, want := range []string{`id="rule-c1"`, `name="players[0].table_points" inputmode="numeric" value="58"`, `name="players[1].table_points" inputmode="numeric" value="52"`,
		`name="revoke" value="` + sanction + `"`, `name="impose_kind"`, "Correggi il referto", "Revoca sanzioni", "Infliggi sanzione"} {
		if !strings.Contains(page, want) {
			t.Errorf("the ruling form lacks %s", want)
		}
	}
	if strings.Contains(page, "<textarea") || strings.Contains(page, "JSON") {
		t.Error("the ruling form asks for a payload to type")
	}

	rule := func(extra url.Values) url.Values {
		f := url.Values{"_action": {"rule"}, "contestation": {"c1"}, "upheld": {"true"}, "ruling": {"Referto trascritto male"},
			"amend": {"1"}, "amend_round": {"1"}, "amend_table": {"1"}, "closed_by": {"time"}}
		for i, pts := range []string{"52", "58", "33", "21"} {
			f.Set(seatField(i, "turn"), fmt.Sprint(i+1))
			f.Set(seatField(i, "table_points"), pts)
			f.Set(seatField(i, "status"), "finished")
		}
		for k, v := range extra {
			f[k] = v
		}
		return f
	}

	// A sanction of no kind the ledger knows, imposed with the ruling:
	// refused, said at the sanction's kind in Italian, nothing recorded.
	before := u.seq("t1")
	code, _, body := u.post("/ui/t/t1/contestations", arbiter, "", rule(url.Values{"impose": {"1"}, "impose_player": {"p3"}, "impose_round": {"1"}, "impose_kind": {"scappellotto"}}))
	if code != http.StatusBadRequest {
		t.Errorf("a ruling imposing an unknown kind: %d, want 400\n%s", code, problemText(body))
	}
	if got := problemText(body); !strings.Contains(got, "Tipo di sanzione") || strings.Contains(got, "corrections") {
		t.Errorf("the refusal does not name the sanction's kind in Italian: %s", got)
	}
	if !regexp.MustCompile(`name="impose_kind">(?s:.*?)</select></label><span class="err">`).MatchString(body) {
		t.Error("the refusal is not said at the sanction's kind")
	}
	if !strings.Contains(body, `value="scappellotto"`) && !strings.Contains(body, `name="impose" value="1" checked`) {
		t.Error("the refused ruling's form is not kept as sent")
	}
	if got := u.seq("t1"); got != before {
		t.Errorf("seq %v after a refused ruling, want %v", got, before)
	}

	// Upheld: the report corrected and the warning revoked, in one commit.
	if banner := u.form(arbiter, "/ui/t/t1/contestations", rule(url.Values{"revoke": {sanction}})); banner == "" {
		t.Error("no banner after the ruling")
	}
	_, st = u.api("GET", "/v1/tournaments/t1/state", "", "")
	ruled := st["contestations"].([]any)[0].(map[string]any)["ruled"].(map[string]any)
	if ruled["upheld"] != true || ruled["corrections"] != float64(2) {
		t.Errorf("ruling %v, want upheld with 2 corrections", ruled)
	}
	rep := st["rounds"].([]any)[0].(map[string]any)["tables"].([]any)[0].(map[string]any)["report"].(map[string]any)
	if got := rep["players"].([]any)[0].(map[string]any)["table_points"]; got != float64(52) {
		t.Errorf("p1's table points after the ruling: %v, want 52", got)
	}
	if s := st["sanctions"].([]any)[0].(map[string]any); s["revoked"] != true {
		t.Errorf("the warning after the ruling: %v, want revoked", s)
	}
}

// seatField is the report form's field name of seat i's figure.
func seatField(i int, name string) string { return fmt.Sprintf("players[%d].%s", i, name) }

// TestARulingKeepsADisqualifiedLine: a report with a player disqualified
// from the game, corrected by a ruling, starts from his line as recorded:
// the form keeps him disqualified, though a report form offers no such
// status, rather than silently making him a player who finished.
func TestARulingKeepsADisqualifiedLine(t *testing.T) {
	u := newUI(t)
	arbiter := u.setup("rtu", "", 4)
	u.cmd(arbiter, `{"type":"CloseRegistration"}`)
	u.cmd(arbiter, `{"type":"DrawTables","round":1,"tables":[{"table":1,"players":["p1","p2","p3","p4"]}]}`)
	u.cmd(arbiter, `{"type":"ImposeSanction","player":"p4","round":1,"table":1,"kind":"disqualification","offence":"rur-2015 art. 19","reason":"Dadi truccati"}`)
	var lines []string
	for i, p := range []string{"p1", "p2", "p3", "p4"} {
		status := "finished"
		if p == "p4" {
			status = "disqualified"
		}
		lines = append(lines, fmt.Sprintf(`{"player":%q,"turn":%d,"table_points":%d,"status":%q}`, p, i+1, 40-10*i, status))
	}
	recorded := u.cmd(arbiter, `{"type":"RecordResult","round":1,"table":1,"closed_by":"time","players":[`+strings.Join(lines, ",")+`]}`)
	u.cmd(arbiter, fmt.Sprintf(`{"type":"FileContestation","against":%d,"claim":"Il terzo aveva 25 punti"}`, int(recorded["seq"].(float64))))
	_, _, page := u.get("/ui/t/t1/contestations", arbiter)
	re := regexp.MustCompile(`<select name="players\[3\]\.status">(.*?)</select>`)
	m := re.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("the ruling form has no status for the fourth line")
	}
	if !strings.Contains(m[1], `<option value="disqualified" selected>`) {
		t.Errorf("the disqualified line's status in the ruling form: %s", m[1])
	}
}
