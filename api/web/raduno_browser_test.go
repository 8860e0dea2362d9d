package web_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/referto/referto/api/apitest"
)

// TestARadunoInTheBrowserAlone plays a 16-player Raduno (rur-2015) from its
// creation to its final classification with nothing but the web UI, as the
// day goes in a hall: the administrator creates it with its parameters and
// appoints the officials; the arbiter, at a 1280 px desk, imports the entry
// list, registers a minor with his waiver, refuses a registration,
// designates a reserve, closes the entry list, gives the players their
// links, calls round 1 (a late arrival among them), drafts the draw, draws
// again, checks the tables by hand and confirms; four players report their
// table from their 390 px phones and the arbiter records it in one click;
// the arbiter enters the other reports, imposes a sanction, records a
// withdrawal (the reserve takes the seat at the next draw), settles the
// ties with the die, draws and records the semifinals; a contestation is
// filed against a report and the appeals committee rejects it; a semifinal
// winner renounces the final and the second of his table is repechaged;
// the final is played, the classification published, provisional then
// final, and the tournament closed.
//
// Every page it opens (each action's answer included) must answer below
// 500 and, in Italian, show no English word, no raw value of the ledger and
// no path of its source; no phone page scrolls sideways. A screenshot of
// each goes to the CI artifacts ($ARTIFACTS_DIR/screenshots, raduno-*).
func TestARadunoInTheBrowserAlone(t *testing.T) {
	shots, bctx := longBrowserTest(t, 12*time.Minute)
	_, srv := apitest.Serve(t, t.TempDir(), admin)
	base := srv.URL
	reader := apiClient{t: t, base: base} // reads only: who sits where, as the hall sees it
	const tour = "raduno-web"
	tp := base + "/ui/t/" + tour + "/"

	n := 0
	// look checks the page a session shows and keeps its screenshot.
	look := func(s *session, width int, name string) {
		t.Helper()
		n++
		if st, _ := strconv.Atoi(s.js(`String(performance.getEntriesByType("navigation")[0].responseStatus)`)); st >= 500 {
			t.Errorf("%s answered %d", name, st)
		}
		for _, bad := range untrue("it", s.js(`document.documentElement.outerHTML`)) {
			t.Errorf("%s (%s) shows %s", name, s.js(`location.pathname`), bad)
		}
		if width <= 400 {
			if w := s.js(`String(document.documentElement.scrollWidth)`); w != strconv.Itoa(width) {
				t.Errorf("%s is %spx wide on a %dpx phone: it scrolls sideways", name, w, width)
			}
		}
		size := "desktop"
		if width <= 400 {
			size = "phone"
		}
		s.shot(fmt.Sprintf("raduno-%03d-%s-%s", n, name, size))
	}
	flash := func(s *session, what string) {
		t.Helper()
		s.do(what, chromedp.WaitVisible(".flash"))
		if p := s.js(`(document.querySelector("#problem") || {innerText: ""}).innerText`); p != "" {
			t.Fatalf("%s: refused: %s", what, p)
		}
	}
	// submit sends a form by its button and waits for the page it leads
	// to (not this one).
	submit := func(s *session, what, button string) {
		t.Helper()
		s.do("mark "+what, chromedp.Evaluate[chromedp.Void](`document.body.dataset.sent = "1"`))
		s.do(what, chromedp.Click(button), chromedp.WaitNotPresent("body[data-sent]"), chromedp.WaitVisible("h1"))
	}

	// The administrator creates the tournament and appoints its officials.
	adm := newSession(t, bctx, base, shots, 1280, 900)
	adm.login(admin)
	adm.do("home", chromedp.Navigate(base+"/ui/"), chromedp.WaitVisible("#create"))
	look(adm, 1280, "creation")
	adm.do("fill creation", chromedp.SendKeys(`#create input[name="id"]`, tour), chromedp.SendKeys(`#create input[name="name"]`, "Raduno di Bologna"),
		chromedp.SetValue("#ruleset", "rur-2015"), chromedp.SendKeys(`#create input[name="season"]`, "2026"),
		chromedp.SetValue(`#create select[name="tournament_type"]`, "RADUNO_NAZIONALE"))
	submit(adm, "create", "#create button")
	flash(adm, "created")
	look(adm, 1280, "created")
	appoint := func(name, role string) string {
		t.Helper()
		adm.do("appoint "+role, chromedp.Navigate(tp), chromedp.WaitVisible("#appoint"), chromedp.SendKeys(`#appoint input[name="name"]`, name),
			chromedp.SetValue(`#appoint select[name="role"]`, role))
		submit(adm, "appoint "+role, "#appoint button")
		adm.do("token shown", chromedp.WaitVisible("#new-token"))
		look(adm, 1280, "appointed-"+role)
		return strings.TrimSpace(adm.js(`document.querySelector("#new-token code").innerText`))
	}
	arbToken, appealsToken := appoint("Arbitro capo", "arbiter"), appoint("Commissione d'appello", "appeals")
	adm.cancel()

	// The arbiter's desk: the entry list.
	arb := newSession(t, bctx, base, shots, 1280, 900)
	arb.login(arbToken)
	names := []string{"Mario Rossi", "Giulia Bianchi", "Luca Ferrari", "Sara Esposito", "Marco Russo", "Elena Romano", "Paolo Colombo",
		"Anna Ricci", "Giorgio Marino", "Chiara Greco", "Stefano Bruno", "Laura Gallo", "Andrea Conti", "Francesca De Luca", "Matteo Mancini"}
	clubs := []string{"Bologna Asinelli", "Modena Carri Armati", "Ferrara Estense", "Imola Dadi Rossi"}
	var csv strings.Builder
	csv.WriteString("player,name,club,region\n")
	for i, name := range names {
		fmt.Fprintf(&csv, "p%d,%s,%s,Emilia-Romagna\n", i+1, name, clubs[i%4])
	}
	players := tp + "players"
	arb.do("entry list", chromedp.Navigate(players), chromedp.WaitVisible("#import"))
	look(arb, 1280, "entry-list")
	arb.do("import", chromedp.SetValue(`#import textarea`, csv.String()))
	submit(arb, "import", "#import button")
	flash(arb, "imported")
	arb.do("register a minor", chromedp.SendKeys(`#register input[name="player"]`, "p16"), chromedp.SendKeys(`#register input[name="name"]`, "Tommaso Ricci"),
		chromedp.SendKeys(`#register input[name="club"]`, clubs[3]), chromedp.Click(`#register input[name="minor"]`),
		chromedp.SendKeys(`#register input[name="waiver"]`, "Dadi Rossi, il presidente"))
	submit(arb, "register", "#register button")
	flash(arb, "registered")
	look(arb, 1280, "minor-registered")
	arb.do("refuse", chromedp.SendKeys(`#refuse input[name="player"]`, "p99"), chromedp.SendKeys(`#refuse input[name="name"]`, "Nino Neri"),
		chromedp.SendKeys(`#refuse input[name="reason"]`, "Quota non versata"))
	submit(arb, "refuse", "#refuse button")
	flash(arb, "refused")
	arb.do("reserve", chromedp.Click("#player-actions summary"), chromedp.SendKeys(`#reserve input[name="player"]`, "r1"),
		chromedp.SendKeys(`#reserve input[name="name"]`, "Riccardo Riserva"), chromedp.SendKeys(`#reserve input[name="club"]`, clubs[1]))
	submit(arb, "reserve", "#reserve button")
	flash(arb, "reserve designated")
	submit(arb, "close the entry list", "#close button")
	flash(arb, "closed")
	look(arb, 1280, "entry-list-closed")

	// The players' links, printed.
	arb.do("links", chromedp.Navigate(tp+"links"), chromedp.WaitVisible("#issue"))
	submit(arb, "issue the links", "#issue button")
	arb.do("slips", chromedp.WaitVisible("#slip-p16 svg.qr"))
	look(arb, 1280, "links")
	var issued struct {
		Tokens []struct{ Player, Link string }
	}
	json.Unmarshal(reader.call("GET", "/v1/tournaments/"+tour+"/player-tokens", arbToken, "", 200), &issued)
	link := map[string]string{}
	for _, l := range issued.Tokens {
		link[l.Player] = base + l.Link
	}

	// The call of round 1: present, one late.
	arb.do("call", chromedp.Navigate(players), chromedp.WaitVisible("#player-p1"))
	for i := 1; i <= 16; i++ {
		sel := fmt.Sprintf(`#player-p%d button[name="present"]`, i)
		if i == 7 {
			arb.do("late", chromedp.SetValue(`#player-p7 input[name="minutes_late"]`, "8"))
		}
		submit(arb, "check in", sel)
	}
	look(arb, 1280, "call-round-1")

	tables := func(round int) [][]string {
		t.Helper()
		var out struct {
			Tables []struct{ Players []string } `json:"tables"`
		}
		json.Unmarshal(reader.call("GET", fmt.Sprintf("/v1/tournaments/%s/rounds/%d/tables", tour, round), "", "", 200), &out)
		var seats [][]string
		for _, tb := range out.Tables {
			seats = append(seats, tb.Players)
		}
		return seats
	}
	rolls := 0
	// settle records a die for every tie a page (the standings, the
	// tournament's page) offers one for.
	settle := func(page string) {
		t.Helper()
		for range 20 {
			arb.do("ties", chromedp.Navigate(page), chromedp.WaitVisible("h1"))
			if arb.js(`String(!!document.querySelector("#tie-0"))`) != "true" {
				return
			}
			if rolls == 0 {
				look(arb, 1280, "ties")
			}
			arb.do("roll", chromedp.Evaluate[chromedp.Void](`document.querySelectorAll("#tie-0 select").forEach((s, i) => s.value = String(6 - i % 6))`))
			submit(arb, "record the roll", "#tie-0 button")
			flash(arb, "rolled")
			rolls++
		}
		t.Fatal("ties still offered after twenty rolls")
	}
	// draw drafts round r, draws it again, and confirms it.
	draw := func(r int, again bool) {
		t.Helper()
		settle(tp + "standings")
		round := fmt.Sprintf("%srounds/%d", tp, r)
		arb.do("round", chromedp.Navigate(round), chromedp.WaitVisible("#draw"))
		submit(arb, "draft", "#draw button")
		arb.do("the draft", chromedp.WaitVisible("#draft"))
		if p := arb.js(`(document.querySelector("#problem") || {innerText: ""}).innerText`); p != "" {
			t.Fatalf("the draft of round %d: %s", r, p)
		}
		look(arb, 1280, fmt.Sprintf("draft-round-%d", r))
		if again {
			submit(arb, "draw again", "#redraw button")
			arb.do("the new draft", chromedp.WaitVisible("#draft"))
			arb.do("by hand", chromedp.Click("#by-hand summary"))
			submit(arb, "check by hand", "#adjust button")
			arb.do("the checked draft", chromedp.WaitVisible("#draft"))
			look(arb, 1280, fmt.Sprintf("draft-by-hand-round-%d", r))
		}
		submit(arb, "confirm", "#confirm-draw button")
		flash(arb, "drawn")
		look(arb, 1280, fmt.Sprintf("round-%d", r))
	}
	points := []int{50, 42, 30, 21}
	// report enters table tb of round r at the desk: seat i scores
	// points[i].
	report := func(r, tb int) {
		t.Helper()
		arb.do("report form", chromedp.Navigate(fmt.Sprintf("%srounds/%d/tables/%d", tp, r, tb)), chromedp.WaitVisible("#result"))
		for i, pts := range points {
			arb.do("fill", chromedp.SetValue(fmt.Sprintf(`#result input[name="players[%d].table_points"]`, i), strconv.Itoa(pts)))
		}
		if r == 1 && tb == 2 {
			look(arb, 1280, "report-form")
		}
		submit(arb, "record", "#save-result")
		flash(arb, "recorded")
	}

	draw(1, true)
	r1 := tables(1)
	arb.do("turn order", chromedp.Navigate(tp+"rounds/1"), chromedp.WaitVisible("#table-1"), chromedp.Click("#table-1 details.table-action summary"))
	submit(arb, "record the turn order", "#turn-order-1 button")
	flash(arb, "turn order")

	// Table 1 reports itself from four phones.
	var phones []*session
	for _, p := range r1[0] {
		ph := newSession(t, bctx, base, shots, 390, 844)
		ph.do("join "+p, chromedp.Navigate(link[p]), chromedp.WaitVisible("#my-table"))
		phones = append(phones, ph)
	}
	look(phones[0], 390, "player-phone")
	steps := []chromedp.Action[chromedp.Void]{chromedp.WaitVisible("#propose")}
	for i, pts := range points {
		steps = append(steps, chromedp.SetValue(fmt.Sprintf(`#propose input[name="players[%d].table_points"]`, i), strconv.Itoa(pts)))
	}
	phones[0].do("fill the proposal", steps...)
	submit(phones[0], "propose", "#propose-submit")
	flash(phones[0], "proposed")
	look(phones[0], 390, "proposed")
	for i, ph := range phones[1:] {
		ph.until("the proposal reaches the phone", `!!document.querySelector("#confirm")`)
		if i == 0 {
			if got := ph.js(`document.querySelector("#my-proposal table.figures").innerText`); !strings.Contains(got, "50") || !strings.Contains(got, "Punti fuori obiettivo") {
				t.Errorf("the phone confirming does not see every figure:\n%s", got)
			}
			look(ph, 390, "to-confirm")
		}
		submit(ph, "confirm", "#confirm button")
		flash(ph, "confirmed")
	}
	look(phones[3], 390, "confirmed")
	for _, ph := range phones {
		ph.cancel()
	}
	arb.do("ready", chromedp.Navigate(tp+"rounds/1"), chromedp.WaitVisible("#record-1"))
	look(arb, 1280, "proposal-ready")
	submit(arb, "record the proposal", "#record-1 button")
	flash(arb, "recorded from the phones")
	for tb := 2; tb <= 4; tb++ {
		report(1, tb)
	}
	look(arb, 1280, "round-1-reported")

	// A sanction, and a withdrawal after game 1.
	sanctioned := r1[1][2]
	arb.do("sanctions", chromedp.Navigate(tp+"sanctions"), chromedp.WaitVisible("#impose"),
		chromedp.SetValue(`#impose select[name="player"]`, sanctioned), chromedp.SetValue(`#impose input[name="table"]`, "2"),
		chromedp.SetValue(`#impose select[name="kind"]`, "reminder"), chromedp.SetValue(`#impose select[name="offence"]`, "rur-2015 art. 33"),
		chromedp.SendKeys(`#impose input[name="reason"]`, "Consigli a un avversario"))
	submit(arb, "impose", "#impose button")
	flash(arb, "sanctioned")
	look(arb, 1280, "sanctions")
	withdrawn := r1[2][3]
	arb.do("withdrawal", chromedp.Navigate(players), chromedp.WaitVisible("#player-actions"), chromedp.Click("#player-actions summary"),
		chromedp.SetValue(`#withdraw select[name="player"]`, withdrawn), chromedp.SetValue(`#withdraw select[name="scope"]`, "tournament"),
		chromedp.SetValue(`#withdraw select[name="reason"]`, "force_majeure"))
	submit(arb, "withdraw", "#withdraw button")
	flash(arb, "withdrawn")
	look(arb, 1280, "withdrawal")

	// Game 2: the reserve takes the seat the withdrawal left.
	draw(2, false)
	r2 := tables(2)
	seated := false
	for _, tb := range r2 {
		seated = seated || strings.Contains(strings.Join(tb, " "), "r1")
	}
	if !seated {
		t.Errorf("the reserve is not seated in game 2: %v", r2)
	}
	for tb := 1; tb <= 4; tb++ {
		report(2, tb)
	}
	arb.do("standings", chromedp.Navigate(tp+"standings"), chromedp.WaitVisible("#standings"))
	look(arb, 1280, "standings-after-qualifying")

	// The semifinals.
	draw(3, false)
	r3 := tables(3)
	for tb := 1; tb <= 4; tb++ {
		report(3, tb)
	}

	// A contestation of a semifinal's report, ruled by the appeals
	// committee.
	arb.do("the report", chromedp.Navigate(tp+"rounds/3/tables/1"), chromedp.WaitVisible(`a[href*="contestations?against="]`))
	arb.do("contest", chromedp.Click(`a[href*="contestations?against="]`), chromedp.WaitVisible("#file"),
		chromedp.SendKeys(`#file input[name="claim"]`, "Le armate del secondo erano più di quelle scritte"),
		chromedp.SetValue(`#file select[name="by"]`, r3[0][1]))
	submit(arb, "file", "#file button")
	flash(arb, "filed")
	look(arb, 1280, "contestation-filed")
	app := newSession(t, bctx, base, shots, 1280, 900)
	app.login(appealsToken)
	app.do("contestations", chromedp.Navigate(tp+"contestations"), chromedp.WaitVisible("#rule-c1"),
		chromedp.SetValue(`#rule-c1 select[name="upheld"]`, "false"), chromedp.SendKeys(`#rule-c1 input[name="ruling"]`, "Il referto firmato al tavolo fa fede"))
	look(app, 1280, "contestation-to-rule")
	submit(app, "rule", "#rule-c1 button")
	flash(app, "ruled")
	look(app, 1280, "contestation-ruled")

	// A semifinal winner renounces the final: the second of his table is
	// repechaged.
	renouncer, second := r3[0][0], r3[0][1]
	arb.do("renunciation", chromedp.Navigate(players), chromedp.WaitVisible("#player-actions"), chromedp.Click("#player-actions summary"),
		chromedp.SetValue(`#renounce select[name="player"]`, renouncer), chromedp.SetValue(`#renounce select[name="phase"]`, "final"),
		chromedp.SendKeys(`#renounce input[name="reason"]`, "Deve partire"))
	submit(arb, "renounce", "#renounce button")
	flash(arb, "renounced")
	look(arb, 1280, "renunciation")

	// The final.
	draw(4, false)
	final := tables(4)[0]
	if slices.Contains(final, renouncer) || !slices.Contains(final, second) {
		t.Errorf("the final seats %s: want %s repechaged in place of %s", strings.Join(final, " "), second, renouncer)
	}
	report(4, 1)

	// The appeals committee reads the record of the day.
	app.do("event log", chromedp.Navigate(tp+"events?from=1"), chromedp.WaitVisible("#events"))
	look(app, 1280, "event-log")
	app.do("event log, the end", chromedp.Navigate(tp+"events?from=60"), chromedp.WaitVisible("#events"))
	if got := app.js(`document.querySelector("#events").innerText`); !strings.Contains(got, "Ripescaggio") || !strings.Contains(got, "Rinuncia") {
		t.Errorf("the event log does not read as a record of the repechage:\n%.2000s", got)
	}
	look(app, 1280, "event-log-repechage")
	app.cancel() // the committee is done: its tab and live stream close

	// Ties settled, the classification published, provisional then final,
	// and the tournament closed.
	settle(tp)
	arb.do("overview", chromedp.Navigate(tp), chromedp.WaitVisible("#publish"))
	submit(arb, "publish provisional", "#publish button")
	flash(arb, "published")
	arb.do("classification", chromedp.Navigate(tp+"classification"), chromedp.WaitVisible("#classification"))
	if h := arb.js(`document.querySelector("h1").innerText`); h != "Classifica provvisoria" {
		t.Errorf("a provisional classification is headed %q", h)
	}
	look(arb, 1280, "classification-provisional")
	arb.do("overview", chromedp.Navigate(tp), chromedp.WaitVisible("#publish"), chromedp.Click(`#publish input[name="final"]`))
	submit(arb, "publish final", "#publish button")
	flash(arb, "published final")
	arb.do("close", chromedp.WaitVisible("#close-tournament"), chromedp.SendKeys(`#close-tournament input[name="reason"]`, "Raduno concluso"))
	submit(arb, "close", "#close-tournament button")
	flash(arb, "closed")
	look(arb, 1280, "closed")
	if rolls == 0 {
		t.Error("no tie was settled with the die: the test proves nothing about it")
	}

	// What everyone reads at the end, on a phone and at the desk.
	visitor := newSession(t, bctx, base, shots, 390, 844)
	for _, page := range []string{"classification", "standings", "", "rounds/4", "contestations", "sanctions"} {
		visitor.visit(page, tp+page, "h1")
		look(visitor, 390, "visitor-"+strings.ReplaceAll(cmpOr(page, "overview"), "/", "-"))
		arb.visit(page, tp+page, "h1")
		look(arb, 1280, "arbiter-"+strings.ReplaceAll(cmpOr(page, "overview"), "/", "-"))
	}
	if h := visitor.js(`document.querySelector("h1").innerText`); h == "" {
		t.Error("no heading on the visitor's last page")
	}
	arb.visit("venue screen", tp+"screen", ".panel.shown")
	look(arb, 1280, "venue-screen")
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
