package web_test

import (
	"strings"
	"testing"
)

// TestAPageRefusesAReadAsItsRouteDoes: a page that reads what only some
// roles may read (the event log) refuses the token its route refuses, with
// the route's status and the problem said on the page, and shows what the
// route answers to the token it serves.
func TestAPageRefusesAReadAsItsRouteDoes(t *testing.T) {
	u := newUI(t)
	for _, id := range []string{"t1", "t2"} {
		if code, _ := u.api("POST", "/v1/tournaments", admin, `{"id":"`+id+`","name":"T","ruleset":"rtu"}`); code != 201 {
			t.Fatalf("create %s: %d", id, code)
		}
	}
	official := func(t, role string) string {
		_, m := u.api("POST", "/v1/tournaments/"+t+"/officials", admin, `{"name":"N","role":"`+role+`"}`)
		tok, _ := m["token"].(string)
		return tok
	}
	auditor, elsewhere := official("t1", "auditor"), official("t2", "arbiter")
	for _, tc := range []struct {
		name, page, route, token string
		status                   int
	}{
		{"the event log, an arbiter of another tournament", "/ui/t/t1/events", "/v1/tournaments/t1/events", elsewhere, 403},
		{"the event log, nobody", "/ui/t/t1/events", "/v1/tournaments/t1/events", "", 401},
		{"the event log, a token nobody has", "/ui/t/t1/events", "/v1/tournaments/t1/events", "t1.0123456789abcdef0123456789abcdef", 401},
		{"the event log, an auditor of the tournament", "/ui/t/t1/events", "/v1/tournaments/t1/events", auditor, 200},
	} {
		status, answer := u.api("GET", tc.route, tc.token, "")
		if status != tc.status {
			t.Fatalf("%s: the route answered %d %v, want %d", tc.name, status, answer, tc.status)
		}
		code, _, body := u.getIn("en", tc.page, tc.token)
		if code != status {
			t.Errorf("%s: the page answered %d, the route %d", tc.name, code, status)
		}
		if refused := strings.Contains(body, `id="problem"`); refused != (status != 200) {
			t.Errorf("%s: the page says a problem: %v, the route refused: %v\n%s", tc.name, refused, status != 200, body)
		}
	}
}
