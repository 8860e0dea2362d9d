package api_test

import (
	"strings"
	"testing"
)

// TestTheWebUIIsOnTheAPIRouter: the UI's pages are routes of the API's
// router, behind its one middleware chain: each answer carries a request
// id and is counted under its page's route template. Below the UI's paths,
// what it does not serve is answered as a page in the browser's language;
// the API's paths keep their problems.
func TestTheWebUIIsOnTheAPIRouter(t *testing.T) {
	s := newStack(t)
	s.create("web", "rtu")
	if r := s.must(200, "GET", "/ui/t/web/players", "", nil); r.header.Get("X-Request-Id") == "" {
		t.Error("a UI page without a request id: not behind the API's middleware")
	}
	s.must(200, "HEAD", "/ui/login", "", nil)
	if got := s.scrape().get("referto_http_requests_total", "route", "/ui/t/{t}/players", "method", "GET", "status", "200"); got != 1 {
		t.Errorf("requests of route /ui/t/{t}/players: %v, want 1", got)
	}

	for _, tc := range []struct {
		method, path string
		status       int
		contentType  string
		allow        string
		says         string
	}{
		{"GET", "/ui/nothing", 404, "text/html", "", "Questa pagina non esiste"},
		{"PUT", "/ui/login", 405, "text/html", "GET, HEAD, POST", "Questa pagina non accetta questa richiesta"},
		{"POST", "/static/style.css", 405, "text/html", "GET, HEAD", "Questa pagina non accetta questa richiesta"},
		{"GET", "/v1/nothing", 404, "application/problem+json", "", ""},
		{"PUT", "/v1/tournaments", 405, "application/problem+json", "", ""},
	} {
		r := s.do(tc.method, tc.path, "", nil)
		if r.status != tc.status || !strings.HasPrefix(r.header.Get("Content-Type"), tc.contentType) || r.header.Get("Allow") != tc.allow {
			t.Errorf("%s %s: %d %q Allow %q, want %d %s Allow %q", tc.method, tc.path, r.status, r.header.Get("Content-Type"),
				r.header.Get("Allow"), tc.status, tc.contentType, tc.allow)
		}
		if !strings.Contains(string(r.body), tc.says) {
			t.Errorf("%s %s does not say %q:\n%s", tc.method, tc.path, tc.says, r.body)
		}
	}
}
