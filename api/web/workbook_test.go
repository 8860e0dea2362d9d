package web_test

import (
	"bytes"
	"html"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/referto/referto/commands/workbook/workbooktest"
)

// upload sends a club workbook as the entry list page's form does from an
// official's browser: multipart, the file and the scope chosen, on the
// UI's own origin with the session cookie. It returns the status and the
// page's text, unescaped.
func (u *ui) upload(t, token, query, scope, name string, data []byte) (int, string) {
	u.t.Helper()
	code, _, body := u.send(t, token, query, scope, name, data)
	return code, body
}

// send sends a club workbook as the entry list page's form does: the
// status, the Location it answers and the page's text, unescaped.
func (u *ui) send(t, token, query, scope, name string, data []byte) (int, string, string) {
	u.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if err := mw.WriteField("scope", scope); err != nil {
		u.t.Fatal(err)
	}
	fw, err := mw.CreateFormFile("workbook", name)
	if err != nil {
		u.t.Fatal(err)
	}
	if _, err := fw.Write(data); err != nil {
		u.t.Fatal(err)
	}
	if err := mw.Close(); err != nil {
		u.t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", u.srv.URL+"/ui/t/"+t+"/players/workbook"+query, &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Origin", u.srv.URL)
	req.AddCookie(&http.Cookie{Name: "referto_token", Value: token})
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(req)
	if err != nil {
		u.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("Location"), html.UnescapeString(string(b))
}

// uploaded is upload of a file the ledger accepts: the status and where
// the answer leads.
func (u *ui) uploaded(t, token, query, scope, name string, data []byte) (int, string) {
	u.t.Helper()
	code, loc, _ := u.send(t, token, query, scope, name, data)
	return code, loc
}

// TestWorkbookUploadOnTheEntryListPage: an arbiter uploads the club's
// workbook from the entry list page, through the whole stack. A file the
// national tool or the ledger refuses is answered on the page with every
// problem in Italian (or English), each with its sheet and cell, and
// nothing is recorded; a legacy .xls is told to be saved as .xlsx. An
// accepted one leads to the entry list (303), which says what was
// recorded, the national tool's warnings, the file's standings'
// disagreements with the ruleset, as often as it is read again. The same
// file sent again records nothing more and says so; a whole tournament is not
// offered, and refused, where players are registered.
func TestWorkbookUploadOnTheEntryListPage(t *testing.T) {
	t.Parallel()
	u := newUI(t)
	arbiter := func(id string) string {
		if code, _ := u.api("POST", "/v1/tournaments", admin, `{"id":"`+id+`","name":"T","ruleset":"rtu"}`); code != 201 {
			t.Fatalf("create %s: %d", id, code)
		}
		_, m := u.api("POST", "/v1/tournaments/"+id+"/officials", admin, `{"name":"N","role":"arbiter"}`)
		tok, _ := m["token"].(string)
		return tok
	}
	arb := arbiter("mattina")
	unchanged := func(what string, before float64) {
		t.Helper()
		if got := u.seq("mattina"); got != before {
			t.Errorf("%s: the log went from %v to %v events", what, before, got)
		}
	}
	says := func(what, body string, want []string, not ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: the page does not say %q", what, w)
			}
		}
		for _, n := range not {
			if strings.Contains(body, n) {
				t.Errorf("%s: the page says %q", what, n)
			}
		}
	}

	// Refused: every problem, in Italian, with its sheet and cell.
	before := u.seq("mattina")
	broken := workbooktest.Primavera(t).Set("Iscritti", "A5", 1).Set("Iscritti", "A6", "tre").Bytes()
	code, body := u.upload("mattina", arb, "", "entry_list", "iscritti.xlsx", broken)
	if code != http.StatusBadRequest {
		t.Errorf("a broken workbook: %d", code)
	}
	says("a broken workbook", body, []string{"Il file non è stato importato, non è stato registrato nulla",
		"foglio Iscritti, cella A5</b>: È presente l'ID 1 duplicato sulla scheda Iscritti (anche in A4)",
		"foglio Iscritti, cella A6</b>: Riga n° 6 della scheda Iscritti: Colonna ID con valore non numerico"},
		"listed twice", "un valore non è accettato", "Parole del registro")
	unchanged("a broken workbook", before)
	_, body = u.upload("mattina", arb, "?lang=en", "entry_list", "iscritti.xlsx", broken)
	says("a broken workbook, in English", body, []string{"sheet Iscritti, cell A5</b>: ID 1 is listed twice in Iscritti (also in A4)"}, "duplicato")

	ole := append([]byte{0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1}, make([]byte, 504)...)
	code, body = u.upload("mattina", arb, "", "entry_list", "iscritti.xls", ole)
	if code != http.StatusBadRequest {
		t.Errorf("a legacy .xls: %d", code)
	}
	says("a legacy .xls", body, []string{"File</b>: iscritti.xls è un file Excel 97-2003 (.xls)", "salvarlo come .xlsx"}, "save it as")
	code, body = u.upload("mattina", arb, "", "tournament", "torneo.xlsx", workbooktest.Primavera(t).Set("1\u00b0 Turno", "C2", 170).Bytes())
	if code != http.StatusBadRequest {
		t.Errorf("a score the ledger refuses: %d", code)
	}
	says("a score the ledger refuses", body, []string{"foglio 1° Turno, cella C2</b>: punteggio 170: il registro accetta punti tavolo da 0 a 164"})
	code, body = u.upload("mattina", arb, "", "entry_list", "enorme.xlsx", make([]byte, 16<<20+1))
	if code != http.StatusRequestEntityTooLarge {
		t.Errorf("a file past 16 MB: %d", code)
	}
	says("a file past 16 MB", body, []string{"Il file supera 16 MB."})
	unchanged("the refusals", before)

	// Accepted: the entry list alone, with the national tool's warning.
	entries := workbooktest.Primavera(t).Set("Iscritti", "H4", nil).Set("Iscritti", "I4", nil).Bytes()
	code, loc := u.uploaded("mattina", arb, "", "entry_list", "iscritti.xlsx", entries)
	if code != http.StatusSeeOther || !strings.HasPrefix(loc, "/ui/t/mattina/players?") {
		t.Fatalf("the entry list: %d, to %q; want 303 to the entry list", code, loc)
	}
	if got := u.seq("mattina"); got != before+9 {
		t.Errorf("the entry list recorded %v events, want the import's record and 8 registrations", got-before)
	}
	// The entry list, where the upload leads, says what was recorded; a
	// reload reads it again and records nothing more.
	before = u.seq("mattina")
	for _, what := range []string{"the entry list", "the entry list reloaded"} {
		code, _, page := u.get(loc, arb)
		if code != http.StatusOK {
			t.Fatalf("%s: %d", what, code)
		}
		says(what, html.UnescapeString(page), []string{"Lista iscritti importata dal file «iscritti.xlsx»: 8 giocatori iscritti (evento 11)",
			"Avvisi del controllo del tool nazionale", "foglio Iscritti, cella H4</b>: Il giocatore \"Mario Rossi\" (ID 1) non ha né data di nascita né ID nazionale",
			`id="player-p8"`, "Anna Maria De Luca"}, "già stato importato")
	}
	unchanged("the entry list read again", before)
	// The same file sent again: nothing more, and why.
	code, body = u.upload("mattina", arb, "", "entry_list", "iscritti.xlsx", entries)
	if code != http.StatusBadRequest {
		t.Errorf("the same file again: %d", code)
	}
	says("the same file again", body, []string{"questo file (iscritti.xlsx) è già stato importato nel torneo, all'evento 3"}, "già un iscritto")
	// A whole tournament is not offered where players are registered,
	// and a forged form is refused.
	if _, _, page := u.get("/ui/t/mattina/players", arb); !strings.Contains(page, `id="workbook"`) || strings.Contains(page, `name="scope" value="tournament"`) {
		t.Error("the entry list page offers a whole tournament's import into a tournament with players, or no import")
	}
	_, body = u.upload("mattina", arb, "", "tournament", "torneo.xlsx", workbooktest.Primavera(t).Set("TORNEO", "D7", "note").Bytes())
	says("a whole tournament into one with players", body, []string{"il torneo ha già 8 iscritti: un file intero (turni e classifica) si importa solo in un torneo senza iscritti"})
	unchanged("the same file again and a whole tournament", before)

	// A whole tournament, whose standings the ruleset disagrees with.
	arb2 := arbiter("primavera")
	if _, _, page := u.get("/ui/t/primavera/players", arb2); !strings.Contains(page, `name="scope" value="tournament"`) {
		t.Error("the entry list page of a tournament without players does not offer a whole tournament's import")
	}
	rows := workbooktest.PrimaveraStandings()
	rows[3].Points = 134
	whole := workbooktest.Primavera(t).Delete("Classifica Ridotta").Standings(rows...).Set("2\u00b0 Turno", "C4", 44.1).Bytes()
	code, loc = u.uploaded("primavera", arb2, "", "tournament", "Torneo di Primavera.xlsx", whole)
	if code != http.StatusSeeOther || !strings.HasPrefix(loc, "/ui/t/primavera/players?") {
		t.Fatalf("a whole tournament: %d, to %q; want 303 to the entry list", code, loc)
	}
	_, _, body = u.get(loc, arb2)
	says("a whole tournament", html.UnescapeString(body), []string{"Torneo importato dal file «Torneo di Primavera.xlsx»: 8 giocatori, 4 tavoli, 2 turni; la classifica del file è pubblicata com'è, segnata come importata",
		"Righe della classifica del file diverse da quanto calcola il regolamento", "Luca Ferrari: nel file 4° con 134 punti; per il regolamento"})
	_, m := u.api("GET", "/v1/tournaments/primavera/classification", "", "")
	if imp, _ := m["imported"].(map[string]any); imp == nil || imp["final"] != true {
		t.Errorf("the whole tournament's classification is not the file's, final: %v", m)
	}
}
