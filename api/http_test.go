package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/referto/referto/api"
	"github.com/referto/referto/api/problem"
)

// TestBearerSchemeIsCaseInsensitive: RFC 9110 §11.1, auth schemes are
// case-insensitive; one or more spaces separate it from the token.
func TestBearerSchemeIsCaseInsensitive(t *testing.T) {
	s := newStack(t)
	arb := s.create("bo", "rtu")
	for _, h := range []string{"bearer " + arb, "BEARER " + arb, "BeArEr " + arb, "Bearer   " + arb} {
		r := s.do("GET", "/v1/me", "", nil, "Authorization", h)
		if r.status != 200 {
			t.Errorf("Authorization %q: %d %s, want 200", h[:min(len(h), 12)], r.status, r.body)
		}
	}
	for _, h := range []string{"Basic " + arb, "Bearer" + arb, "Bearer ", arb, "Bearer x" + arb} {
		if r := s.do("GET", "/v1/me", "", nil, "Authorization", h); r.status != 401 {
			t.Errorf("Authorization %q: %d %s, want 401", h[:min(len(h), 12)], r.status, r.body)
		}
	}
}

// TestIfMatchFollowsRFC9110: "*" matches any current state of the
// tournament (and none when there is no tournament); a list matches when
// one of its entity tags does; a weak or unquoted entity tag is refused
// with 400 naming If-Match rather than read as if it were strong.
func TestIfMatchFollowsRFC9110(t *testing.T) {
	s := newStack(t)
	arb := s.create("bo", "rtu") // seq 2
	cmds := "/v1/tournaments/bo/commands"
	reg := func(p string) string { return `{"type":"RegisterPlayer","player":"` + p + `","name":"M"}` }
	s.must(201, "POST", cmds, arb, reg("p1"), "If-Match", "*")                                                         // seq 3
	s.must(201, "POST", cmds, arb, reg("p2"), "If-Match", `"1", "3"`)                                                  // seq 4
	s.must(201, "POST", cmds, arb, reg("p3"), "If-Match", `"9","4" , "10"`)                                            // seq 5
	s.must(412, "POST", cmds, arb, reg("p4"), "If-Match", `"1", "2"`)                                                  // not at 1 or 2
	s.must(412, "POST", "/v1/tournaments", adminToken, `{"id":"mi","name":"Milano","ruleset":"rtu"}`, "If-Match", "*") // no current state
	size := s.logSize()
	for _, tc := range []struct{ value, says string }{
		{`W/"5"`, `W/"5" is a weak entity tag`},
		{`"5", W/"5"`, `W/"5" is a weak entity tag`},
		{`5`, "5 is not a quoted entity tag"},
		{`"5`, "the closing quote is missing"},
		{`'5'`, "'5' is not a quoted entity tag"},
		{`*, "5"`, "stands alone"},
		{`"abc"`, `"abc" is not a seq`},
		{`"5" "6"`, "separated by a comma"},
		{`,`, "names no entity tag"},
	} {
		r := s.do("POST", cmds, arb, reg("p9"), "If-Match", tc.value)
		var p struct{ Code, Field, Detail string }
		_ = json.Unmarshal(r.body, &p)
		if r.status != 400 || p.Code != "invalid" || p.Field != "If-Match" || !strings.Contains(p.Detail, tc.says) {
			t.Errorf("If-Match %s: %d %s, want 400 invalid on If-Match saying %q", tc.value, r.status, r.body, tc.says)
		}
	}
	if s.logSize() != size {
		t.Error("a refused If-Match changed the log")
	}
}

// serveHTTP serves the node as referto serve does (api.HTTPServer) on a
// loopback port until the test ends.
func serveHTTP(t *testing.T, s *stack) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := api.HTTPServer(s.api.Handler())
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	return "http://" + ln.Addr().String()
}

// TestOversizedHeadersAreAProblem: headers over api.MaxHeaderBytes are
// answered 431 as problem+json, by the API rather than by net/http's plain
// text, up to the size net/http itself reads.
func TestOversizedHeadersAreAProblem(t *testing.T) {
	s := newStack(t)
	base := serveHTTP(t, s)
	for _, size := range []int{api.MaxHeaderBytes + 1, 4 * api.MaxHeaderBytes} {
		req, _ := http.NewRequest("GET", base+"/v1/tournaments", nil)
		req.Header.Set("X-Padding", strings.Repeat("x", size))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		var p problem.Problem
		if res.StatusCode != 431 || res.Header.Get("Content-Type") != "application/problem+json" ||
			json.Unmarshal(b, &p) != nil || p.Code != "headers_too_large" || p.Status != 431 || !strings.Contains(p.Detail, "64 KiB") {
			t.Errorf("%d bytes of headers: %d %s %s, want a 431 problem", size, res.StatusCode, res.Header.Get("Content-Type"), b)
		}
	}
	// Headers within the limit are served.
	req, _ := http.NewRequest("GET", base+"/v1/tournaments", nil)
	req.Header.Set("X-Padding", strings.Repeat("x", api.MaxHeaderBytes/2))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("headers within the limit: %d", res.StatusCode)
	}
}
