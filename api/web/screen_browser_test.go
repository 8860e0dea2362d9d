package web_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/referto/referto/api/apitest"
)

// TestVenueScreenIsLiveInABrowser opens the venue screen
// right after a draw and leaves it alone on a 1920×1080 screen while the
// arbiter records the round's reports and draws the next round through the
// API. The whole screen follows by itself, without a reload: the heading
// (round number, the round's clock, "x/N reports in") as well as the
// panels. Right after the draw it shows who sits where; with some reports
// in, the tables, the latest results and the standings take turns (every
// second here: ?rotate=1); with every report in, results and standings; the
// next draw brings the next round's number, a clock from its draw and its
// tables.
func TestVenueScreenIsLiveInABrowser(t *testing.T) {
	shots, bctx := browserTest(t)
	_, srv := apitest.Serve(t, t.TempDir(), admin)
	base := srv.URL
	api := apiClient{t: t, base: base}
	const tour = "torneo-schermo"
	cmds := "/v1/tournaments/" + tour + "/commands"

	api.call("POST", "/v1/tournaments", admin, `{"id":"torneo-schermo","name":"Torneo in sala","ruleset":"rtu","params":{"qualifying_rounds":2,"knockout":"none"}}`, 201)
	var appointed struct{ Token string }
	json.Unmarshal(api.call("POST", "/v1/tournaments/"+tour+"/officials", admin, `{"name":"Arbitro capo","role":"arbiter"}`, 201), &appointed)
	arb := appointed.Token
	for i := 1; i <= 8; i++ {
		api.call("POST", cmds, arb, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%d","name":"Giocatore %d","club":"Club %d"}`, i, i, i%4), 201)
	}
	api.call("POST", cmds, arb, `{"type":"CloseRegistration"}`, 201)
	api.call("POST", cmds, arb, `{"type":"DrawTables","round":1,"seed":"sala-1"}`, 201)
	record := func(round, table int) {
		t.Helper()
		var tables struct {
			Tables []struct{ Players []string } `json:"tables"`
		}
		json.Unmarshal(api.call("GET", fmt.Sprintf("/v1/tournaments/%s/rounds/%d/tables", tour, round), "", "", 200), &tables)
		var seats []string
		for i, p := range tables.Tables[table-1].Players {
			seats = append(seats, fmt.Sprintf(`{"player":%q,"turn":%d,"table_points":%d,"status":"finished"}`, p, i+1, 60-10*i))
		}
		api.call("POST", cmds, arb, fmt.Sprintf(`{"type":"RecordResult","round":%d,"table":%d,"closed_by":"time","players":[%s]}`,
			round, table, strings.Join(seats, ",")), 201)
	}

	screen := newSession(t, bctx, base, shots, 1920, 1080)
	screen.do("screen", chromedp.Navigate(base+"/ui/t/"+tour+"/screen?rotate=1"), chromedp.WaitVisible(".panel.shown"),
		chromedp.Evaluate[chromedp.Void](`window.__noReload = true`))
	heading := func() string {
		return screen.js(`document.querySelector("#screen-round").innerText + " · " + document.querySelector("#progress").innerText`)
	}
	// Right after the draw: who sits where, and nothing else.
	if got := screen.js(`document.querySelector("#panels").dataset.panels + "/" + document.querySelector(".panel.shown").dataset.panel`); got != "tables/tables" {
		t.Errorf("right after the draw the screen shows %q, want the tables alone", got)
	}
	if got := heading(); got != "1 · 0/2 referti arrivati" {
		t.Errorf("right after the draw the heading says %q", got)
	}
	if n := screen.js(`String(document.querySelectorAll("#panels .screen-table").length)`); n != "2" {
		t.Errorf("%s tables on the screen, want 2", n)
	}
	screen.until("the clock ticks", `/^\d+:\d\d:\d\d$/.test(document.querySelector("#clock .ticks").innerText)`)
	screen.shot("21-venue-screen-after-draw")

	// A first report: the heading counts it, and the panels take turns.
	record(1, 1)
	screen.until("the heading counts the first report", `document.querySelector("#progress").innerText.startsWith("1/2")`)
	screen.until("the results join the tables", `document.querySelector("#panels").dataset.panels === "tables results standings"`)
	screen.until("the panels take turns", `(() => {
		const shown = document.querySelectorAll("#panels .panel.shown");
		if (shown.length !== 1) return false;
		(window.__seen = window.__seen || new Set()).add(shown[0].dataset.panel);
		return window.__seen.size === 3;
	})()`)
	screen.until("the results panel shown", `document.querySelector(".panel.shown").dataset.panel === "results"`)
	if got := screen.js(`document.querySelector(".panel.shown").innerText`); !strings.Contains(got, "Tavolo 1") || strings.Contains(got, "Tavolo 2") {
		t.Errorf("the latest results after table 1's report: %q", got)
	}
	screen.shot("22-venue-screen-first-results")

	// Every report in: results and standings.
	record(1, 2)
	screen.until("every report in", `document.querySelector("#progress").innerText.startsWith("2/2") && document.querySelector("#panels").dataset.panels === "results standings"`)

	// The next round: its number, its clock, its tables.
	api.call("POST", cmds, arb, `{"type":"DrawTables","round":2,"seed":"sala-2"}`, 201)
	screen.until("the screen follows to round 2", `document.querySelector("#screen-round").innerText === "2" && document.querySelector("#panels").dataset.panels === "tables"`)
	if got := heading(); got != "2 · 0/2 referti arrivati" {
		t.Errorf("after round 2's draw the heading says %q", got)
	}
	screen.until("round 2's clock ticks", `/^\d+:\d\d:\d\d$/.test(document.querySelector("#clock .ticks").innerText)`)
	if screen.js(`String(window.__noReload === true)`) != "true" {
		t.Error("the screen reloaded instead of updating in place")
	}
	screen.shot("23-venue-screen-round-2")
}
