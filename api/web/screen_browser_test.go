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
			seats = append(seats, fmt.Sprintf(`{"player":%q,"turn":%d,"table_points":%d,"status":"finished"}`, p, i+1, 50-10*i))
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

// TestVenueScreenScoresBesideTheirNames: on the venue screen every score
// sits on its own player's row, whatever the length of the names, at
// 1920×1080 and at 1280×720: each score's box is level with its name's
// (their vertical extents overlap) and to its right, inside the row; the
// tables' cards fill the screen's width; once every report is in, the
// round's clock stops at the last one.
func TestVenueScreenScoresBesideTheirNames(t *testing.T) {
	shots, bctx := browserTest(t)
	_, srv := apitest.Serve(t, t.TempDir(), admin)
	base := srv.URL
	api := apiClient{t: t, base: base}
	const tour = "torneo-nomi-lunghi"
	cmds := "/v1/tournaments/" + tour + "/commands"
	api.call("POST", "/v1/tournaments", admin, `{"id":"torneo-nomi-lunghi","name":"Torneo dei nomi lunghi","ruleset":"rtu","params":{"qualifying_rounds":2,"knockout":"none"}}`, 201)
	var appointed struct{ Token string }
	json.Unmarshal(api.call("POST", "/v1/tournaments/"+tour+"/officials", admin, `{"name":"Arbitro capo","role":"arbiter"}`, 201), &appointed)
	arb := appointed.Token
	names := []string{"Anna Maria Ricci Bellavista di Montecatini Terme", "Bo", "Giovanni Battista Esposito della Valle Scura", "Lu",
		"Maria Carolina Francesca Colombo Visconti", "Ugo", "Pierfrancesco Alessandro Romano de' Medici", "Ida"}
	for i, n := range names {
		api.call("POST", cmds, arb, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%d","name":%q,"club":"Club %d"}`, i+1, n, i%4), 201)
	}
	api.call("POST", cmds, arb, `{"type":"CloseRegistration"}`, 201)
	api.call("POST", cmds, arb, `{"type":"DrawTables","round":1,"seed":"nomi"}`, 201)
	var tables struct {
		Tables []struct{ Players []string } `json:"tables"`
	}
	json.Unmarshal(api.call("GET", "/v1/tournaments/"+tour+"/rounds/1/tables", "", "", 200), &tables)
	for n, tb := range tables.Tables {
		var seats []string
		for i, p := range tb.Players {
			seats = append(seats, fmt.Sprintf(`{"player":%q,"turn":%d,"table_points":%d,"status":"finished"}`, p, i+1, 51-10*i))
		}
		api.call("POST", cmds, arb, fmt.Sprintf(`{"type":"RecordResult","round":1,"table":%d,"closed_by":"time","players":[%s]}`, n+1, strings.Join(seats, ",")), 201)
	}

	// misplaced lists the rows of the shown panel whose score is not
	// level with, and to the right of, its name.
	const misplaced = `(() => {
		const bad = [];
		document.querySelectorAll(".panel.shown li").forEach(li => {
			const n = li.querySelector(".name").getBoundingClientRect(), s = li.querySelector(".score").getBoundingClientRect(), r = li.getBoundingClientRect();
			const level = s.top < n.bottom && s.bottom > n.top && s.top >= r.top - 1 && s.bottom <= r.bottom + 1;
			if (!level || s.left < n.right - 1 || s.right > r.right + 1) bad.push(li.innerText.replace(/\n/g, " ") + " " + JSON.stringify({name: [n.left, n.top, n.right, n.bottom], score: [s.left, s.top, s.right, s.bottom]}));
		});
		return JSON.stringify(bad);
	})()`
	for _, size := range []struct{ w, h int64 }{{1920, 1080}, {1280, 720}} {
		screen := newSession(t, bctx, base, shots, size.w, size.h)
		screen.do("screen", chromedp.Navigate(base+"/ui/t/"+tour+"/screen?rotate=3600"), chromedp.WaitVisible(".panel.shown"))
		for _, panel := range []string{"results", "standings"} {
			screen.do("show "+panel, chromedp.Evaluate[chromedp.Void](`document.querySelectorAll("#panels .panel").forEach(p => p.classList.toggle("shown", p.dataset.panel === "`+panel+`"))`))
			if n := screen.js(`String(document.querySelectorAll(".panel.shown li .score").length)`); n != "8" {
				t.Errorf("%dx%d %s: %s scores shown, want 8", size.w, size.h, panel, n)
			}
			if wrapped := screen.js(`String(Array.from(document.querySelectorAll(".panel.shown li .name")).some(e => e.getClientRects().length > 1 || e.getBoundingClientRect().height > 1.5 * parseFloat(getComputedStyle(e).lineHeight)))`); wrapped != "true" && size.w == 1280 {
				t.Errorf("%dx%d %s: no name wraps, so the test proves nothing about wrapping", size.w, size.h, panel)
			}
			if bad := screen.js(misplaced); bad != "[]" {
				t.Errorf("%dx%d %s: scores beside the wrong names: %s", size.w, size.h, panel, bad)
			}
			screen.shot(fmt.Sprintf("24-venue-screen-long-names-%s-%dx%d", panel, size.w, size.h))
		}
		// The cards fill the width of the screen: the last card of the
		// first row ends where the grid does.
		if gap := screen.js(`(() => {
			const grid = document.querySelector(".panel.shown .screen, #panels .screen"), cards = grid.querySelectorAll(".screen-table");
			return String(Math.round(grid.getBoundingClientRect().right - cards[cards.length - 1].getBoundingClientRect().right));
		})()`); gap != "0" {
			t.Errorf("%dx%d: the tables' cards leave %spx of the screen empty", size.w, size.h, gap)
		}
		// Every report is in: the clock stands at the last one.
		if got := screen.js(`document.querySelector("#clock").dataset.until ? "stopped" : "running"`); got != "stopped" {
			t.Errorf("%dx%d: with every report in, the round's clock is %s", size.w, size.h, got)
		}
		screen.cancel()
	}
}
