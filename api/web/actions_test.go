package web_test

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// setup creates tournament t1 with the ruleset and params given, appoints
// an arbiter and registers players p1…pn (clubs in turn of four), and
// returns the arbiter's token.
func (u *ui) setup(ruleset, params string, n int) string {
	u.t.Helper()
	body := `{"id":"t1","name":"Torneo","ruleset":"` + ruleset + `"`
	if params != "" {
		body += `,"params":` + params
	}
	if code, m := u.api("POST", "/v1/tournaments", admin, body+`}`); code != 201 {
		u.t.Fatalf("create: %d %v", code, m)
	}
	_, m := u.api("POST", "/v1/tournaments/t1/officials", admin, `{"name":"Arbitro capo","role":"arbiter"}`)
	arbiter, _ := m["token"].(string)
	for i := 1; i <= n; i++ {
		u.cmd(arbiter, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%d","name":"Giocatore %d","club":"Club %d"}`, i, i, i%4))
	}
	return arbiter
}

// cmd sends a command straight to the API; it must be accepted.
func (u *ui) cmd(token, body string) map[string]any {
	u.t.Helper()
	code, m := u.api("POST", "/v1/tournaments/t1/commands", token, body)
	if code != 201 {
		u.t.Fatalf("%s: %d %v", body, code, m)
	}
	return m
}

// form posts a page's form, which must be accepted (a redirect to a page
// with a banner), and returns the banner.
func (u *ui) form(token, path string, f url.Values) string {
	u.t.Helper()
	if f.Get("_key") == "" {
		f.Set("_key", fmt.Sprintf("%x", sha256.Sum256([]byte(path+"?"+f.Encode()))))
	}
	code, loc, body := u.post(path, token, "", f)
	if code != http.StatusSeeOther {
		u.t.Fatalf("%s %v: %d\n%s", path, f, code, problemText(body))
	}
	_, _, page := u.get(loc, token)
	_, after, _ := strings.Cut(page, `class="flash" role="status">`)
	banner, _, _ := strings.Cut(after, "</p>")
	return banner
}

// problemText is the refusal a page shows, as text.
func problemText(body string) string {
	_, after, ok := strings.Cut(body, `id="problem"`)
	if !ok {
		return "(no refusal shown)"
	}
	text, _, _ := strings.Cut(after, "</div>")
	return regexp.MustCompile(`<[^>]*>`).ReplaceAllString(text, " ")
}

var draftTableRE = regexp.MustCompile(`(?s)<section class="tablecard" id="draft-table-(\d+)"><h3>[^<]*</h3><ol>(.*?)</ol>`)

// draftTables are the tables a page's draft shows, as names.
func draftTables(body string) []string {
	var out []string
	for _, m := range draftTableRE.FindAllStringSubmatch(body, -1) {
		out = append(out, regexp.MustCompile(`<[^>]*>`).ReplaceAllString(m[2], " "))
	}
	return out
}

// TestADrawIsADraftUntilConfirmed: the round page's draw is a draft first
// (its tables and the constraints they break), drawn again with another
// seed or changed by hand, each time appending nothing; only "Conferma"
// records it, exactly as drafted; a draft the tournament moved past is
// not recorded but drafted again.
func TestADrawIsADraftUntilConfirmed(t *testing.T) {
	u := newUI(t)
	arb := u.setup("rtu", `{"qualifying_rounds":2,"knockout":"none"}`, 8)
	u.cmd(arb, `{"type":"CloseRegistration"}`)
	seq := u.seq("t1")
	round := "/ui/t/t1/rounds/1"

	code, _, body := u.post(round, arb, "", url.Values{"_action": {"draft"}, "_key": {"d1"}, "seed": {"primo"}})
	first := draftTables(body)
	if code != 200 || len(first) != 2 || !strings.Contains(body, `id="draft-seed">primo<`) || !strings.Contains(body, "non è registrato nulla") {
		t.Fatalf("the draft: %d %v\n%s", code, first, body)
	}
	code, _, body = u.post(round, arb, "", url.Values{"_action": {"draft"}, "_key": {"d2"}, "seed": {"secondo"}})
	if second := draftTables(body); code != 200 || len(second) != 2 || strings.Join(second, "|") == strings.Join(first, "|") {
		t.Errorf("drawn again with another seed: %d %v (before %v)", code, second, first)
	}
	// By hand: p1 and p5, both of Club 1, at one table; the draft says so.
	hand := url.Values{"_action": {"draft"}, "_key": {"d3"}, "by_hand": {"1"}, "table1": {"p1, p5, p2, p3"}, "table2": {"p4, p6, p7, p8"}}
	code, _, body = u.post(round, arb, "", hand)
	if code != 200 || !strings.Contains(problemText(body), "no refusal") || !strings.Contains(body, "Giocatore 1 e Giocatore 5 sono dello stesso club") {
		t.Fatalf("a draft by hand: %d\n%s", code, body)
	}
	if got := u.seq("t1"); got != seq {
		t.Fatalf("drafts appended to the log: seq %v, then %v", seq, got)
	}
	// Confirmed: recorded as drafted.
	confirm := regexp.MustCompile(`(?s)<form method="post" class="inline" id="confirm-draw">(.*?)</form>`).FindStringSubmatch(body)
	if confirm == nil {
		t.Fatal("the draft offers no confirmation")
	}
	f := url.Values{}
	for _, m := range regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`).FindAllStringSubmatch(confirm[1], -1) {
		f.Add(m[1], strings.ReplaceAll(m[2], "&#43;", "+"))
	}
	// The tournament moves on meanwhile (a reserve): the draft is stale.
	u.cmd(arb, `{"type":"DesignateReserve","player":"r1","name":"Riserva"}`)
	code, _, body = u.post(round, arb, "", f)
	if code != http.StatusPreconditionFailed || !strings.Contains(body, "Il torneo è cambiato dopo la bozza") || len(draftTables(body)) != 2 {
		t.Fatalf("a stale draft confirmed: %d\n%s", code, body)
	}
	seq = u.seq("t1")
	f.Set("draft_seq", fmt.Sprint(seq))
	f.Set("_key", "confirm-2")
	if banner := u.form(arb, round, f); !strings.Contains(banner, "Tavoli sorteggiati") {
		t.Errorf("confirmed, the banner says %q", banner)
	}
	_, m := u.api("GET", "/v1/tournaments/t1/rounds/1/tables", "", "")
	tables, _ := m["tables"].([]any)
	if got := fmt.Sprint(tables[0].(map[string]any)["players"]); got != "[p1 p5 p2 p3]" {
		t.Errorf("recorded table 1: %s, want the one made by hand", got)
	}
}

// TestEveryArbiterActionHasAForm: what the API takes, a page offers: a
// tournament created with its parameters, its season and type; a minor
// registered with his waiver and national id; a refused registration; a
// reserve designated and substituted at the call; the turn order; a
// withdrawal; a renunciation; a die roll for a tie; the officials listed;
// the tournament closed.
func TestEveryArbiterActionHasAForm(t *testing.T) {
	u := newUI(t)
	// Creation with its parameters.
	banner := u.form(admin, "/ui/", url.Values{"id": {"t1"}, "name": {"Torneo"}, "ruleset": {"rtu"}, "season": {"2026"}, "tournament_type": {"OPEN"},
		"qualifying_rounds": {"1"}, "knockout": {"final4"}, "table_sizes": {"4"}, "discards": {"0"}})
	if !strings.Contains(banner, "Torneo creato") {
		t.Errorf("created: %q", banner)
	}
	_, st := u.api("GET", "/v1/tournaments/t1/state", "", "")
	rs := st["summary"].(map[string]any)["ruleset"].(map[string]any)
	if rs["qualifying_rounds"] != 1.0 || rs["knockout"] != "final4" || fmt.Sprint(rs["table_sizes"]) != "[4]" {
		t.Errorf("the ruleset created: %v", rs)
	}
	// A parameter the ruleset refuses is said at its field.
	code, _, body := u.post("/ui/", admin, "", url.Values{"_key": {"c2"}, "id": {"t2"}, "name": {"T"}, "ruleset": {"rtu"}, "discards": {"7"}})
	if code != 400 || !strings.Contains(body, "Scarti") || !strings.Contains(problemText(body), "al massimo 2 con 3 turni di qualificazione") {
		t.Errorf("a parameter refused: %d\n%s", code, problemText(body))
	}
	_, m := u.api("POST", "/v1/tournaments/t1/officials", admin, `{"name":"Arbitro capo","role":"arbiter"}`)
	arb, _ := m["token"].(string)
	players := "/ui/t/t1/players"
	for i := 1; i <= 7; i++ {
		u.form(arb, players, url.Values{"_action": {"register"}, "player": {fmt.Sprintf("p%d", i)}, "name": {fmt.Sprintf("Giocatore %d", i)}, "club": {fmt.Sprintf("Club %d", i%4)}})
	}
	// A minor, with the club's waiver and his national id.
	u.form(arb, players, url.Values{"_action": {"register"}, "player": {"p8"}, "name": {"Giovane"}, "minor": {"1"}, "waiver": {"Club Bologna, il presidente"}, "national_id": {"200008"}})
	if banner := u.form(arb, players, url.Values{"_action": {"refuse"}, "player": {"p9"}, "name": {"Ritardatario"}, "reason": {"Quota non versata"}}); !strings.Contains(banner, "Iscrizione rifiutata") {
		t.Errorf("refused: %q", banner)
	}
	if banner := u.form(arb, players, url.Values{"_action": {"reserve"}, "player": {"r1"}, "name": {"Riserva Uno"}}); !strings.Contains(banner, "Riserva designata: Riserva Uno") {
		t.Errorf("reserve: %q", banner)
	}
	u.cmd(arb, `{"type":"CloseRegistration"}`)
	for i := 1; i <= 7; i++ {
		u.cmd(arb, fmt.Sprintf(`{"type":"CheckIn","round":1,"player":"p%d"}`, i))
	}
	u.cmd(arb, `{"type":"CheckIn","round":1,"player":"p8","absent":true}`)
	u.cmd(arb, `{"type":"CheckIn","round":1,"player":"r1"}`)
	if banner := u.form(arb, players, url.Values{"_action": {"substitute"}, "round": {"1"}, "absent": {"p8"}, "reserve": {"r1"}}); !strings.Contains(banner, "Riserva in campo") {
		t.Errorf("substituted: %q", banner)
	}
	u.cmd(arb, `{"type":"DrawTables","round":1,"seed":"azioni"}`)
	_, m = u.api("GET", "/v1/tournaments/t1/rounds/1/tables", "", "")
	var seats [][]string
	for _, tb := range m["tables"].([]any) {
		var s []string
		for _, p := range tb.(map[string]any)["players"].([]any) {
			s = append(s, p.(string))
		}
		seats = append(seats, s)
	}
	order := url.Values{"_action": {"turn_order"}, "table": {"1"}, "order1": {seats[0][2]}, "order2": {seats[0][0]}, "order3": {seats[0][1]}, "order4": {seats[0][3]}}
	if banner := u.form(arb, "/ui/t/t1/rounds/1", order); !strings.Contains(banner, "Ordine di gioco registrato") {
		t.Errorf("turn order: %q", banner)
	}
	// A withdrawal from the tournament, for force majeure, after the
	// round's reports: everyone scores so that the final has a tie at
	// the cut, which the die settles.
	for n, s := range seats {
		turns := map[int][]int{0: {2, 3, 1, 4}}[n]
		var lines []string
		for i, p := range s {
			turn := i + 1
			if turns != nil {
				turn = turns[i]
			}
			lines = append(lines, fmt.Sprintf(`{"player":%q,"turn":%d,"table_points":%d,"status":"finished"}`, p, turn, 50-10*i))
		}
		u.cmd(arb, fmt.Sprintf(`{"type":"RecordResult","round":1,"table":%d,"closed_by":"time","players":[%s]}`, n+1, strings.Join(lines, ",")))
	}
	if banner := u.form(arb, players, url.Values{"_action": {"withdraw"}, "player": {seats[1][3]}, "scope": {"tournament"}, "reason": {"force_majeure"}}); !strings.Contains(banner, "Ritiro registrato") {
		t.Errorf("withdrawal: %q", banner)
	}
	// The standings offer the die for the tie at the cut.
	if rolled := u.rollTies(arb); rolled == 0 {
		t.Error("the standings offered no die roll for the tie at the cut")
	}
	// A qualifier renounces the final: the cut is recomputed.
	_, st = u.api("GET", "/v1/tournaments/t1/state", "", "")
	next := st["next"].(map[string]any)["players"].([]any)
	if banner := u.form(arb, players, url.Values{"_action": {"renounce"}, "player": {next[0].(string)}, "phase": {"final"}, "reason": {"Deve partire"}}); !strings.Contains(banner, "Rinuncia registrata") {
		t.Errorf("renunciation: %q", banner)
	}
	// The officials are listed on the tournament's page.
	if _, _, page := u.get("/ui/t/t1/", admin); !strings.Contains(page, `id="officials"`) || !strings.Contains(page, "Arbitro capo") {
		t.Error("the tournament's page does not list its officials")
	}
	// The final, its publication, and the tournament closed from the page.
	u.rollTies(arb)
	u.cmd(arb, `{"type":"DrawTables","round":2,"seed":"finale"}`)
	_, m = u.api("GET", "/v1/tournaments/t1/rounds/2/tables", "", "")
	var lines []string
	for i, p := range m["tables"].([]any)[0].(map[string]any)["players"].([]any) {
		lines = append(lines, fmt.Sprintf(`{"player":%q,"turn":%d,"table_points":%d,"status":"finished"}`, p, i+1, 50-10*i))
	}
	u.cmd(arb, `{"type":"RecordResult","round":2,"table":1,"closed_by":"time","players":[`+strings.Join(lines, ",")+`]}`)
	u.form(arb, "/ui/t/t1/", url.Values{"_action": {"publish"}, "final": {"1"}})
	if banner := u.form(arb, "/ui/t/t1/", url.Values{"_action": {"close"}, "reason": {"Torneo concluso"}}); !strings.Contains(banner, "Torneo chiuso") {
		t.Errorf("closed: %q", banner)
	}
	_, st = u.api("GET", "/v1/tournaments/t1/state", "", "")
	if closed, _ := st["summary"].(map[string]any)["closed"].(bool); !closed {
		t.Error("the tournament is not closed")
	}
	var minor bool
	for _, p := range st["players"].([]any) {
		if row := p.(map[string]any); row["player"] == "p8" {
			minor = true
		}
	}
	if !minor {
		t.Error("the minor was not registered")
	}
}

// rollTies records, from the standings page, a die roll for every tie it
// offers one for (6, 5, … in the order listed), and counts them.
func (u *ui) rollTies(token string) int {
	u.t.Helper()
	n := 0
	for range 10 {
		_, _, page := u.get("/ui/t/t1/standings", token)
		tie := regexp.MustCompile(`(?s)<form method="post" class="tie" id="tie-0">(.*?)</form>`).FindStringSubmatch(page)
		if tie == nil {
			return n
		}
		roll := url.Values{"_action": {"roll"}}
		for i, m := range regexp.MustCompile(`name="players" value="([^"]+)"`).FindAllStringSubmatch(tie[1], -1) {
			roll.Add("players", m[1])
			roll.Add("rolls", fmt.Sprint(6-i))
		}
		if banner := u.form(token, "/ui/t/t1/standings", roll); !strings.Contains(banner, "Tiro di dado registrato") {
			u.t.Fatalf("die roll: %q", banner)
		}
		n++
	}
	u.t.Fatal("ties still offered after ten rolls")
	return n
}

// TestAGameIsAnnulledFromItsTable: under campionato-2003, which annuls a
// game ("Interruzioni partita"), the round page's table offers the
// annulment, and the game is annulled with its culprit; under rur-2015,
// which has no such remedy (art. 34: the culprit is expelled, the game goes
// on), the form without a culprit is refused saying why, in Italian, and
// nothing is recorded; with one, he is disqualified and expelled.
func TestAGameIsAnnulledFromItsTable(t *testing.T) {
	for _, c := range []struct {
		ruleset string
		annuls  bool
	}{{"campionato-2003", true}, {"rur-2015", false}} {
		u := newUI(t)
		arb := u.setup(c.ruleset, "", 8)
		u.cmd(arb, `{"type":"CloseRegistration"}`)
		u.cmd(arb, `{"type":"DrawTables","round":1,"seed":"annullo"}`)
		_, _, page := u.get("/ui/t/t1/rounds/1", arb)
		if !strings.Contains(page, `id="annul-1"`) {
			t.Fatalf("%s: table 1 offers no annulment", c.ruleset)
		}
		_, m := u.api("GET", "/v1/tournaments/t1/rounds/1/tables", "", "")
		culprit := m["tables"].([]any)[0].(map[string]any)["players"].([]any)[0].(string)
		f := url.Values{"_action": {"annul"}, "_key": {"annul-1"}, "table": {"1"}, "culprit": {culprit}, "reason": {"Il colpevole ha rovesciato il tabellone"}}
		if c.annuls {
			if banner := u.form(arb, "/ui/t/t1/rounds/1", f); !strings.Contains(banner, "Partita annullata, tavolo 1") {
				t.Errorf("%s: annulled, the banner says %q", c.ruleset, banner)
			}
			continue
		}
		// No culprit: nothing to do under this ruleset, said so.
		before := u.seq("t1")
		f.Del("culprit")
		code, _, body := u.post("/ui/t/t1/rounds/1", arb, "", f)
		if code != http.StatusUnprocessableEntity || !strings.Contains(problemText(body), "questo regolamento non annulla le partite") || u.seq("t1") != before {
			t.Errorf("%s: the annulment without a culprit: %d %s", c.ruleset, code, problemText(body))
		}
		// The culprit is disqualified and expelled; the game goes on.
		f.Set("culprit", culprit)
		f.Set("_key", "annul-2")
		if banner := u.form(arb, "/ui/t/t1/rounds/1", f); !strings.Contains(banner, "Sanzione registrata") {
			t.Errorf("%s: the culprit expelled, the banner says %q", c.ruleset, banner)
		}
	}
}
