package web_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"golang.org/x/mod/sumdb/note"

	"github.com/referto/referto/api"
	"github.com/referto/referto/api/apitest"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/proof"
)

// session is one browser session (its own cookies): an arbiter at the
// desk, or one player's phone.
type session struct {
	t      *testing.T
	ctx    context.Context
	cancel context.CancelFunc
	base   string
	shots  string
}

// newSession opens a session of its own in the browser bctx, with the
// given viewport.
func newSession(t *testing.T, bctx context.Context, base, shots string, w, h int64) *session {
	t.Helper()
	ctx, cancel := chromedp.NewContext(bctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil { // opens the tab, for as long as the test
		t.Fatalf("a session of its own: %v", err)
	}
	s := &session{t: t, ctx: ctx, cancel: cancel, base: base, shots: shots}
	// Italian, as at the venue (a browser context of its own asks for
	// English otherwise).
	s.do("viewport", chromedp.EmulateViewport(w, h), chromedp.Navigate(base+"/ui/lang/it"), chromedp.WaitVisible("h1"))
	return s
}

func (s *session) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	s.t.Helper()
	if err := step(s.ctx, steps...); err != nil {
		stepFailed(s.t, s.ctx, what, err)
	}
}

// visit opens url in the session as a link followed does, and waits until
// the new page has loaded whole and shows selector. It asks the page
// itself, by evaluations alone: the old page is marked, and gone when the
// new one stands in its place. It does not rely on chromedp following the
// tab's frames and documents through the browser's events, which a loaded
// machine has been seen to lose (a tab whose new page had loaded, while
// chromedp still waited for it).
func (s *session) visit(what, url, selector string) {
	s.t.Helper()
	u, _ := json.Marshal(url)
	sel, _ := json.Marshal(selector)
	if _, err := evaluate(s.ctx, `document.documentElement.dataset.left = "1"; location.href = `+string(u)); err != nil {
		stepFailed(s.t, s.ctx, what, err)
	}
	loaded := `String(document.documentElement.dataset.left === undefined && document.readyState === "complete" && document.querySelector(` + string(sel) + `) !== null)`
	deadline := time.Now().Add(stepTime)
	for {
		ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](loaded))
		cancel()
		if err == nil && v == "true" {
			return
		}
		if time.Now().After(deadline) {
			stepFailed(s.t, s.ctx, what, fmt.Errorf("%w: the page at %s has not loaded (%q, %v)", context.DeadlineExceeded, url, v, err))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (s *session) js(expr string) string {
	s.t.Helper()
	v, err := evaluate(s.ctx, expr)
	if err != nil {
		s.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// until waits for a JavaScript condition to hold.
func (s *session) until(what, expr string) {
	s.t.Helper()
	if _, err := chromedp.Run(s.ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		stepFailed(s.t, s.ctx, what, err)
	}
}

func (s *session) shot(name string) {
	s.t.Helper()
	png, err := screenshot(s.ctx)
	if err != nil {
		s.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(s.shots, name+".png"), png, 0o644); err != nil {
		s.t.Fatal(err)
	}
}

func (s *session) login(token string) {
	s.t.Helper()
	s.do("log in", chromedp.Navigate(s.base+"/ui/login"), chromedp.WaitVisible("#token"),
		chromedp.SendKeys("#token", token), chromedp.Click("#login"), chromedp.WaitVisible("#who"))
}

// apiClient sends the setup's commands straight to the API.
type apiClient struct {
	t    *testing.T
	base string
}

func (c apiClient) call(method, path, token, body string, want int) []byte {
	c.t.Helper()
	req, _ := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := httpClient().Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		c.t.Fatalf("%s %s: %d, want %d: %s", method, path, res.StatusCode, want, b)
	}
	return b
}

// TestPlayersServeThemselvesInABrowser drives the players' side of a
// tournament and the arbiter's, each in a browser session of its own:
//
//   - check-in at the call by a typed code, and by a scanned personal link;
//   - a player's phone view (390×844): table, seat, standings, live updates
//     with no reload;
//   - a table of four reporting from four phones: one proposes, a refusal
//     said in Italian, three confirm; the arbiter sees it ready and records
//     it with one click, and the result names the proposal;
//   - a disputed report: the table is flagged with the reason;
//   - the published classification page: groups, ties, checkpoint,
//     verification, each row's proof;
//   - a closed tournament: closed to everyone, nothing offered;
//   - anonymous visitors: a login link, no forms; the navigation on one line.
//
// Its screenshots are CI artifacts (.ci/run: $ARTIFACTS_DIR).
func TestPlayersServeThemselvesInABrowser(t *testing.T) {
	shots, bctx := browserTest(t)
	// The venue of a hub: hub.set stands for the sync after which the
	// hub's witness cosigned a checkpoint.
	hub := &cosignatures{}
	_, srv := apitest.ServeWith(t, t.TempDir(), admin, api.Options{Cosigned: hub.get})
	base := srv.URL
	api := apiClient{t: t, base: base}
	const tour = "torneo-self"
	cmds := "/v1/tournaments/" + tour + "/commands"

	api.call("POST", "/v1/tournaments", admin, `{"id":"torneo-self","name":"Torneo dei telefoni","ruleset":"rtu","params":{"qualifying_rounds":1,"knockout":"final4"}}`, 201)
	var appointed struct{ Token string }
	json.Unmarshal(api.call("POST", "/v1/tournaments/"+tour+"/officials", admin, `{"name":"Arbitro capo","role":"arbiter"}`, 201), &appointed)
	arb := appointed.Token
	names := []string{"Mario Rossi", "Giulia Bianchi", "Luca Ferrari", "Sara Esposito", "Marco Russo", "Elena Romano", "Paolo Colombo", "Anna Ricci"}
	for i, n := range names {
		api.call("POST", cmds, arb, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%d","name":%q,"club":"Club %d"}`, i+1, n, i%4), 201)
	}
	api.call("POST", cmds, arb, `{"type":"CloseRegistration"}`, 201)

	// The arbiter prints the personal links (one slip each, with its QR
	// code) from the browser.
	desk := newSession(t, bctx, base, shots, 1280, 900)
	desk.login(arb)
	desk.do("links", chromedp.Navigate(base+"/ui/t/"+tour+"/links"), chromedp.WaitVisible("#issue"), chromedp.Click("#issue button"),
		chromedp.WaitVisible("#slip-p8 svg.qr"))
	if n := desk.js(`String(document.querySelectorAll(".entry-slip svg.qr").length)`); n != "8" {
		t.Errorf("%s slips with a QR code, want 8", n)
	}
	desk.shot("20-personal-links")
	var links struct {
		Tokens []struct{ Player, Token, Link string }
	}
	json.Unmarshal(api.call("GET", "/v1/tournaments/"+tour+"/player-tokens", arb, "", 200), &links)
	link := map[string]string{}
	for _, l := range links.Tokens {
		link[l.Player] = base + l.Link
	}

	t.Run("check-in by typed code", func(t *testing.T) {
		desk.t = t
		desk.do("call", chromedp.Navigate(base+"/ui/t/"+tour+"/players"), chromedp.WaitVisible("#code"), chromedp.SendKeys("#code", "p1\n"), chromedp.WaitVisible(".flash"))
		desk.until("p1 checked in by his typed code", `document.querySelector("#player-p1").innerText.includes("✓")`)
		// A USB scanner types the slip's whole link.
		desk.do("scan", chromedp.Navigate(base+"/ui/t/"+tour+"/players"), chromedp.WaitVisible("#code"), chromedp.SendKeys("#code", link["p2"]+"\n"), chromedp.WaitVisible(".flash"))
		desk.until("p2 checked in by his scanned link", `document.querySelector("#player-p2").innerText.includes("✓")`)
		// An unknown code is said so, in Italian.
		desk.do("unknown code", chromedp.Navigate(base+"/ui/t/"+tour+"/players"), chromedp.WaitVisible("#code"), chromedp.SendKeys("#code", "nessuno\n"), chromedp.WaitVisible("#problem"))
		if got := desk.js(`document.querySelector("#problem").innerText`); !strings.Contains(got, "Codice non riconosciuto") {
			t.Errorf("an unknown code: %q", got)
		}
		desk.shot("16-checkin-by-code")
	})
	for i := 3; i <= 8; i++ {
		api.call("POST", cmds, arb, fmt.Sprintf(`{"type":"CheckIn","round":1,"player":"p%d"}`, i), 201)
	}
	var drawn struct{ Seq uint64 }
	json.Unmarshal(api.call("POST", cmds, arb, `{"type":"DrawTables","round":1,"seed":"telefoni"}`, 201), &drawn)
	var tables struct {
		Tables []struct{ Players []string } `json:"tables"`
	}
	json.Unmarshal(api.call("GET", "/v1/tournaments/"+tour+"/rounds/1/tables", "", "", 200), &tables)
	t1, t2 := tables.Tables[0].Players, tables.Tables[1].Players
	nameOf := func(id string) string {
		n, _ := strconv.Atoi(strings.TrimPrefix(id, "p"))
		return names[n-1]
	}

	// Before the first player's phone opens, the arbiter records the turn
	// order drawn at his table (the third and fourth seats play in the
	// other order), a warning for him, and a contestation of the draw he
	// raised at the desk.
	order := []string{t1[0], t1[1], t1[3], t1[2]}
	orderJSON, _ := json.Marshal(order)
	api.call("POST", cmds, arb, `{"type":"SetTurnOrder","round":1,"table":1,"order":`+string(orderJSON)+`}`, 201)
	api.call("POST", cmds, arb, fmt.Sprintf(`{"type":"ImposeSanction","player":%q,"round":1,"table":1,"kind":"warning","article":"rtu art. 12","reason":"Consigli a un avversario"}`, t1[0]), 201)
	api.call("POST", cmds, arb, fmt.Sprintf(`{"type":"FileContestation","against":%d,"claim":"Due giocatori dello stesso club al mio tavolo","by":%q}`, drawn.Seq, t1[0]), 201)

	// Four phones at table 1, two at table 2.
	phones := map[string]*session{}
	for _, p := range append(append([]string{}, t1...), t2[0], t2[1]) {
		ph := newSession(t, bctx, base, shots, 390, 844)
		ph.do("join "+p, chromedp.Navigate(link[p]), chromedp.WaitVisible("#my-table"))
		phones[p] = ph
	}
	a := phones[t1[0]]

	t.Run("player phone view", func(t *testing.T) {
		a.t = t
		if got := a.js(`document.querySelector("#my-table-number").innerText + "/" + document.querySelector("#my-seat").innerText`); got != "1/1" {
			t.Errorf("table/seat %q, want 1/1", got)
		}
		if got := a.js(`String(document.documentElement.scrollWidth)`); got != "390" {
			t.Errorf("the phone page is %spx wide at 390: it scrolls sideways", got)
		}
		if got := a.js(`document.querySelector("#my-standings").innerText`); !strings.Contains(got, names[1]) {
			t.Errorf("no standings on the phone: %q", got)
		}
		wantOrder := "Ordine di gioco: " + nameOf(order[0]) + ", " + nameOf(order[1]) + ", " + nameOf(order[2]) + ", " + nameOf(order[3])
		if got := a.js(`document.querySelector("#my-table").innerText`); !strings.Contains(got, wantOrder) {
			t.Errorf("the phone does not show the turn order %q:\n%s", wantOrder, got)
		}
		// The report form starts from that turn order, not from the seats.
		if got := a.js(`Array.from(document.querySelectorAll('#propose input[name$=".turn"]')).map(e => e.value).join(",")`); got != "1,2,4,3" {
			t.Errorf("the report form's turns are %s, want the recorded order's 1,2,4,3", got)
		}
		if got := a.js(`document.querySelector("#my-place").innerText`); got == "" {
			t.Error("the phone shows no place in the standings")
		}
		if got := a.js(`document.querySelector("#my-sanctions").innerText`); !strings.Contains(got, "ammonizione — rtu art. 12: Consigli a un avversario") {
			t.Errorf("the phone does not show his warning: %q", got)
		}
		if got := a.js(`document.querySelector("#my-contestations").innerText`); !strings.Contains(got, "Due giocatori dello stesso club al mio tavolo — ammissibile") {
			t.Errorf("the phone does not show his contestation: %q", got)
		}
		if strings.Contains(a.js(`location.href`), "k=") {
			t.Error("the personal link's token stays in the address bar")
		}
		a.shot("11-player-phone")
	})

	t.Run("table of four reports and confirms", func(t *testing.T) {
		a.t = t
		a.do("marker", chromedp.Evaluate[chromedp.Void](`window.__noReload = true`))
		// A refusal first, said in Italian: two players in one turn.
		fill := func(turn2 string) {
			steps := []chromedp.Action[chromedp.Void]{chromedp.WaitVisible("#propose")}
			for i, tp := range []string{"50", "42", "30", "21"} {
				steps = append(steps, chromedp.SetValue(fmt.Sprintf(`#propose input[name="players[%d].table_points"]`, i), tp))
			}
			steps = append(steps, chromedp.SetValue(`#propose input[name="players[1].turn"]`, turn2))
			a.do("fill the report", steps...)
		}
		fill("1")
		a.do("propose (refused)", chromedp.Click("#propose-submit"), chromedp.WaitVisible("#problem"))
		msg := a.js(`document.querySelector("#problem").innerText`)
		if !strings.Contains(msg, "Ordine di gioco") || strings.Contains(msg, "permutation") {
			t.Errorf("the refusal is not said in Italian: %q", msg)
		}
		a.shot("12-proposal-refused-italian")
		fill("2")
		a.do("propose", chromedp.Click("#propose-submit"), chromedp.WaitVisible("#proposal-status"))
		a.do("marker again", chromedp.Evaluate[chromedp.Void](`window.__noReload = true`))
		for _, p := range t1[1:] {
			ph := phones[p]
			ph.t = t
			ph.until("the proposal reaches "+p, `!!document.querySelector("#confirm")`)
			ph.do("confirm "+p, chromedp.Click("#confirm button"), chromedp.WaitVisible(".flash"))
		}
		// The proposer's phone changed by itself, without a reload.
		a.until("the proposer sees it ready", `document.querySelector("#proposal-status") && document.querySelector("#proposal-status").innerText.includes("pronto")`)
		if a.js(`String(window.__noReload === true)`) != "true" {
			t.Error("the phone reloaded instead of updating in place")
		}
		a.shot("13-proposal-ready-phone")
	})

	t.Run("arbiter records in one click", func(t *testing.T) {
		desk.t = t
		desk.do("round", chromedp.Navigate(base+"/ui/t/"+tour+"/rounds/1"), chromedp.WaitVisible("#record-1"))
		checkNavigation(t, desk)
		desk.shot("14-arbiter-ready")
		desk.do("record", chromedp.Click("#record-1 button"), chromedp.WaitVisible(".flash"))
		if got := desk.js(`document.querySelector("#table-1").innerText`); !strings.Contains(got, "dalla proposta dei giocatori") || !strings.Contains(got, names[0][:5]) {
			t.Errorf("table 1 after the one-click record: %q", got)
		}
		var res struct {
			Tables []struct {
				Result *struct{ Proposal string } `json:"result"`
			} `json:"tables"`
		}
		json.Unmarshal(api.call("GET", "/v1/tournaments/"+tour+"/rounds/1/tables", "", "", 200), &res)
		if res.Tables[0].Result == nil || res.Tables[0].Result.Proposal == "" {
			t.Errorf("the recorded result names no proposal: %+v", res.Tables[0].Result)
		}
		desk.shot("15-arbiter-recorded")
		a.t = t
		a.until("the phone shows the result", `document.querySelector("#my-table").innerText.includes("registrato")`)
		// Their phones put away: a browser keeps six connections to a
		// server, and each open page holds one for its live updates.
		for _, p := range t1[1:] {
			phones[p].cancel()
		}
	})

	t.Run("disputed report", func(t *testing.T) {
		e, f := phones[t2[0]], phones[t2[1]]
		e.t, f.t, desk.t = t, t, t
		steps := []chromedp.Action[chromedp.Void]{chromedp.WaitVisible("#propose")}
		for i, tp := range []string{"58", "47", "33", "21"} {
			steps = append(steps, chromedp.SetValue(fmt.Sprintf(`#propose input[name="players[%d].table_points"]`, i), tp))
		}
		e.do("propose", append(steps, chromedp.Click("#propose-submit"), chromedp.WaitVisible("#proposal-status"))...)
		f.until("the proposal reaches "+t2[1], `!!document.querySelector("#dispute")`)
		f.do("dispute", chromedp.SendKeys(`#dispute input[name="reason"]`, "Avevo 52 punti tavolo"), chromedp.Click("#dispute button"), chromedp.WaitVisible(".flash"))
		desk.do("round", chromedp.Navigate(base+"/ui/t/"+tour+"/rounds/1"), chromedp.WaitVisible("#table-2"))
		got := desk.js(`document.querySelector("#table-2").innerText`)
		if !strings.Contains(got, "Avevo 52 punti tavolo") || !strings.Contains(got, "da verificare") || desk.js(`String(document.querySelectorAll("#record-2").length)`) != "0" {
			t.Errorf("table 2 after a dispute: %q", got)
		}
		desk.shot("15b-disputed-table")
		// The arbiter decides: the form starts from the proposal.
		desk.do("form", chromedp.Navigate(base+"/ui/t/"+tour+"/rounds/1/tables/2?from=r1t2-1"), chromedp.WaitVisible("#result"))
		if v := desk.js(`document.querySelector('input[name="players[0].table_points"]').value`); v != "58" {
			t.Errorf("the form does not start from the proposal: %q", v)
		}
		desk.do("record", chromedp.SetValue(`input[name="players[1].table_points"]`, "52"), chromedp.Click("#save-result"), chromedp.WaitVisible(".flash"))
		e.cancel()
		f.cancel()
	})

	// The final, its report, the publication.
	api.call("POST", cmds, arb, `{"type":"DrawTables","round":2,"seed":"finale"}`, 201)
	var final struct {
		Tables []struct{ Players []string } `json:"tables"`
	}
	json.Unmarshal(api.call("GET", "/v1/tournaments/"+tour+"/rounds/2/tables", "", "", 200), &final)
	var lines []string
	for i, p := range final.Tables[0].Players {
		lines = append(lines, fmt.Sprintf(`{"player":%q,"turn":%d,"table_points":%d,"status":"finished"}`, p, i+1, 50-10*i))
	}
	api.call("POST", cmds, arb, `{"type":"RecordResult","round":2,"table":1,"closed_by":"time","players":[`+strings.Join(lines, ",")+`]}`, 201)
	rolls := rollTies(t, api, tour, arb)
	api.call("POST", cmds, arb, `{"type":"PublishClassification","final":true}`, 201)

	t.Run("classification page", func(t *testing.T) {
		desk.t = t
		desk.do("classification", chromedp.Navigate(base+"/ui/t/"+tour+"/classification"), chromedp.WaitVisible("#classification"))
		if n := desk.js(`String(document.querySelectorAll("#classification tr[data-player]").length)`); n != "8" {
			t.Errorf("%s rows, want 8", n)
		}
		groups := desk.js(`Array.from(document.querySelectorAll("#classification tr.group-head")).map(e => e.innerText).join("|")`)
		if !strings.Contains(groups, "finale") || !strings.Contains(groups, "qualificazione") {
			t.Errorf("phase groups: %q", groups)
		}
		// A tie settled by the die says so: the rule, the rolls and the
		// event that recorded them, on the row the roll put below.
		if len(rolls) != 1 || len(rolls[0].Players) != 2 {
			t.Fatalf("the tournament was meant to end with one tie of two for the die: %+v", rolls)
		}
		below := rolls[0].Players[1]
		want := fmt.Sprintf("tiro di dado: 6 contro 5 (evento %d) · regole di referto, §6.1 «rur-2015 art. 1, alla lettera» (rur-2015 art. 1)", rolls[0].Seq)
		if got := desk.js(`document.querySelector('#classification tr[data-player="` + below + `"] .settled').innerText`); got != want {
			t.Errorf("the tie settled by the die says %q, want %q", got, want)
		}
		if cp := desk.js(`document.querySelector("#checkpoint").innerText`); !strings.HasPrefix(cp, "referto/"+tour+"\n") || !strings.Contains(cp, "— referto") {
			t.Errorf("the embedded checkpoint: %q", cp)
		}
		// Not cosigned yet: no witness to check.
		if n := desk.js(`String(document.querySelectorAll("#cosigned-checkpoint, #verify-witness").length)`); n != "0" {
			t.Error("a classification no hub cosigned offers a witness's cosignature")
		}
		// A visitor's recipe needs no token: the server's key and the
		// row's proof file; the export, an official's token, is said apart.
		first := desk.js(`document.querySelector("#classification tr[data-player]").dataset.player`)
		recipe := desk.js(`document.querySelector("#verify-commands").innerText`)
		for _, want := range []string{base + "/v1/keys | jq -r .checkpoint > referto.pub",
			base + "/v1/tournaments/" + tour + "/classification/rows/" + first + "/proof > " + tour + "-" + first + "-proof.json",
			"referto verify --proof " + tour + "-" + first + "-proof.json --key referto.pub"} {
			if !strings.Contains(recipe, want) {
				t.Errorf("the visitor's recipe has no %q:\n%s", want, recipe)
			}
		}
		if strings.Contains(recipe, "TOKEN") || strings.Contains(recipe, "export") {
			t.Errorf("the visitor's recipe needs an official's token:\n%s", recipe)
		}
		if official := desk.js(`document.querySelector("#verify-log").innerText + document.querySelector("#verify-log").previousElementSibling.innerText`); !strings.Contains(official, "referto verify --log "+tour+".ndjson --key referto.pub") ||
			!strings.Contains(official, "--token $TOKEN") || !strings.Contains(official, "solo un ufficiale del torneo") {
			t.Errorf("the whole log's verification does not say it takes an official's export: %q", official)
		}
		// The recipe works: each row's proof downloads, and verify --proof
		// (proof.Verify) accepts it under the server's public key.
		rowProof, err := evaluate(desk.ctx, `fetch(document.querySelector("a.proof").href).then(r => r.text())`,
			chromedp.EvalAwaitPromise)
		if err != nil {
			t.Fatal(err)
		}
		if res, err := proof.Verify([]byte(rowProof), venueKey(t, api), nil); err != nil || res.Proof.Row.Player != first {
			t.Errorf("the row's proof does not verify under the server's key: %v %.300s", err, rowProof)
		}
		desk.shot("17-classification")

		// The hub's witness cosigns the venue's checkpoint: the page shows
		// the cosigned checkpoint and how to check the cosignature too.
		w, err := checkpoint.LoadOrCreateWitness(t.TempDir(), "hub.example", rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		note := api.call("GET", "/v1/tournaments/"+tour+"/checkpoint", "", "", 200)
		c, _, err := checkpoint.OpenUnverified(note)
		if err != nil {
			t.Fatal(err)
		}
		signed, err := checkpoint.Cosign(note, venueKey(t, api), w.Cosigner)
		if err != nil {
			t.Fatal(err)
		}
		hub.set(signed, c.Size)
		desk.do("classification cosigned", chromedp.Navigate(base+"/ui/t/"+tour+"/classification"), chromedp.WaitVisible("#cosigned-checkpoint"))
		if got := desk.js(`document.querySelector("#cosigned-checkpoint").innerText`); strings.TrimSpace(got) != strings.TrimSpace(signed) || !strings.Contains(got, "— hub.example") {
			t.Errorf("the cosigned checkpoint shown:\n%s\nwant:\n%s", got, signed)
		}
		witnessRecipe := desk.js(`document.querySelector("#verify-witness").innerText`)
		for _, want := range []string{"$HUB/v1/keys | jq -r .witness > witness.pub",
			base + "/v1/tournaments/" + tour + "/players/" + first + "/proof > " + tour + "-" + first + ".proof.json",
			"referto verify --proof " + tour + "-" + first + ".proof.json --key referto.pub --witness witness.pub"} {
			if !strings.Contains(witnessRecipe, want) {
				t.Errorf("the witness's recipe has no %q:\n%s", want, witnessRecipe)
			}
		}
		// And it works: the player's proof file carries the cosignature,
		// which verify --proof --witness (proof.Verify) checks.
		carried := api.call("GET", "/v1/tournaments/"+tour+"/players/"+first+"/proof", "", "", 200)
		wv, err := checkpoint.NewWitnessVerifier(w.VerifierKey)
		if err != nil {
			t.Fatal(err)
		}
		if res, err := proof.Verify(carried, venueKey(t, api), wv); err != nil || !res.Witnessed {
			t.Errorf("the player's proof does not verify with the witness's key: %v %.300s", err, carried)
		}
		desk.shot("17b-classification-cosigned")
	})

	api.call("POST", cmds, arb, `{"type":"CloseTournament","reason":"finito"}`, 201)

	t.Run("closed tournament", func(t *testing.T) {
		desk.t = t
		desk.do("overview", chromedp.Navigate(base+"/ui/t/"+tour+"/"), chromedp.WaitVisible("#closed-banner"))
		for _, sel := range []string{"#next-round", "#publish", "#appoint"} {
			if n := desk.js(`String(document.querySelectorAll("` + sel + `").length)`); n != "0" {
				t.Errorf("a closed tournament offers %s", sel)
			}
		}
		if got := desk.js(`document.querySelector("#params").innerText`); strings.Contains(got, "tp_bonus") || strings.Contains(got, "[4 5]") || !strings.Contains(got, "punti tavolo + bonus") {
			t.Errorf("the parameters are not labelled: %q", got)
		}
		desk.shot("18-closed-tournament")
		desk.do("round", chromedp.Navigate(base+"/ui/t/"+tour+"/rounds/2"), chromedp.WaitVisible("#closed-banner"))
		if n := desk.js(`String(document.querySelectorAll("main form").length)`); n != "0" {
			t.Errorf("a closed tournament's round offers %s forms", n)
		}
		a.t = t
		a.do("phone", chromedp.Navigate(base+"/ui/t/"+tour+"/me"), chromedp.WaitVisible("#closed-banner"))
		if n := a.js(`String(document.querySelectorAll("#propose").length)`); n != "0" {
			t.Error("a closed tournament offers a player the report form")
		}
		// The player's page links the offline proof of his published row.
		if final := a.js(`(document.querySelector("#my-final") || {innerText: ""}).innerText`); !strings.Contains(final, "°") {
			t.Errorf("the player's page shows no place in the published classification: %q", final)
		}
		pf, err := evaluate(a.ctx, `fetch(document.querySelector("#my-proof").href).then(r => r.text())`, chromedp.EvalAwaitPromise)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(pf, `"format":"referto-proof/1"`) && !strings.Contains(pf, `"format": "referto-proof/1"`) {
			t.Errorf("the player's proof file: %.300s", pf)
		}
		a.shot("18b-player-published")
	})

	t.Run("anonymous visitor and the navigation", func(t *testing.T) {
		anon := newSession(t, bctx, base, shots, 1280, 900)
		anon.do("round", chromedp.Navigate(base+"/ui/t/"+tour+"/rounds/1"), chromedp.WaitVisible("#tables"))
		if n := anon.js(`String(document.querySelectorAll("main form").length)`); n != "0" {
			t.Errorf("an anonymous visitor is offered %s forms", n)
		}
		if n := anon.js(`String(document.querySelectorAll("#login-link").length)`); n != "1" {
			t.Error("an anonymous visitor has no login link")
		}
		desk.t = t
		desk.do("standings", chromedp.Navigate(base+"/ui/t/"+tour+"/standings"), chromedp.WaitVisible("#nav"))
		checkNavigation(t, desk)
	})

	t.Run("venue screen", func(t *testing.T) {
		screen := newSession(t, bctx, base, shots, 1920, 1080)
		screen.do("screen", chromedp.Navigate(base+"/ui/t/"+tour+"/screen"), chromedp.WaitVisible(".panel.shown"))
		if got := screen.js(`document.querySelector("#panels").dataset.panels`); got != "results standings" {
			t.Errorf("a finished round's screen shows %q, want the results and the standings", got)
		}
		screen.until("the clock ticks", `/\d+:\d\d:\d\d/.test(document.querySelector("#clock .ticks").innerText)`)
		screen.shot("19-venue-screen")
	})
}

// checkNavigation: at 1280 px the bar is one line tall (a second line of
// links would double it), and no link of the navigation is cut off.
func checkNavigation(t *testing.T, s *session) {
	t.Helper()
	if h := s.js(`String(Math.round(document.querySelector("header.bar").getBoundingClientRect().height))`); len(h) > 2 || h > "50" {
		t.Errorf("the bar is %spx tall at 1280 px: more than one line", h)
	}
	if cut := s.js(`String(document.querySelector("#nav").scrollWidth > document.querySelector("#nav").clientWidth)`); cut != "false" {
		t.Errorf("the navigation is cut off at 1280 px: %s", s.js(`document.querySelector("#nav").innerText`))
	}
}

// cosignatures is a venue's record of the last checkpoint its hub's
// witness cosigned (api.Options.Cosigned), set by the test.
type cosignatures struct {
	mu   sync.Mutex
	note string
	size uint64
}

func (c *cosignatures) set(note string, size uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.note, c.size = note, size
}

func (c *cosignatures) get(string) (string, uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.note, c.size, c.note != ""
}

// venueKey is the server's checkpoint verifier key, as a visitor fetches
// it (GET /v1/keys, "checkpoint").
func venueKey(t *testing.T, api apiClient) note.Verifier {
	t.Helper()
	var keys struct{ Checkpoint string }
	if err := json.Unmarshal(api.call("GET", "/v1/keys", "", "", 200), &keys); err != nil {
		t.Fatal(err)
	}
	v, err := checkpoint.ReadVerifier(keys.Checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// roll is a die roll the arbiter recorded to settle a tie: the event and
// the players, the highest roll first.
type roll struct {
	Seq     uint64
	Players []string
}

// rollTies records a die roll for every tie awaiting one, as the arbiter
// does at the desk (6, 5, … in the order the classification lists them),
// and returns them.
func rollTies(t *testing.T, api apiClient, tour, arb string) []roll {
	t.Helper()
	var out []roll
	for range 10 {
		var cl struct {
			Rows []struct {
				Player   string `json:"player"`
				TieGroup int    `json:"tie_group"`
			} `json:"rows"`
		}
		json.Unmarshal(api.call("GET", "/v1/tournaments/"+tour+"/classification", "", "", 200), &cl)
		groups := map[int][]string{}
		for _, r := range cl.Rows {
			if r.TieGroup > 0 {
				groups[r.TieGroup] = append(groups[r.TieGroup], r.Player)
			}
		}
		if len(groups) == 0 {
			return out
		}
		for _, g := range groups {
			rolls := make([]string, len(g))
			for i := range g {
				rolls[i] = fmt.Sprint(6 - i%6)
			}
			ps, _ := json.Marshal(g)
			var done struct{ Seq uint64 }
			json.Unmarshal(api.call("POST", "/v1/tournaments/"+tour+"/commands", arb, fmt.Sprintf(`{"type":"RecordTieBreakRoll","players":%s,"rolls":[%s]}`, ps, strings.Join(rolls, ",")), 201), &done)
			out = append(out, roll{Seq: done.Seq, Players: g})
		}
	}
	t.Fatal("ties still awaiting a die roll after ten rounds of rolls")
	return nil
}
