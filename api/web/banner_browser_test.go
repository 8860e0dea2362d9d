package web_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/referto/referto/api/apitest"
)

// TestEveryFormOfAPageIsItsOwnCommand drives, in a real browser, two forms
// of one rendered page one after the other, as an arbiter with the page
// still open does: register a player then close registration (the entry
// list), appoint an official then publish the classification (the
// overview). Each form is its own command, and the banner says what the
// ledger answered: registration is closed when it says so, the
// classification published when it says so, or the refusal is shown.
func TestEveryFormOfAPageIsItsOwnCommand(t *testing.T) {
	shots, ctx := browserTest(t)
	_, srv := apitest.Serve(t, t.TempDir(), admin)
	base := srv.URL

	desk := &session{t: t, ctx: ctx, base: base, shots: shots} // the browser's first tab
	do, text, shot := desk.do, desk.js, desk.shot
	// sendInPlace submits a form of the page without leaving it, as a
	// second tab or a form sent before the page reloads would: the page,
	// and every other form on it, stays as rendered.
	sendInPlace := func(form string) {
		t.Helper()
		f := `document.querySelector("` + form + `")`
		status, err := evaluate(ctx, `fetch(`+f+`.action, {method: "POST", body: new URLSearchParams(new FormData(`+f+`))}).then(r => String(r.status))`, chromedp.EvalAwaitPromise)
		if err != nil || status != "200" {
			t.Fatalf("%s sent in place: %s %v", form, status, err)
		}
	}
	// ledger is the tournament's event types, as the API serves them.
	ledger := func() string {
		t.Helper()
		req, _ := http.NewRequest("GET", base+"/v1/tournaments/banner/events", nil)
		req.Header.Set("Authorization", "Bearer "+admin)
		res, err := httpClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var page struct {
			Events []struct {
				Type string `json:"type"`
			} `json:"events"`
		}
		if err := json.NewDecoder(res.Body).Decode(&page); err != nil {
			t.Fatal(err)
		}
		var types []string
		for _, e := range page.Events {
			types = append(types, e.Type)
		}
		return strings.Join(types, " ")
	}

	do("english", chromedp.Navigate(base+"/ui/lang/en"), chromedp.WaitVisible("h1"))
	do("log in", chromedp.Navigate(base+"/ui/login"), chromedp.WaitVisible("#token"),
		chromedp.SendKeys("#token", admin), chromedp.Click("#login"), chromedp.WaitVisible("#who"))
	do("create", chromedp.Navigate(base+"/ui/"), chromedp.WaitVisible("#create"),
		chromedp.SendKeys(`#create input[name="id"]`, "banner"), chromedp.SendKeys(`#create input[name="name"]`, "Banner"),
		chromedp.SetValue("#ruleset", "rtu"), chromedp.Click("#create button"), chromedp.WaitVisible("#appoint"))
	if got := text(`document.querySelector(".flash").innerText`); !strings.Contains(got, "Tournament created") {
		t.Errorf("after the creation the banner says %q", got)
	}

	// The entry list: register p001 from the page, then close registration
	// from the same page.
	do("players", chromedp.Navigate(base+"/ui/t/banner/players"), chromedp.WaitVisible("#register"), chromedp.WaitVisible("#close"))
	do("fill register", chromedp.SendKeys(`#register input[name="player"]`, "p001"), chromedp.SendKeys(`#register input[name="name"]`, "Mario Rossi"))
	sendInPlace("#register")
	submit := func(what, button string) {
		t.Helper()
		// Wait for the page the form leads to, not this one.
		text(`document.body.dataset.sent = "1"; "ok"`)
		do(what, chromedp.Click(button), chromedp.WaitNotPresent("body[data-sent]"), chromedp.WaitVisible("h1"))
	}
	submit("close", "#close button")
	shot("banner-01-close")
	flash := text(`(document.querySelector(".flash") || {innerText: ""}).innerText`)
	problem := text(`(document.querySelector("#problem") || {innerText: ""}).innerText`)
	events := ledger()
	switch {
	case !strings.Contains(events, "PlayerRegistered"):
		t.Errorf("the registration sent from the page did not happen: %s", events)
	case strings.Contains(events, "RegistrationClosed"):
		if !strings.Contains(flash, "Registration closed") {
			t.Errorf("registration closed, the banner says %q (problem %q)", flash, problem)
		}
		if n := text(`String(document.querySelectorAll("#register").length)`); n != "0" {
			t.Error("registration is closed but the page still offers it")
		}
	default:
		t.Errorf("registration is still open (ledger: %s); the banner says %q, the problem %q", events, flash, problem)
	}

	// The overview: appoint an official from the page, then publish the
	// classification from the same page.
	do("overview", chromedp.Navigate(base+"/ui/t/banner/"), chromedp.WaitVisible("#appoint"), chromedp.WaitVisible("#publish"))
	do("fill appoint", chromedp.SendKeys(`#appoint input[name="name"]`, "Arbitro"))
	sendInPlace("#appoint")
	before := ledger()
	submit("publish", "#publish button")
	shot("banner-02-publish")
	flash = text(`(document.querySelector(".flash") || {innerText: ""}).innerText`)
	problem = text(`(document.querySelector("#problem") || {innerText: ""}).innerText`)
	after := ledger()
	published := strings.Count(after, "ClassificationPublished") > strings.Count(before, "ClassificationPublished")
	if !strings.Contains(before, "OfficialAppointed OfficialAppointed") && !strings.HasSuffix(before, "OfficialAppointed") {
		t.Errorf("the appointment sent from the page did not happen: %s", before)
	}
	switch {
	case published && !strings.Contains(flash, "Classification published"):
		t.Errorf("published, the banner says %q (problem %q)", flash, problem)
	case !published && strings.Contains(flash, "published"):
		t.Errorf("nothing was published (ledger: %s), yet the banner says %q", after, flash)
	case !published && problem == "":
		t.Errorf("nothing was published (ledger: %s) and no refusal is shown; banner %q", after, flash)
	}
}
