package web_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/referto/referto/api/apitest"
)

const admin = "browser-admin-token"

// chromium finds a Chromium to drive; the browser tests skip without one.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("CI must have chromium for the browser tests: .ci/run installs it with apt-get")
	}
	t.Skip("browser tests skipped: no chromium on PATH (Debian: apt-get install chromium)")
	return ""
}

// artifacts is where screenshots go: $ARTIFACTS_DIR/screenshots, or a
// directory under the system temp dir that the test names in its log.
func artifacts(t *testing.T) string {
	dir := os.Getenv("ARTIFACTS_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "referto-artifacts")
	}
	dir = filepath.Join(dir, "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", dir)
	return dir
}

// browserTest begins a browser test: skipped in -short mode (it starts
// Chromium and takes tens of seconds), it finds Chromium (chromium), and
// returns where its screenshots go (artifacts) and a tab (browser).
func browserTest(t *testing.T) (shots string, tab context.Context) {
	t.Helper()
	return longBrowserTest(t, 4*time.Minute)
}

// longBrowserTest is browserTest for a test that may drive the browser for
// up to d, and never past the test binary's own deadline (go test
// -timeout, ten minutes by default): a test that runs out of time fails
// with its step named rather than ending the whole run with a stack dump.
func longBrowserTest(t *testing.T, d time.Duration) (shots string, tab context.Context) {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test: skipped in -short mode")
	}
	exe := chromium(t)
	if end, ok := t.Deadline(); ok {
		d = min(d, time.Until(end)-30*time.Second)
	}
	return artifacts(t), browser(t, exe, d)
}

// stepTime bounds one step of a browser test (a navigation, a click and
// what it waits for, a request to the API) on the slowest machine that
// runs the suite: the longest step seen takes a few seconds.
const stepTime = 90 * time.Second

// step runs steps in the tab, bounded by stepTime. The tab must have run
// once already (the first run binds the tab's life to its context).
func step(tab context.Context, steps ...chromedp.Action[chromedp.Void]) error {
	ctx, cancel := context.WithTimeout(tab, stepTime)
	defer cancel()
	return chromedp.Do(ctx, steps...)
}

// evaluate runs a JavaScript expression in the tab, bounded by stepTime.
func evaluate(tab context.Context, expr string, opts ...chromedp.EvaluateOption) (string, error) {
	ctx, cancel := context.WithTimeout(tab, stepTime)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[string](expr, opts...))
}

// screenshot takes a PNG of the whole page, bounded by stepTime. A page
// the browser is still replacing (a form just sent) has no layout to take
// ("Cannot take screenshot with 0 width"): it asks again until the page
// stands complete and the picture is taken.
func screenshot(tab context.Context) ([]byte, error) {
	ctx, cancel := context.WithTimeout(tab, stepTime)
	defer cancel()
	for {
		ready, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.readyState === "complete" && document.documentElement.getBoundingClientRect().width > 0`))
		if err == nil && ready {
			var png []byte
			if png, err = chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil { // quality 100: PNG
				return png, nil
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (last: ready %v, %v)", ctx.Err(), ready, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// stepFailed ends the test at a failed step, with the page's text and,
// when the step ran out of time, what every goroutine of the test's
// process (the server's among them) was doing.
func stepFailed(t *testing.T, tab context.Context, what string, err error) {
	t.Helper()
	text, _ := evaluate(tab, "document.body ? document.body.innerText : ''")
	if errors.Is(err, context.DeadlineExceeded) {
		var b strings.Builder
		_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
		t.Logf("goroutines when %q ran out of time:\n%s", what, b.String())
	}
	t.Fatalf("%s: %v\npage text:\n%s", what, err, text)
}

// httpClient is the tests' client of the server: bounded like a step.
func httpClient() *http.Client { return &http.Client{Timeout: stepTime} }

// browser starts a headless Chromium (loopback only, no background
// networking) and stops it, by PID, when the test ends.
func browser(t *testing.T, path string, d time.Duration) context.Context {
	t.Helper()
	ctx, cancelTime := context.WithTimeout(context.Background(), d)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("lang", "it-IT"),
		// Chromium's own scratch files (org.chromium.Chromium.*) go to
		// the test's directory, which the test removes, not to /tmp.
		chromedp.Env("TMPDIR=" + t.TempDir()),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	if err := chromedp.Do(bctx); err != nil { // starts the browser
		cancelBrowser()
		cancelAlloc()
		cancelTime()
		t.Fatalf("chromium did not start: %v", err)
	}
	var pid int
	if b := chromedp.FromContext(bctx).Browser; b != nil && b.Process() != nil {
		pid = b.Process().Pid
	}
	t.Cleanup(func() {
		cancelBrowser()
		cancelAlloc()
		cancelTime()
		if pid > 0 {
			// The allocator kills Chromium; make sure, by its PID.
			if syscall.Kill(pid, 0) == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	return bctx
}

// TestArbiterWorkflowInABrowser drives a tournament through the web UI in
// a real browser: the administrator creates it and appoints an arbiter; the
// arbiter imports players, closes registration, checks them in, draws the
// round, enters a report the server refuses (the message shows at the
// field), then a valid one, and sees the standings change.
func TestArbiterWorkflowInABrowser(t *testing.T) {
	shots, ctx := browserTest(t)
	_, srv := apitest.Serve(t, t.TempDir(), admin)
	base := srv.URL

	desk := &session{t: t, ctx: ctx, base: base, shots: shots} // the browser's first tab
	do, text, shot := desk.do, desk.js, desk.shot
	login := func(token string) {
		t.Helper()
		do("log in", chromedp.Navigate(base+"/ui/login"), chromedp.WaitVisible("#token"),
			chromedp.SendKeys("#token", token), chromedp.Click("#login"), chromedp.WaitVisible("#who"))
	}

	// Italian first, as at the venue.
	do("italian", chromedp.Navigate(base+"/ui/lang/it"), chromedp.WaitVisible("h1"))
	if h := text(`document.querySelector("h1").innerText`); h != "Tornei" {
		t.Errorf("the Italian home page is headed %q", h)
	}

	// The administrator creates the tournament; the ruleset picker shows
	// the resolved parameters of each preset.
	login(admin)
	do("home", chromedp.Navigate(base+"/ui/"), chromedp.WaitVisible("#create"))
	if got := text(`document.querySelector(".presets").innerText`); !strings.Contains(got, "rtu") || !strings.Contains(got, "punti tavolo + bonus") {
		t.Errorf("the ruleset picker does not show the resolved parameters:\n%s", got)
	}
	shot("01-tournaments")
	do("create", chromedp.SendKeys(`#create input[name="id"]`, "torneo-web"), chromedp.SendKeys(`#create input[name="name"]`, "Torneo di prova"),
		chromedp.SetValue("#ruleset", "rtu"), chromedp.Click("#create button"), chromedp.WaitVisible("#appoint"))
	do("appoint", chromedp.SendKeys(`#appoint input[name="name"]`, "Arbitro capo"), chromedp.Click("#appoint button"), chromedp.WaitVisible("#new-token"))
	arbiter := strings.TrimSpace(text(`document.querySelector("#new-token code").innerText`))
	if len(arbiter) < 32 {
		t.Fatalf("no arbiter token shown: %q", arbiter)
	}

	// The arbiter: what the role may not do is not offered.
	do("log out", chromedp.Click(`form[action="/ui/logout"] button`), chromedp.WaitVisible(`a[href="/ui/login"]`))
	login(arbiter)
	do("overview", chromedp.Navigate(base+"/ui/t/torneo-web/"), chromedp.WaitVisible("#publish"))
	if who := text(`document.querySelector("#who").innerText`); who != "Arbitro capo" {
		t.Errorf("logged in as %q, want the official's name", who)
	}
	if n := text(`String(document.querySelectorAll("#appoint").length)`); n != "0" {
		t.Error("an arbiter is offered the appointment of officials")
	}

	// Entry list: a CSV import of eight players, then close registration.
	var csv strings.Builder
	csv.WriteString("player,name,club\n")
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&csv, "p%03d,Giocatore %d,Club %c\n", i, i, 'A'+rune(i%3))
	}
	do("import", chromedp.Navigate(base+"/ui/t/torneo-web/players"), chromedp.WaitVisible("#import"),
		chromedp.SetValue(`#import textarea`, csv.String()), chromedp.Click("#import button"), chromedp.WaitVisible("#player-p008"))
	do("close registration", chromedp.Click("#close button"), chromedp.WaitNotPresent("#register"))
	shot("02-players")
	for i := 1; i <= 8; i++ {
		sel := fmt.Sprintf(`#player-p%03d button[name="present"]`, i)
		do("check in", chromedp.WaitVisible(sel), chromedp.Click(sel), chromedp.WaitNotPresent(sel))
	}
	do("entry list", chromedp.WaitVisible("#player-p008 td")) // the last check-in's page has loaded
	if n := text(`String(document.querySelectorAll("#players td").length)`); n == "0" {
		t.Fatal("no entry list")
	}

	// The draw, and the venue screen.
	do("draft", chromedp.Navigate(base+"/ui/t/torneo-web/rounds/1"), chromedp.WaitVisible("#draw"), chromedp.Click("#draw button"), chromedp.WaitVisible("#draft-table-2"))
	do("confirm the draft", chromedp.Click("#confirm-draw button"), chromedp.WaitVisible("#table-2"))
	shot("03-round")
	do("venue screen", chromedp.Navigate(base+"/ui/t/torneo-web/rounds/1/screen"), chromedp.WaitVisible(".screen-table"))
	if px, _ := strconv.ParseFloat(strings.TrimSuffix(text(`getComputedStyle(document.querySelector(".screen-table li")).fontSize`), "px"), 64); px < 28 {
		t.Errorf("venue screen type is %vpx: not readable across a hall", px)
	}
	shot("04-venue-screen")

	// The standings before any report.
	do("standings", chromedp.Navigate(base+"/ui/t/torneo-web/standings"), chromedp.WaitVisible("#standings"))
	if h := text(`document.querySelector("h1").innerText`); !strings.HasPrefix(h, "Classifica") {
		t.Errorf("the Italian standings are headed %q", h)
	}
	before := text(`Array.from(document.querySelectorAll("#standings td.total")).map(e => e.innerText).join(",")`)

	// A report the server refuses: its message is shown at the field.
	do("result form", chromedp.Navigate(base+"/ui/t/torneo-web/rounds/1/tables/1"), chromedp.WaitVisible("#result"))
	// A fresh form describes an ordinary game, so that an ordinary report
	// is only its table points: closed by time, everyone in the game at its
	// end, turns in seat order (no turn order was recorded), no winner
	// named (the ledger places by table points), no RisiKo!, no figure
	// typed for anyone.
	const defaults = `JSON.stringify({
		closed_by: document.querySelector('#result select[name="closed_by"]').value,
		winner: document.querySelector('#result select[name="winner"]').value,
		risiko: document.querySelector('#result input[name="risiko"]').checked,
		status: Array.from(document.querySelectorAll('#result select[name$=".status"]')).map(e => e.value),
		turn: Array.from(document.querySelectorAll('#result input[name$=".turn"]')).map(e => e.value),
		typed: Array.from(document.querySelectorAll('#result input[type="number"]:not([name$=".turn"])')).filter(e => e.value !== "").map(e => e.name)
	})`
	if got, want := text(defaults), `{"closed_by":"time","winner":"","risiko":false,"status":["finished","finished","finished","finished"],"turn":["1","2","3","4"],"typed":[]}`; got != want {
		t.Errorf("the report form's defaults:\n got %s\nwant %s", got, want)
	}
	do("refused report", chromedp.SetValue(`input[name="players[0].table_points"]`, "60"), chromedp.Click("#save-result"), chromedp.WaitVisible("#problem"))
	if msg := text(`document.querySelector("#problem").innerText`); !strings.Contains(msg, "Punti tavolo") {
		t.Errorf("the refusal does not name the field: %q", msg)
	}
	if n := text(`String(document.querySelectorAll("span.err").length)`); n == "0" {
		t.Error("no inline message next to the refused fields")
	}
	if v := text(`document.querySelector('input[name="players[0].table_points"]').value`); v != "60" {
		t.Errorf("the refused form lost what was typed: %q", v)
	}
	shot("05-result-refused")

	// A valid report.
	for i, tp := range []string{"50", "42", "30", "21"} {
		do("fill seat", chromedp.SetValue(fmt.Sprintf(`input[name="players[%d].turn"]`, i), fmt.Sprint(i+1)),
			chromedp.SetValue(fmt.Sprintf(`input[name="players[%d].table_points"]`, i), tp))
	}
	// Recorded as the form stood: the closing and the statuses untouched.
	do("record", chromedp.Click("#save-result"), chromedp.WaitVisible(".flash"))
	if got := text(`document.querySelector("#table-1").innerText`); !strings.Contains(got, "1") {
		t.Errorf("table 1 shows no result: %q", got)
	}
	var tables struct {
		Tables []struct {
			Result *struct {
				ClosedBy string `json:"closed_by"`
				Risiko   bool
				Players  []struct{ Status string }
			}
		}
	}
	if res, err := httpClient().Get(base + "/v1/tournaments/torneo-web/rounds/1/tables"); err != nil {
		t.Fatal(err)
	} else {
		err = json.NewDecoder(res.Body).Decode(&tables)
		res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	if r := tables.Tables[0].Result; r == nil || r.ClosedBy != "time" || r.Risiko || len(r.Players) != 4 {
		t.Errorf("the report recorded from the form's defaults: %+v", r)
	} else {
		for _, p := range r.Players {
			if p.Status != "finished" {
				t.Errorf("a player recorded %q from the form's defaults, want finished", p.Status)
			}
		}
	}

	// The standings changed.
	do("standings after", chromedp.Navigate(base+"/ui/t/torneo-web/standings"), chromedp.WaitVisible("#standings"))
	after := text(`Array.from(document.querySelectorAll("#standings td.total")).map(e => e.innerText).join(",")`)
	if after == before {
		t.Errorf("the standings did not change: %s", after)
	}
	shot("06-standings")

	// English is available.
	do("english", chromedp.Navigate(base+"/ui/lang/en?back=/ui/t/torneo-web/standings"), chromedp.WaitVisible("#standings"))
	if h := text(`document.querySelector("h1").innerText`); !strings.HasPrefix(h, "Standings") {
		t.Errorf("English heading %q", h)
	}

	// The event log, and the tournament as it stood at an event.
	do("events", chromedp.Navigate(base+"/ui/t/torneo-web/events"), chromedp.WaitVisible("#events"))
	shot("07-events")
	do("state at", chromedp.Click("#event-12 a.at"), chromedp.WaitVisible("#standings"))
	if h := text(`document.querySelector("h1").innerText`); !strings.Contains(h, "12") {
		t.Errorf("the state-at page says %q", h)
	}
	shot("08-state-at-event")
}
