package web_test

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// myLiveParts are the live parts of a player's page, by id.
var myLiveParts = []string{"my-table", "my-scores", "my-standings", "my-sanctions", "my-contestations"}

// TestMyPageAsRendered plays the pages' scenario command by command and,
// after each, reads every player's page in both languages twice: as
// live.js does (X-Live: 1), where the page's live parts are served as last
// rendered when what they show did not change, and its table within them
// likewise; and as a reload that asks for no cache, which renders the
// whole page afresh. Each live part must be the same in both but for its
// forms' keys, and the live read must carry the page's seq. A table served
// as last rendered keeps the keys of the read before, which shows that the
// test compared something; a table rendered again that shows what it
// showed before is logged: what it was rendered from changed, but nothing
// it shows.
func TestMyPageAsRendered(t *testing.T) {
	s := newScenario(t)
	type reader struct{ player, lang string }
	last := map[reader]map[string]string{} // the live read after the command before
	kept, rendered, formless, again, same := 0, 0, 0, 0, 0
	for _, st := range s.stages() {
		if st.commands == nil {
			continue
		}
		for _, cmd := range st.commands() {
			s.send(st.name, cmd)
			for player, token := range s.links {
				for _, lang := range []string{"it", "en"} {
					rd := reader{player, lang}
					live := myPage(t, s.u, token, lang, http.Header{"X-Live": {"1"}})
					fresh := myPage(t, s.u, token, lang, http.Header{"Cache-Control": {"no-cache"}})
					for _, id := range append(myLiveParts, "seq") {
						if withoutKeys(live[id]) != withoutKeys(fresh[id]) {
							t.Fatalf("%s, after %.80s: %s's %s (%s) served live:\n%s\nrendered afresh:\n%s", st.name, cmd, player, id, lang, live[id], fresh[id])
						}
					}
					before := last[rd]
					switch table := live["my-table"]; {
					case !strings.Contains(table, `name="_key"`):
						formless++
					case table == before["my-table"]:
						kept++
					case withoutKeys(table) == withoutKeys(before["my-table"]):
						t.Logf("%s, after %.60s: %s's table (%s) rendered again, the same", st.name, cmd, player, lang)
						again++
					default:
						rendered++
					}
					unchanged := before != nil
					for _, id := range myLiveParts {
						unchanged = unchanged && live[id] == before[id]
					}
					if unchanged {
						same++
					}
					last[rd] = live
				}
			}
		}
	}
	t.Logf("tables: %d served as last rendered, %d rendered again, %d same rendered again, %d without a form; %d live reads the same as the one before", kept, rendered, again, formless, same)
	if kept == 0 || rendered == 0 || same == 0 {
		t.Fatalf("%d tables served as last rendered, %d rendered again, %d live reads the same as before: want some of each", kept, rendered, same)
	}
}

// myPage reads the player's page with the header h and returns its live
// parts by id, and its seq as "seq".
func myPage(t *testing.T, u *ui, token, lang string, h http.Header) map[string]string {
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
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET me (%v): %d:\n%.800s", h, res.StatusCode, page)
	}
	parts := map[string]string{}
	for _, id := range myLiveParts {
		from := strings.Index(page, `<section class="card" id="`+id+`"`)
		to := strings.Index(page[max(from, 0):], "</section>")
		if from < 0 || to < 0 {
			t.Fatalf("GET me (%v): no %s part:\n%.800s", h, id, page)
		}
		parts[id] = page[from : from+to]
	}
	m := pageSeq.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("GET me (%v): no seq:\n%.800s", h, page)
	}
	parts["seq"] = m[1]
	return parts
}

var (
	formKey = regexp.MustCompile(`name="_key" value="[^"]*"`)
	pageSeq = regexp.MustCompile(`<body [^>]*data-seq="([0-9]+)"`)
)

// withoutKeys is a part with its forms' keys (drawn anew at each render)
// blanked.
func withoutKeys(part string) string {
	return formKey.ReplaceAllString(part, `name="_key" value=""`)
}
