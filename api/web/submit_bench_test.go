package web_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/referto/referto/api"
	"github.com/referto/referto/api/apitest"
)

// BenchmarkFormCommand: one registration form, as an arbiter's browser
// sends it, from the post to the redirect, over loopback to a whole node:
// accepted (a new player each time: the ledger appends, fsynced), sent
// again (the form's key already stands for it: replayed, nothing
// appended) and refused (no name: invalid, before the ledger):
//
//	go test -run '^$' -bench FormCommand -benchmem ./api/web/
func BenchmarkFormCommand(b *testing.B) {
	_, srv := apitest.ServeWith(b, b.TempDir(), admin, api.Options{})
	send := func(method, path, token, body string) (int, string) {
		b.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer res.Body.Close()
		out, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(out)
	}
	if code, body := send("POST", "/v1/tournaments", admin, `{"id":"t1","name":"T","ruleset":"rtu"}`); code != http.StatusCreated {
		b.Fatalf("create: %d %s", code, body)
	}
	code, body := send("POST", "/v1/tournaments/t1/officials", admin, `{"name":"N","role":"arbiter"}`)
	if code != http.StatusCreated {
		b.Fatalf("appoint: %d %s", code, body)
	}
	arbiter := body[strings.Index(body, `"token":"`)+len(`"token":"`):]
	arbiter = arbiter[:strings.IndexByte(arbiter, '"')]
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	post := func(form url.Values, want int) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/ui/t/t1/players", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", srv.URL)
		req.AddCookie(&http.Cookie{Name: "referto_token", Value: arbiter})
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != want {
			b.Fatalf("form %v: %d, want %d", form, res.StatusCode, want)
		}
	}
	register := func(n int) url.Values {
		return url.Values{"_action": {"register"}, "_key": {fmt.Sprintf("k%d", n)}, "player": {fmt.Sprintf("p%d", n)}, "name": {fmt.Sprintf("Giocatore %d", n)}}
	}
	next := 0 // the players registered: every run of "accepted" registers new ones
	b.Run("accepted", func(b *testing.B) {
		for range b.N {
			next++
			post(register(next), http.StatusSeeOther)
		}
	})
	post(register(0), http.StatusSeeOther)
	b.Run("replayed", func(b *testing.B) {
		for range b.N {
			post(register(0), http.StatusSeeOther)
		}
	})
	b.Run("refused", func(b *testing.B) {
		for i := range b.N {
			post(url.Values{"_action": {"register"}, "_key": {fmt.Sprintf("r%d", i)}, "player": {"px"}}, http.StatusBadRequest)
		}
	})
}
