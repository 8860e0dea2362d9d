package web_test

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// crawler reads the UI as one person does: with one session's token (""
// for an anonymous visitor), following every link of every page it opens
// below /ui/, and hands each page to check.
type crawler struct {
	u     *ui
	token string
	// lang is the pages' language ("" for the default, Italian).
	lang  string
	check func(path string, status int, body string)
	// Limit bounds the pages one crawl opens.
	Limit int
}

var hrefRE = regexp.MustCompile(`href="(/ui/[^"#]*)`)

// skipped are the links a crawl does not follow: they change the session
// (language, login, joining by a link) rather than show a page.
func skipped(path string) bool {
	for _, p := range []string{"/ui/lang/", "/ui/login", "/ui/join", "/ui/logout"} {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// crawl opens seeds and every page they link to, breadth first, each once;
// the state at each event (/at/N) only for the first, last and a few
// between, so that a long log does not make the crawl long.
func (c crawler) crawl(seeds ...string) []string {
	c.u.t.Helper()
	seen := map[string]bool{}
	queue := slices.Clone(seeds)
	var opened []string
	atPages := 0
	for len(queue) > 0 && len(opened) < c.Limit {
		path := queue[0]
		queue = queue[1:]
		path = strings.ReplaceAll(path, "&amp;", "&")
		if seen[path] || skipped(path) {
			continue
		}
		seen[path] = true
		if strings.Contains(path, "/at/") {
			if atPages++; atPages > 4 {
				continue
			}
		}
		status, h, body := c.u.getIn(c.lang, path, c.token)
		opened = append(opened, path)
		if status < 500 && !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
			continue // a download (the standings as CSV): data, not a page
		}
		c.check(path, status, body)
		for _, m := range hrefRE.FindAllStringSubmatch(body, -1) {
			if !seen[m[1]] {
				queue = append(queue, m[1])
			}
		}
	}
	return opened
}

// stage is one moment of a tournament the browser tests reach.
type stage struct {
	name string
	// commands are sent by the arbiter before the pages are read, a
	// player's proposal, confirmation or dispute by his personal link;
	// "links" gives every player his link. They are made when the stage is
	// played, from the tournament as the stages before left it.
	commands func() []string
}

// TestEveryPageAnswersInEveryState plays a tournament through every state
// the browser tests reach (registration, a call, a draw with a contested
// draw awaiting its ruling, proposals pending and disputed, reports, a
// ruling, a tie for the die, a provisional then a final publication, the
// tournament closed) and, at each, reads every page the UI links to as
// each person does: an anonymous visitor, the administrator, the arbiter,
// the appeals committee, an auditor and a player's phone. No page may
// answer a server error.
func TestEveryPageAnswersInEveryState(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	for _, st := range s.stages() {
		s.play(st)
		for _, who := range s.people() {
			c := crawler{u: s.u, token: who.token, Limit: 120, check: func(path string, status int, body string) {
				if status >= 500 {
					t.Errorf("%s, %s: %s answers %d:\n%.600s", st.name, who.name, path, status, body)
				}
			}}
			opened := c.crawl(who.seeds...)
			if len(opened) < 3 {
				t.Errorf("%s, %s: the crawl opened only %v", st.name, who.name, opened)
			}
		}
	}
}

// scenario is a small tournament (rtu, eight players, one qualifying game
// and a final of four) played through the API, stage by stage.
type scenario struct {
	t                                 *testing.T
	u                                 *ui
	tour                              string
	arbiter, appeals, auditor, player string
	// links are the players' personal links' tokens, by player.
	links   map[string]string
	drawSeq float64
}

func newScenario(t *testing.T) *scenario {
	t.Helper()
	s := &scenario{t: t, u: newUI(t), tour: "torneo-pagine"}
	if code, m := s.u.api("POST", "/v1/tournaments", admin, `{"id":"torneo-pagine","name":"Torneo delle pagine","ruleset":"rtu","params":{"qualifying_rounds":1,"knockout":"final4"}}`); code != 201 {
		t.Fatalf("create: %d %v", code, m)
	}
	appoint := func(role string) string {
		_, m := s.u.api("POST", "/v1/tournaments/"+s.tour+"/officials", admin, `{"name":"`+map[string]string{"arbiter": "Arbitro capo", "appeals": "Commissione d'appello", "auditor": "Revisore dei conti"}[role]+`","role":"`+role+`"}`)
		tok, _ := m["token"].(string)
		if tok == "" {
			t.Fatalf("appoint %s: %v", role, m)
		}
		return tok
	}
	s.arbiter, s.appeals, s.auditor = appoint("arbiter"), appoint("appeals"), appoint("auditor")
	return s
}

// person is one of the people reading the pages, and where they start.
type person struct {
	name, token string
	seeds       []string
}

func (s *scenario) people() []person {
	tp := "/ui/t/" + s.tour + "/"
	out := []person{
		{"anonymous visitor", "", []string{"/ui/", tp, tp + "screen", tp + "classification"}},
		{"administrator", admin, []string{"/ui/", tp}},
		{"arbiter", s.arbiter, []string{"/ui/", tp, tp + "links"}},
		{"appeals committee", s.appeals, []string{tp, tp + "events"}},
		{"auditor", s.auditor, []string{tp, tp + "events"}},
	}
	if s.player != "" {
		out = append(out, person{"player p1", s.player, []string{tp + "me", tp}})
	}
	return out
}

// play sends a stage's commands, each of which must be accepted.
func (s *scenario) play(st stage) {
	s.t.Helper()
	if st.commands == nil {
		return
	}
	for _, cmd := range st.commands() {
		s.send(st.name, cmd)
	}
}

// send sends one command of stage, which must be accepted: a player's own
// with the player's link, the others as the arbiter ("links" issues the
// personal links).
func (s *scenario) send(stage, cmd string) {
	s.t.Helper()
	token := s.arbiter
	var by struct{ Type, Player string }
	_ = json.Unmarshal([]byte(cmd), &by)
	if strings.HasSuffix(by.Type, "Proposal") || by.Type == "ProposeResult" {
		token = s.links[by.Player]
	}
	if cmd == "links" {
		s.issueLinks()
		return
	}
	code, m := s.u.api("POST", "/v1/tournaments/"+s.tour+"/commands", token, cmd)
	if code != 201 {
		s.t.Fatalf("%s: %s: %d %v", stage, cmd, code, m)
	}
	if strings.Contains(cmd, `"DrawTables","round":1`) {
		s.drawSeq, _ = m["seq"].(float64)
	}
}

// issueLinks gives every player a personal link and keeps p1's.
func (s *scenario) issueLinks() {
	s.t.Helper()
	if code, m := s.u.api("POST", "/v1/tournaments/"+s.tour+"/player-tokens", s.arbiter, `{}`); code != 201 {
		s.t.Fatalf("links: %d %v", code, m)
	}
	req, _ := http.NewRequest("GET", s.u.srv.URL+"/v1/tournaments/"+s.tour+"/player-tokens", nil)
	req.Header.Set("Authorization", "Bearer "+s.arbiter)
	res, err := httpClient().Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	var out struct {
		Tokens []struct{ Player, Token string }
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		s.t.Fatal(err)
	}
	s.links = map[string]string{}
	for _, tk := range out.Tokens {
		s.links[tk.Player] = tk.Token
	}
	s.player = s.links["p1"]
}

// tables are the seats of a round's tables.
func (s *scenario) tables(round int) [][]string {
	s.t.Helper()
	_, m := s.u.api("GET", fmt.Sprintf("/v1/tournaments/%s/rounds/%d/tables", s.tour, round), "", "")
	var out [][]string
	tables, _ := m["tables"].([]any)
	for _, tb := range tables {
		var seats []string
		for _, p := range tb.(map[string]any)["players"].([]any) {
			seats = append(seats, p.(string))
		}
		out = append(out, seats)
	}
	return out
}

// report is a RecordResult (or ProposeResult, by typ) of a table whose
// seats score the given table points in seat order.
func report(typ string, round, table int, seats []string, points ...int) string {
	var lines []string
	for i, p := range seats {
		lines = append(lines, fmt.Sprintf(`{"player":%q,"turn":%d,"table_points":%d,"status":"finished"}`, p, i+1, points[i]))
	}
	by := ""
	if typ == "ProposeResult" {
		by = fmt.Sprintf(`"player":%q,`, seats[0])
	}
	return fmt.Sprintf(`{"type":%q,%s"round":%d,"table":%d,"closed_by":"time","players":[%s]}`, typ, by, round, table, strings.Join(lines, ","))
}

// stages are the moments of the scenario, each reached from the one
// before.
func (s *scenario) stages() []stage {
	names := []string{"Mario Rossi", "Giulia Bianchi", "Luca Ferrari", "Sara Esposito", "Marco Russo", "Elena Romano", "Paolo Colombo", "Anna Ricci"}
	return []stage{
		{name: "the tournament created"},
		{name: "players registered, one refused", commands: func() []string {
			var out []string
			for i, n := range names {
				out = append(out, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%d","name":%q,"club":"Club %d","region":"Regione %d"}`, i+1, n, i%4, i%3))
			}
			return append(out, `{"type":"RefuseRegistration","player":"p9","name":"Nino Neri","reason":"Iscrizione arrivata dopo la chiusura"}`)
		}},
		{name: "registration closed, the call begun", commands: func() []string {
			return []string{`{"type":"CloseRegistration"}`, "links",
				`{"type":"CheckIn","round":1,"player":"p1"}`, `{"type":"CheckIn","round":1,"player":"p2","minutes_late":7}`}
		}},
		{name: "round 1 drawn", commands: func() []string {
			var out []string
			for i := 3; i <= 8; i++ {
				out = append(out, fmt.Sprintf(`{"type":"CheckIn","round":1,"player":"p%d"}`, i))
			}
			return append(out, `{"type":"DrawTables","round":1,"seed":"pagine"}`)
		}},
		{name: "a turn order, a warning, a contested draw awaiting its ruling, a proposal and a dispute", commands: func() []string {
			tb := s.tables(1)
			order, _ := json.Marshal([]string{tb[0][1], tb[0][0], tb[0][2], tb[0][3]})
			return []string{
				`{"type":"SetTurnOrder","round":1,"table":1,"order":` + string(order) + `}`,
				fmt.Sprintf(`{"type":"ImposeSanction","player":%q,"round":1,"table":1,"kind":"warning","article":"rtu art. 12","reason":"Consigli a un avversario"}`, tb[0][0]),
				fmt.Sprintf(`{"type":"FileContestation","against":%d,"claim":"Due giocatori dello stesso club al mio tavolo","by":%q}`, int(s.drawSeq), tb[0][0]),
				s.proposal(1, tb[0], 2, 1, 3, 4),
				s.proposal(2, tb[1], 1, 2, 3, 4),
			}
		}},
		{name: "a disputed proposal, one confirmed", commands: func() []string {
			tb := s.tables(1)
			return []string{
				fmt.Sprintf(`{"type":"DisputeProposal","player":%q,"proposal":"r1t2-1","reason":"Avevo 52 punti tavolo"}`, tb[1][1]),
				fmt.Sprintf(`{"type":"ConfirmProposal","player":%q,"proposal":"r1t1-1"}`, tb[0][2]),
			}
		}},
		{name: "the reports recorded, the contestation ruled", commands: func() []string {
			tb := s.tables(1)
			return []string{
				fmt.Sprintf(`{"type":"ConfirmProposal","player":%q,"proposal":"r1t1-1"}`, tb[0][1]),
				fmt.Sprintf(`{"type":"ConfirmProposal","player":%q,"proposal":"r1t1-1"}`, tb[0][3]),
				`{"type":"RecordResult","round":1,"table":1,"proposal":"r1t1-1"}`,
				report("RecordResult", 1, 2, tb[1], 58, 52, 33, 21),
				`{"type":"RuleContestation","contestation":"c1","upheld":false,"ruling":"Il sorteggio rispetta i vincoli possibili"}`,
			}
		}},
		{name: "a reserve, a withdrawal, a renunciation of the final", commands: func() []string {
			_, st := s.u.api("GET", "/v1/tournaments/"+s.tour+"/state", "", "")
			next := st["next"].(map[string]any)["players"].([]any)
			tb := s.tables(1)
			return []string{
				`{"type":"DesignateReserve","player":"r1","name":"Riccardo Riserva"}`,
				fmt.Sprintf(`{"type":"Withdraw","player":%q,"scope":"tournament","reason":"force_majeure"}`, tb[1][3]),
				fmt.Sprintf(`{"type":"Renounce","player":%q,"phase":"final","reason":"Deve partire"}`, next[0]),
			}
		}},
		{name: "the final drawn", commands: func() []string { return []string{`{"type":"DrawTables","round":2,"seed":"finale"}`} }},
		{name: "the final recorded", commands: func() []string {
			return []string{report("RecordResult", 2, 1, s.tables(2)[0], 50, 40, 30, 20)}
		}},
		{name: "a provisional publication", commands: func() []string { return s.rolls(`{"type":"PublishClassification"}`) }},
		{name: "the final publication", commands: func() []string { return s.rolls(`{"type":"PublishClassification","final":true}`) }},
		{name: "the tournament closed", commands: func() []string { return []string{`{"type":"CloseTournament","reason":"Torneo concluso"}`} }},
	}
}

// proposal is a ProposeResult of table n of round 1 by the player in its
// first seat, its turns as given (seat order).
func (s *scenario) proposal(n int, seats []string, turns ...int) string {
	var lines []string
	for i, p := range seats {
		lines = append(lines, fmt.Sprintf(`{"player":%q,"turn":%d,"table_points":%d,"status":"finished"}`, p, turns[i], 50-10*i))
	}
	return fmt.Sprintf(`{"type":"ProposeResult","player":%q,"round":1,"table":%d,"closed_by":"time","players":[%s]}`, seats[0], n, strings.Join(lines, ","))
}

// rolls are the die rolls every tie awaiting one needs, then then.
func (s *scenario) rolls(then string) []string {
	s.t.Helper()
	_, m := s.u.api("GET", "/v1/tournaments/"+s.tour+"/classification", "", "")
	groups := map[float64][]string{}
	rows, _ := m["rows"].([]any)
	for _, r := range rows {
		row := r.(map[string]any)
		if g, _ := row["tie_group"].(float64); g > 0 {
			groups[g] = append(groups[g], row["player"].(string))
		}
	}
	var out []string
	for _, g := range groups {
		ps, _ := json.Marshal(g)
		var rolls []string
		for i := range g {
			rolls = append(rolls, fmt.Sprint(6-i%6))
		}
		out = append(out, fmt.Sprintf(`{"type":"RecordTieBreakRoll","players":%s,"rolls":[%s]}`, ps, strings.Join(rolls, ",")))
	}
	return append(out, then)
}

// TestAProvisionalClassificationIsNeverCalledFinal: while the published
// classification is provisional, no page calls it final (the public page,
// the navigation, the players' pages); once the final one is published,
// it is called final.
func TestAProvisionalClassificationIsNeverCalledFinal(t *testing.T) {
	s := newScenario(t)
	for _, st := range s.stages() {
		s.play(st)
		if st.name == "a provisional publication" {
			break
		}
	}
	for _, who := range s.people() {
		crawler{u: s.u, token: who.token, Limit: 120, check: func(path string, status int, body string) {
			if strings.Contains(body, "Classifica finale") || strings.Contains(body, "definitiva</p>") {
				t.Errorf("%s: %s calls a provisional classification final", who.name, path)
			}
		}}.crawl(who.seeds...)
	}
	tp := "/ui/t/" + s.tour + "/"
	for _, path := range []string{tp + "classification", tp + "me"} {
		if _, _, body := s.u.get(path, s.player); !strings.Contains(body, "Classifica provvisoria") {
			t.Errorf("%s does not say the classification is provisional:\n%s", path, body)
		}
	}
	s.play(s.stages()[len(s.stages())-2]) // the final publication
	if _, _, body := s.u.get(tp+"classification", ""); !strings.Contains(body, "<h1>Classifica finale</h1>") || strings.Contains(body, "provvisoria") {
		t.Errorf("the final classification is not called final:\n%s", body)
	}
}

// TestPagesSayEverythingInTheirLanguage reads every page of every stage as
// every person does, in Italian and in English: no Italian page shows an
// English word, a raw value of the ledger (card_loss, PlayerRegistered, a
// JSON object, a Go formatting error) or a path of the ledger's source
// (the rules document's sections, projections/board/data/map.json); no English page shows
// a path either. What the pages quote as it is (the commands that verify a
// classification, a signed checkpoint, a token) is left out of the check.
func TestPagesSayEverythingInTheirLanguage(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	for _, st := range s.stages() {
		s.play(st)
		for _, who := range s.people() {
			for _, lang := range []string{"it", "en"} {
				crawler{u: s.u, token: who.token, lang: lang, Limit: 120, check: func(path string, status int, body string) {
					for _, bad := range untrue(lang, body) {
						t.Errorf("%s, %s, %s: %s shows %s", st.name, who.name, lang, path, bad)
					}
				}}.crawl(who.seeds...)
			}
		}
	}
}

var (
	// quoted are the parts of a page it quotes as they are: code,
	// commands, signed notes, scripts.
	quoted = regexp.MustCompile(`(?s)<(script|style|pre|code)\b[^>]*>.*?</(script|style|pre|code)>`)
	tagRE  = regexp.MustCompile(`(?s)<[^>]*>`)
	// shownAttr are the attributes a reader sees: a field's placeholder,
	// a tooltip.
	shownAttr = regexp.MustCompile(`\b(?:placeholder|title|aria-label)=(?:"([^"]*)"|'([^']*)')`)
	pathRE    = regexp.MustCompile(`(?:^|[\s(«"'])((?:docs|projections|commands|events|api|cmd|replay|testdata)/[\w./#-]+|[\w-]+\.(?:go|md)\b)`)
	rawRE     = regexp.MustCompile(`\b[a-z]+_[a-z_]+\b|\b[A-Z][a-z]+(?:[A-Z][a-z]+)+\b|%!|\bmap\[|<nil>|\{"|\[\]`)
	wordRE    = regexp.MustCompile(`\b[A-Za-z']+\b`)
	// english are words that are English and no Italian word.
	english = map[string]bool{}
)

func init() {
	for _, w := range strings.Fields(`the of and is are was were not must has have with for from this that which when
		only by be been should would will can cannot may round rounds table tables player players report reports
		recorded record event events rule ruling none error refused unknown action draw drawn seed score scores
		standings total status finished withdrawn eliminated active reserve expelled qualifying semifinal
		quarterfinal warning reminder penalty penalties arbiter arbiters appeals auditor proposal proposals confirmed
		disputed pending ready published publish final game games open closed page login logout yes sanction
		sanctions contestation contestations upheld rejected admissible inadmissible entry entries check late
		absent present minutes points armies cards territories objective winner time closing roll die tie ties
		players' player's first second third fourth place name region rank next previous earlier later
		back language create tournament tournaments id code link's links' phones phone screen print results
		reports' turn order seat seats your you his her their it its there here at on to or in`) {
		english[strings.ToLower(w)] = true
	}
	// Words both languages share, and names of things.
	for _, w := range []string{"in", "e", "a", "no", "link", "referto", "risiko", "online", "hub", "csv", "qr", "id", "it", "en"} {
		delete(english, w)
	}
}

// untrue lists what a page in lang shows that it should not: a path of the
// ledger's source in any language; in Italian, a raw value or an English
// word too.
func untrue(lang, body string) []string {
	var shown strings.Builder
	for _, m := range shownAttr.FindAllStringSubmatch(body, -1) {
		shown.WriteString(" " + m[1] + m[2] + " ")
	}
	text := quoted.ReplaceAllString(body, " ")
	if i := strings.Index(text, "<body"); i >= 0 {
		text = text[i:]
	}
	text = tagRE.ReplaceAllString(text, " ")
	text = html.UnescapeString(text + " " + shown.String())
	var out []string
	for _, m := range pathRE.FindAllStringSubmatch(text, -1) {
		out = append(out, "the path "+strconv.Quote(m[1]))
	}
	if lang != "it" {
		return out
	}
	for _, m := range rawRE.FindAllString(text, -1) {
		if m == "RisiKo" || m == "GestioneTorneo" { // a game's name; the national tool's
			continue
		}
		out = append(out, "the raw value "+strconv.Quote(m))
	}
	seen := map[string]bool{}
	for _, w := range wordRE.FindAllString(text, -1) {
		// "Open" is the name of a type of tournament, in Italian too.
		if lw := strings.ToLower(w); english[lw] && !seen[lw] && w != "Open" {
			seen[lw] = true
			out = append(out, "the English word "+strconv.Quote(w)+" in «"+around(text, w)+"»")
		}
	}
	return out
}

// around is the text around the first w in text, for a message.
func around(text, w string) string {
	i := regexp.MustCompile(`\b` + regexp.QuoteMeta(w) + `\b`).FindStringIndex(text)
	if i == nil {
		return w
	}
	from, to := max(i[0]-40, 0), min(i[1]+40, len(text))
	return strings.Join(strings.Fields(text[from:to]), " ")
}
