package web_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/referto/referto/api"
	"github.com/referto/referto/api/apitest"
	"github.com/referto/referto/api/node"
)

// ui is a node behind a loopback server, for form posts without a browser.
type ui struct {
	t    *testing.T
	node *node.Node
	srv  *httptest.Server
}

func newUI(t *testing.T) *ui {
	t.Helper()
	return newUIWith(t, api.Options{})
}

// newUIWith is newUI with the API's options o.
func newUIWith(t *testing.T, o api.Options) *ui {
	t.Helper()
	n, srv := apitest.ServeWith(t, t.TempDir(), admin, o)
	return &ui{t: t, node: n, srv: srv}
}

// api sends a JSON request to the API with a bearer token.
func (u *ui) api(method, path, token, body string) (int, map[string]any) {
	u.t.Helper()
	req, _ := http.NewRequest(method, u.srv.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := httpClient().Do(req)
	if err != nil {
		u.t.Fatal(err)
	}
	defer res.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(res.Body).Decode(&m)
	return res.StatusCode, m
}

// post sends a form as a browser on the UI's own origin would (origin ""
// for same-origin), with the official's session cookie.
func (u *ui) post(path, token, origin string, form url.Values) (int, string, string) {
	u.t.Helper()
	req, _ := http.NewRequest("POST", u.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if origin == "" {
		origin = u.srv.URL
	}
	req.Header.Set("Origin", origin)
	req.AddCookie(&http.Cookie{Name: "referto_token", Value: token})
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(req)
	if err != nil {
		u.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("Location"), string(b)
}

func (u *ui) get(path, token string) (int, http.Header, string) {
	u.t.Helper()
	return u.getIn("", path, token)
}

// getIn is get with the page's language chosen (the language cookie), ""
// for the default.
func (u *ui) getIn(lang, path, token string) (int, http.Header, string) {
	u.t.Helper()
	req, _ := http.NewRequest("GET", u.srv.URL+path, nil)
	req.AddCookie(&http.Cookie{Name: "referto_token", Value: token})
	if lang != "" {
		req.AddCookie(&http.Cookie{Name: "referto_lang", Value: lang})
	}
	res, err := httpClient().Do(req)
	if err != nil {
		u.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(b)
}

func (u *ui) seq(t string) float64 {
	u.t.Helper()
	_, m := u.api("GET", "/v1/tournaments/"+t, "", "")
	seq, _ := m["seq"].(float64)
	return seq
}

// TestFormsGoThroughTheCommandEndpoint: the server, not the UI, decides
// what a role may do; forms from another site are refused; a CSV import
// sent twice registers each player once; the CSV export cannot smuggle a
// formula into a spreadsheet; pages print.
func TestFormsGoThroughTheCommandEndpoint(t *testing.T) {
	u := newUI(t)
	if code, _ := u.api("POST", "/v1/tournaments", admin, `{"id":"t1","name":"T","ruleset":"rtu"}`); code != 201 {
		t.Fatalf("create: %d", code)
	}
	token := func(role string) string {
		_, m := u.api("POST", "/v1/tournaments/t1/officials", admin, `{"name":"N","role":"`+role+`"}`)
		tok, _ := m["token"].(string)
		return tok
	}
	arbiter, auditor := token("arbiter"), token("auditor")

	// An auditor is offered no forms, and a forged post is refused by the
	// command endpoint with its problem, the log untouched.
	if _, _, body := u.get("/ui/t/t1/players", auditor); strings.Contains(body, `id="register"`) || strings.Contains(body, `id="import"`) {
		t.Error("an auditor is offered registration")
	}
	before := u.seq("t1")
	code, _, body := u.post("/ui/t/t1/players", auditor, "", url.Values{"_action": {"register"}, "player": {"p1"}, "name": {"X"}})
	if code != http.StatusForbidden || !strings.Contains(body, "il tuo ruolo non può farlo") {
		t.Errorf("an auditor's registration: %d\n%s", code, body)
	}
	if u.seq("t1") != before {
		t.Error("a refused form changed the log")
	}

	// Another site's form is refused before anything is sent.
	if code, _, _ := u.post("/ui/t/t1/players", arbiter, "https://evil.example", url.Values{"_action": {"register"}, "player": {"p1"}, "name": {"X"}}); code != http.StatusForbidden {
		t.Errorf("a cross-site form: %d", code)
	}

	// A CSV import, sent twice with the same form key (a reload): one
	// registration each. A bad line is named.
	csv := url.Values{"_action": {"import"}, "_key": {"k1"}, "csv": {"player,name,club\np001,Anna,=1+1\np002,Bruno,Bologna\n"}}
	for range 2 {
		if code, loc, body := u.post("/ui/t/t1/players", arbiter, "", csv); code != http.StatusSeeOther || !strings.Contains(loc, "imported") {
			t.Fatalf("import: %d %s\n%s", code, loc, body)
		}
	}
	_, m := u.api("GET", "/v1/tournaments/t1/players", "", "")
	if n := len(m["players"].([]any)); n != 2 {
		t.Errorf("%d players after importing two lines twice", n)
	}
	code, _, body = u.post("/ui/t/t1/players", arbiter, "", url.Values{"_action": {"import"}, "csv": {"p003,Carla\np004\n"}})
	if code != http.StatusBadRequest || !strings.Contains(body, "riga 2") {
		t.Errorf("a bad CSV line: %d\n%s", code, body)
	}

	// The standings as CSV: a name or club starting like a formula is
	// quoted as text.
	code, h, body := u.get("/ui/t/t1/standings.csv", "")
	if code != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/csv") || !strings.Contains(body, `'=1+1`) {
		t.Errorf("standings CSV: %d %s\n%s", code, h.Get("Content-Type"), body)
	}

	// Pages carry a print stylesheet; slips and standings print.
	if _, _, css := u.get("/static/style.css", ""); !strings.Contains(css, "@media print") || !strings.Contains(css, ".slip") {
		t.Error("no print stylesheet for the slips")
	}
	if code, h, _ := u.get("/ui/t/t1/standings", ""); code != 200 || !strings.Contains(h.Get("Content-Security-Policy"), "default-src 'self'") {
		t.Errorf("standings page: %d, CSP %q", code, h.Get("Content-Security-Policy"))
	}
}

// TestSanctionFormNamesTheOffence: under the rur regime the sanction form
// offers the offence list, and the ladder follows the offence chosen, not
// the article typed (rur-2015 art. 33, docs/rules.md#10-sanctions): a first art. 33
// offence is a reminder recorded with its offence and the article it
// defaults to; a second reminder is refused with the rule.
func TestSanctionFormNamesTheOffence(t *testing.T) {
	u := newUI(t)
	if code, _ := u.api("POST", "/v1/tournaments", admin, `{"id":"t1","name":"T","ruleset":"rur-2015"}`); code != 201 {
		t.Fatalf("create: %d", code)
	}
	_, m := u.api("POST", "/v1/tournaments/t1/officials", admin, `{"name":"N","role":"arbiter"}`)
	arbiter, _ := m["token"].(string)
	for _, cmd := range []string{`{"type":"RegisterPlayer","player":"p1","name":"A"}`, `{"type":"RegisterPlayer","player":"p2","name":"B"}`,
		`{"type":"RegisterPlayer","player":"p3","name":"C"}`, `{"type":"RegisterPlayer","player":"p4","name":"D"}`, `{"type":"CloseRegistration"}`,
		`{"type":"DrawTables","round":1,"tables":[{"table":1,"players":["p1","p2","p3","p4"]}]}`} {
		if code, m := u.api("POST", "/v1/tournaments/t1/commands", arbiter, cmd); code != 201 {
			t.Fatalf("%s: %d %v", cmd, code, m)
		}
	}
	if _, _, body := u.get("/ui/t/t1/sanctions", arbiter); !strings.Contains(body, `name="offence"`) || !strings.Contains(body, "rur-2015 art. 33") {
		t.Error("the sanction form of a rur-2015 tournament offers no offence")
	}
	form := url.Values{"_action": {"impose"}, "player": {"p3"}, "round": {"1"}, "table": {"1"}, "kind": {"reminder"}, "offence": {"rur-2015 art. 33"}}
	form.Set("_key", "s1")
	if code, loc, body := u.post("/ui/t/t1/sanctions", arbiter, "", form); code != http.StatusSeeOther {
		t.Fatalf("first offence: %d %s\n%s", code, loc, body)
	}
	_, st := u.api("GET", "/v1/tournaments/t1/state", "", "")
	sanctions, _ := st["sanctions"].([]any)
	if len(sanctions) != 1 {
		t.Fatalf("%d sanctions after the form, want 1", len(sanctions))
	}
	if s := sanctions[0].(map[string]any); s["offence"] != "rur-2015 art. 33" || s["article"] != "rur-2015 art. 33" {
		t.Errorf("recorded sanction %v: want offence and article rur-2015 art. 33", s)
	}
	form.Set("_key", "s2")
	if code, _, body := u.post("/ui/t/t1/sanctions", arbiter, "", form); code != http.StatusUnprocessableEntity || !strings.Contains(body, "infrazione n. 2") {
		t.Errorf("a second reminder for art. 33: %d\n%s", code, body)
	}
}

// TestTheCallOfARoundIsSaidOptional: the check-in card of the entry list
// and the draw form both say, in Italian and in English, that the call is
// optional and what a call once started does to the draw (docs/rules.md#111-pinned-the-call-of-a-round-is-optional).
func TestTheCallOfARoundIsSaidOptional(t *testing.T) {
	t.Parallel()
	u := newUI(t)
	if code, _ := u.api("POST", "/v1/tournaments", admin, `{"id":"t1","name":"T","ruleset":"rtu"}`); code != 201 {
		t.Fatalf("create: %d", code)
	}
	_, m := u.api("POST", "/v1/tournaments/t1/officials", admin, `{"name":"N","role":"arbiter"}`)
	arbiter, _ := m["token"].(string)
	for _, cmd := range []string{`{"type":"RegisterPlayer","player":"p1","name":"A"}`, `{"type":"RegisterPlayer","player":"p2","name":"B"}`,
		`{"type":"RegisterPlayer","player":"p3","name":"C"}`, `{"type":"RegisterPlayer","player":"p4","name":"D"}`, `{"type":"CloseRegistration"}`} {
		if code, m := u.api("POST", "/v1/tournaments/t1/commands", arbiter, cmd); code != 201 {
			t.Fatalf("%s: %d %v", cmd, code, m)
		}
	}
	// form is the form of the page with the given id, as rendered.
	form := func(path, id string) string {
		t.Helper()
		code, _, body := u.get(path, arbiter)
		i := strings.Index(body, `id="`+id+`"`)
		if code != 200 || i < 0 {
			t.Fatalf("%s: %d, no form #%s", path, code, id)
		}
		j := strings.Index(body[i:], "</form>")
		if j < 0 {
			t.Fatalf("%s: form #%s never ends", path, id)
		}
		return body[i : i+j]
	}
	for _, c := range []struct{ lang, want string }{
		{"it", "L&#39;appello è facoltativo: senza appello il sorteggio usa la lista degli iscritti"},
		{"en", "The call is optional: with no call the draw uses the entry list"},
	} {
		for _, f := range []struct{ path, id string }{{"/ui/t/t1/players", "scan"}, {"/ui/t/t1/rounds/1", "draw"}} {
			if got := form(f.path+"?lang="+c.lang, f.id); !strings.Contains(got, `id="call-optional"`) || !strings.Contains(got, c.want) {
				t.Errorf("%s #%s in %s does not say the call is optional:\n%s", f.path, f.id, c.lang, got)
			}
		}
	}
}

// TestAFormRefusedBeforeTheLedgerIsAPageInItsLanguage: a form from another
// site, or one too large to read, is refused before any command is sent,
// with a page of the UI that says why in the page's language, never the
// server's plain text, and the log untouched.
func TestAFormRefusedBeforeTheLedgerIsAPageInItsLanguage(t *testing.T) {
	u := newUI(t)
	if code, _ := u.api("POST", "/v1/tournaments", admin, `{"id":"t1","name":"T","ruleset":"rtu"}`); code != 201 {
		t.Fatalf("create: %d", code)
	}
	_, m := u.api("POST", "/v1/tournaments/t1/officials", admin, `{"name":"N","role":"arbiter"}`)
	arbiter, _ := m["token"].(string)
	before := u.seq("t1")
	register := url.Values{"_action": {"register"}, "player": {"p1"}, "name": {"X"}}
	big := url.Values{"_action": {"import"}, "csv": {strings.Repeat("p,x\n", 300_000)}}
	for _, tc := range []struct {
		name, path, origin string
		form               url.Values
		status             int
		says, never        []string
	}{
		{"another site, Italian", "/ui/t/t1/players", "https://evil.example", register, http.StatusForbidden,
			[]string{`<html lang="it"`, "Modulo rifiutato", "arriva da un altro sito"}, []string{"Form refused", "another site"}},
		{"another site, English", "/ui/t/t1/players?lang=en", "https://evil.example", register, http.StatusForbidden,
			[]string{`<html lang="en"`, "Form refused", "comes from another site"}, []string{"Modulo", "arriva"}},
		{"another site's logout", "/ui/logout", "https://evil.example", url.Values{}, http.StatusForbidden,
			[]string{"Modulo rifiutato", "arriva da un altro sito"}, nil},
		{"too large", "/ui/t/t1/players", "", big, http.StatusRequestEntityTooLarge,
			[]string{"Modulo rifiutato", "Il modulo supera 1 MB"}, []string{"too large"}},
	} {
		code, _, body := u.post(tc.path, arbiter, tc.origin, tc.form)
		if code != tc.status {
			t.Errorf("%s: %d, want %d\n%s", tc.name, code, tc.status, body)
		}
		for _, s := range tc.says {
			if !strings.Contains(body, s) {
				t.Errorf("%s: the page does not say %q:\n%s", tc.name, s, body)
			}
		}
		for _, s := range tc.never {
			if strings.Contains(body, s) {
				t.Errorf("%s: the page says %q:\n%s", tc.name, s, body)
			}
		}
	}
	if got := u.seq("t1"); got != before {
		t.Errorf("seq %v after refused forms, want %v", got, before)
	}
}
