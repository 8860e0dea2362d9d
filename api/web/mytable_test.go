package web_test

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestMyTableAsRendered plays the pages' scenario command by command and,
// after each, reads every player's page in both languages twice: as
// live.js does (X-Live: 1), where the player's table is served as last
// rendered when what it shows did not change, and as a reload that asks
// for no cache, which renders it afresh. The two tables must be the same
// but for their forms' keys; a table served as last rendered keeps the
// keys of the render before, which shows that the test compared something.
// A table rendered again that shows what it showed before is logged: what
// it was rendered from changed, but nothing it shows.
func TestMyTableAsRendered(t *testing.T) {
	s := newScenario(t)
	type reader struct{ player, lang string }
	last := map[reader]string{} // the table as rendered afresh after the command before
	kept, rendered, formless, again := 0, 0, 0, 0
	for _, st := range s.stages() {
		if st.commands == nil {
			continue
		}
		for _, cmd := range st.commands() {
			s.send(st.name, cmd)
			for player, token := range s.links {
				for _, lang := range []string{"it", "en"} {
					rd := reader{player, lang}
					live := myTable(t, s.u, token, lang, http.Header{"X-Live": {"1"}})
					fresh := myTable(t, s.u, token, lang, http.Header{"Cache-Control": {"no-cache"}})
					if withoutKeys(live) != withoutKeys(fresh) {
						t.Fatalf("%s, after %.80s: %s's table (%s) served:\n%s\nrendered afresh:\n%s", st.name, cmd, player, lang, live, fresh)
					}
					switch {
					case !strings.Contains(live, `name="_key"`):
						formless++
					case live == last[rd]:
						kept++
					case withoutKeys(live) == withoutKeys(last[rd]):
						t.Logf("%s, after %.60s: %s's table (%s) rendered again, the same", st.name, cmd, player, lang)
						again++
					default:
						rendered++
					}
					last[rd] = fresh
				}
			}
		}
	}
	t.Logf("%d tables served as last rendered, %d rendered again, %d same rendered again, %d without a form", kept, rendered, again, formless)
	if kept == 0 || rendered == 0 {
		t.Fatalf("%d tables served as last rendered and %d rendered again: want some of each", kept, rendered)
	}
}

// myTable reads the player's page with the header h and returns its
// my-table part.
func myTable(t *testing.T, u *ui, token, lang string, h http.Header) string {
	t.Helper()
	req, _ := http.NewRequest("GET", u.srv.URL+"/ui/t/torneo-pagine/me", nil)
	req.Header = h
	req.AddCookie(&http.Cookie{Name: "referto_token", Value: token})
	req.AddCookie(&http.Cookie{Name: "referto_lang", Value: lang})
	res, err := httpClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	page := string(b)
	from := strings.Index(page, `<section class="card" id="my-table"`)
	to := strings.Index(page, `<section class="card" id="my-scores"`)
	if res.StatusCode != http.StatusOK || from < 0 || to < from {
		t.Fatalf("GET me (%v): %d, no my-table part:\n%.800s", h, res.StatusCode, page)
	}
	return strings.TrimSpace(page[from:to])
}

var formKey = regexp.MustCompile(`name="_key" value="[^"]*"`)

// withoutKeys is a part with its forms' keys (drawn anew at each render)
// blanked.
func withoutKeys(part string) string {
	return formKey.ReplaceAllString(part, `name="_key" value=""`)
}
