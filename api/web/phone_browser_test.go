package web_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/referto/referto/api/apitest"
)

// TestListsOfSentencesReadOnAPhone: on a 390 px phone the contestations
// and the sanctions, whose columns are sentences (a claim, the rule that
// judged it, a reason), are read a row at a time: every cell as wide as
// the row's card, headed by its column, and no page scrolls sideways; a
// ruleset's parameters each take the page's width under their names; the
// appeals committee rules on a phone as on a laptop.
func TestListsOfSentencesReadOnAPhone(t *testing.T) {
	shots, bctx := browserTest(t)
	_, srv := apitest.Serve(t, t.TempDir(), admin)
	base := srv.URL
	api := apiClient{t: t, base: base}
	const tour = "torneo-telefono"
	cmds := "/v1/tournaments/" + tour + "/commands"
	api.call("POST", "/v1/tournaments", admin, `{"id":"torneo-telefono","name":"Torneo al telefono","ruleset":"rtu"}`, 201)
	var appointed struct{ Token string }
	json.Unmarshal(api.call("POST", "/v1/tournaments/"+tour+"/officials", admin, `{"name":"Arbitro capo","role":"arbiter"}`, 201), &appointed)
	arb := appointed.Token
	for i, n := range []string{"Anna Ricci", "Bruno Esposito", "Carla Colombo", "Dario Romano"} {
		api.call("POST", cmds, arb, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%d","name":%q}`, i+1, n), 201)
	}
	api.call("POST", cmds, arb, `{"type":"CloseRegistration"}`, 201)
	api.call("POST", cmds, arb, `{"type":"DrawTables","round":1,"tables":[{"table":1,"players":["p1","p2","p3","p4"]}]}`, 201)
	var recorded struct{ Seq int }
	json.Unmarshal(api.call("POST", cmds, arb, report("RecordResult", 1, 1, []string{"p1", "p2", "p3", "p4"}, 58, 52, 33, 21), 201), &recorded)
	api.call("POST", cmds, arb, `{"type":"ImposeSanction","player":"p2","round":1,"table":1,"kind":"warning","article":"rtu art. 12","reason":"Consigli a un avversario durante il turno di gioco"}`, 201)
	api.call("POST", cmds, arb, fmt.Sprintf(`{"type":"FileContestation","against":%d,"claim":"I punti tavolo del secondo e del primo sono stati scambiati sul referto","by":"p2"}`, recorded.Seq), 201)

	phone := newSession(t, bctx, base, shots, 390, 844)
	phone.login(arb)
	// narrow lists the cells of the page's stacked lists narrower than
	// their row, and whether the page scrolls sideways.
	const narrow = `(() => {
		const bad = [];
		document.querySelectorAll("table.stack td").forEach(td => {
			const c = td.getBoundingClientRect(), r = td.parentElement.getBoundingClientRect();
			if (c.width < r.width - 4) bad.push(td.innerText.slice(0, 30) + " " + Math.round(c.width) + "px of " + Math.round(r.width));
		});
		if (document.documentElement.scrollWidth > window.innerWidth) bad.push("the page scrolls sideways: " + document.documentElement.scrollWidth + "px");
		return JSON.stringify(bad);
	})()`
	for _, page := range []struct{ name, path, ready string }{
		{"contestations", "contestations", "#contestation-c1"},
		{"sanctions", "sanctions", "#ladder-p2"},
	} {
		phone.do(page.name, chromedp.Navigate(base+"/ui/t/"+tour+"/"+page.path), chromedp.WaitVisible(page.ready))
		if n := phone.js(`String(document.querySelectorAll("table.stack td").length)`); n == "0" {
			t.Errorf("%s: no list to read", page.name)
		}
		if bad := phone.js(narrow); bad != "[]" {
			t.Errorf("%s at 390 px: %s", page.name, bad)
		}
		if got := phone.js(`getComputedStyle(document.querySelector("table.stack td[data-label]"), "::before").content`); got == "none" || got == "" {
			t.Errorf("%s at 390 px: a cell is not headed by its column (%q)", page.name, got)
		}
		phone.shot("phone-" + page.name)
	}
	// A ruleset's parameters: each value as wide as the page, not beside
	// the longest parameter's name.
	phone.do("overview", chromedp.Navigate(base+"/ui/t/"+tour+"/"), chromedp.WaitVisible("#params"))
	if bad := phone.js(`JSON.stringify(Array.from(document.querySelectorAll("#params dd")).filter(dd => dd.getBoundingClientRect().width < 0.8 * document.querySelector("#params").getBoundingClientRect().width).map(dd => dd.dataset.param + " " + Math.round(dd.getBoundingClientRect().width) + "px"))`); bad != "[]" {
		t.Errorf("the ruleset's parameters at 390 px, squeezed: %s", bad)
	}
	if bad := phone.js(narrow); bad != "[]" {
		t.Errorf("overview at 390 px: %s", bad)
	}
	phone.shot("phone-overview")
	// The ruling form fits the phone too.
	phone.do("open the report's correction", chromedp.Navigate(base+"/ui/t/"+tour+"/contestations"), chromedp.WaitVisible("#rule-c1"),
		chromedp.Click("#amend summary"), chromedp.WaitVisible(`#rule-c1 input[name="players[0].table_points"]`))
	if bad := phone.js(narrow); bad != "[]" {
		t.Errorf("the ruling form at 390 px: %s", bad)
	}
	phone.shot("phone-ruling")
}
