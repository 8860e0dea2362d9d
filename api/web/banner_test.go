package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestTheBannerSaysWhatTheLedgerAnswered: a form sent twice (a reload)
// says the second time that nothing new was recorded; a form sent again
// with other values (the back button) is refused, says so, and records
// nothing; the banner comes from the events, not from the form.
func TestTheBannerSaysWhatTheLedgerAnswered(t *testing.T) {
	u := newUI(t)
	if code, _ := u.api("POST", "/v1/tournaments", admin, `{"id":"t1","name":"T","ruleset":"rtu"}`); code != 201 {
		t.Fatalf("create: %d", code)
	}
	_, m := u.api("POST", "/v1/tournaments/t1/officials", admin, `{"name":"N","role":"arbiter"}`)
	arbiter, _ := m["token"].(string)
	banner := func(loc string) string {
		t.Helper()
		_, _, body := u.get(loc, arbiter)
		_, after, _ := strings.Cut(body, `class="flash" role="status">`)
		text, _, _ := strings.Cut(after, "</p>")
		return text
	}
	form := url.Values{"_action": {"register"}, "_key": {"page1-register"}, "player": {"p001"}, "name": {"Anna"}}
	code, loc, _ := u.post("/ui/t/t1/players", arbiter, "", form)
	if got := banner(loc); code != http.StatusSeeOther || got != "Iscritto: Anna (Evento 3)" {
		t.Errorf("registered: %d, banner %q", code, got)
	}
	code, loc, _ = u.post("/ui/t/t1/players", arbiter, "", form)
	if got := banner(loc); code != http.StatusSeeOther || !strings.HasPrefix(got, "Già registrato") || !strings.HasSuffix(got, "Iscritto: Anna (Evento 3)") {
		t.Errorf("sent again: %d, banner %q", code, got)
	}
	before := u.seq("t1")
	form.Set("player", "p002")
	code, _, body := u.post("/ui/t/t1/players", arbiter, "", form)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "già stato inviato con altri valori (evento 3)") || strings.Contains(body, `class="flash"`) {
		t.Errorf("the form sent again with other values: %d\n%s", code, body)
	}
	if u.seq("t1") != before {
		t.Error("a form sent again with other values changed the log")
	}
	// A banner names the events the ledger holds, whatever the form was:
	// a check-in marked absent is a check-in recorded, not "present".
	code, loc, _ = u.post("/ui/t/t1/players", arbiter, "", url.Values{"_action": {"checkin"}, "_key": {"page2-checkin-p001"},
		"round": {"1"}, "player": {"p001"}, "absent": {"1"}})
	if got := banner(loc); code != http.StatusSeeOther || got != "Appello registrato: Anna (Evento 4)" {
		t.Errorf("checked in absent: %d, banner %q", code, got)
	}
}

// TestARefusalShowsNoEarlierBanner: a form refused on a page whose address
// still carries the banner of the form before it shows the refusal alone;
// a login with an unknown token says why it failed.
func TestARefusalShowsNoEarlierBanner(t *testing.T) {
	u := newUI(t)
	if code, _ := u.api("POST", "/v1/tournaments", admin, `{"id":"t1","name":"T","ruleset":"rtu"}`); code != 201 {
		t.Fatalf("create: %d", code)
	}
	_, m := u.api("POST", "/v1/tournaments/t1/officials", admin, `{"name":"N","role":"arbiter"}`)
	arbiter, _ := m["token"].(string)
	_, loc, _ := u.post("/ui/t/t1/players", arbiter, "", url.Values{"_action": {"register"}, "_key": {"k1"}, "player": {"p001"}, "name": {"Anna"}})
	if !strings.Contains(loc, "ok=") {
		t.Fatalf("no banner after a registration: %q", loc)
	}
	// The same player again, from the page the banner is on.
	code, _, body := u.post(loc, arbiter, "", url.Values{"_action": {"register"}, "_key": {"k2"}, "player": {"p001"}, "name": {"Anna"}})
	if code != http.StatusConflict || !strings.Contains(body, `id="problem"`) || strings.Contains(body, `class="flash"`) {
		t.Errorf("a refusal on a page with an earlier banner: %d\n%s", code, body)
	}
	code, _, body = u.post("/ui/login", "", "", url.Values{"token": {"nessuno"}})
	if code != http.StatusUnauthorized || !strings.Contains(body, "Accesso non riuscito:") || !strings.Contains(body, "Token non riconosciuto.") {
		t.Errorf("a login with an unknown token: %d\n%s", code, body)
	}
}

// TestAFieldsRefusalIsSaidAtTheField: a form's field the ledger refuses is
// said beside the field, in the page's language.
func TestAFieldsRefusalIsSaidAtTheField(t *testing.T) {
	u := newUI(t)
	if code, _ := u.api("POST", "/v1/tournaments", admin, `{"id":"t1","name":"T","ruleset":"rtu"}`); code != 201 {
		t.Fatalf("create: %d", code)
	}
	_, m := u.api("POST", "/v1/tournaments/t1/officials", admin, `{"name":"N","role":"arbiter"}`)
	arbiter, _ := m["token"].(string)
	code, _, body := u.post("/ui/t/t1/players", arbiter, "", url.Values{"_action": {"register"}, "_key": {"k1"}, "player": {"Mario Rossi"}, "name": {"Mario"}})
	_, beside, _ := strings.Cut(body, `name="player"`)
	beside, _, _ = strings.Cut(beside, "</label>")
	if code != http.StatusBadRequest || !strings.Contains(body, `<span class="err">«Mario Rossi» non va: usa lettere minuscole`) {
		t.Errorf("a bad player code: %d, beside the field %q\n%s", code, beside, problemText(body))
	}
}
