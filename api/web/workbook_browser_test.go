package web_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/referto/referto/api/apitest"
	"github.com/referto/referto/commands/workbook/workbooktest"
)

// TestWorkbookUploadInABrowser: the arbiter picks the club's workbook in
// the entry list page's file field and imports it, in headless Chromium.
// A file with two bad IDs is refused with both problems said in Italian,
// each with its sheet and cell, and no player listed; the file mended is
// imported, the page saying what was recorded, with the players listed, at
// the entry list's own address: live, and read again by a reload.
func TestWorkbookUploadInABrowser(t *testing.T) {
	shots, bctx := browserTest(t)
	_, srv := apitest.Serve(t, t.TempDir(), admin)
	base := srv.URL
	api := apiClient{t: t, base: base}
	api.call("POST", "/v1/tournaments", admin, `{"id":"mattina","name":"Torneo del mattino","ruleset":"rtu"}`, 201)
	var appointed struct{ Token string }
	json.Unmarshal(api.call("POST", "/v1/tournaments/mattina/officials", admin, `{"name":"Arbitro capo","role":"arbiter"}`, 201), &appointed)

	dir := t.TempDir()
	broken, mended := filepath.Join(dir, "iscritti con errori.xlsx"), filepath.Join(dir, "iscritti.xlsx")
	if err := os.WriteFile(broken, workbooktest.Primavera(t).Set("Iscritti", "A5", 1).Set("Iscritti", "A6", "tre").Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mended, workbooktest.Primavera(t).Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// A session of its own, closed before the server stops (the page
	// keeps a live stream open).
	s := newSession(t, bctx, base, shots, 1280, 900)
	s.login(appointed.Token)
	s.do("refused", chromedp.Navigate(base+"/ui/t/mattina/players"), chromedp.WaitVisible("#workbook"),
		chromedp.SetUploadFiles(`#workbook input[name="workbook"]`, []string{broken}), chromedp.Click("#workbook button"), chromedp.WaitVisible("#problem"))
	s.shot("workbook-01-refused")
	problem := s.js(`document.querySelector("#problem").innerText`)
	for _, want := range []string{"Il file non è stato importato, non è stato registrato nulla",
		"foglio Iscritti, cella A5: È presente l'ID 1 duplicato sulla scheda Iscritti (anche in A4)",
		"foglio Iscritti, cella A6: Riga n° 6 della scheda Iscritti: Colonna ID con valore non numerico"} {
		if !strings.Contains(problem, want) {
			t.Errorf("the refusal does not say %q:\n%s", want, problem)
		}
	}
	if n := s.js(`String(document.querySelectorAll("#players-body tr[id]").length)`); n != "0" {
		t.Errorf("%s players listed after a refused file", n)
	}
	s.do("imported", chromedp.SetUploadFiles(`#workbook input[name="workbook"]`, []string{mended}), chromedp.Click("#workbook button"),
		chromedp.WaitVisible("#player-p8"))
	s.shot("workbook-02-imported")
	if got := s.js(`document.querySelector(".flash").innerText`); !strings.HasPrefix(got, "Lista iscritti importata dal file «iscritti.xlsx»: 8 giocatori iscritti") {
		t.Errorf("the page says %q", got)
	}
	// The page is the entry list's own: it follows the tournament live (a
	// player registered at another desk appears), and a reload reads it
	// again rather than sending the file once more.
	if got := s.js(`location.pathname`); got != "/ui/t/mattina/players" {
		t.Errorf("after the upload the page is at %s, not the entry list's address", got)
	}
	api.call("POST", "/v1/tournaments/mattina/commands", appointed.Token, `{"type":"RegisterPlayer","player":"p9","name":"Nino Neri"}`, 201)
	s.until("the registration made elsewhere reaches the page", `!!document.querySelector("#player-p9")`)
	s.do("reload", chromedp.Reload(), chromedp.WaitVisible("#player-p9"))
	if p := s.js(`(document.querySelector("#problem") || {innerText: ""}).innerText`); p != "" {
		t.Errorf("the entry list reloaded says: %s", p)
	}
	if got := s.js(`document.querySelector(".flash").innerText`); !strings.HasPrefix(got, "Lista iscritti importata dal file «iscritti.xlsx»") {
		t.Errorf("the entry list reloaded says %q", got)
	}
	s.shot("workbook-03-reloaded")
}
