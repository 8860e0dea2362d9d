package web_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestPrintableListsArePaged: the players' link slips and a round's table
// slips come a page at a time, each page with the QR codes of its own
// players only and the way to the others; together the pages hold every
// player once.
func TestPrintableListsArePaged(t *testing.T) {
	t.Parallel()
	u := newUI(t)
	if code, _ := u.api("POST", "/v1/tournaments", admin, `{"id":"big","name":"Big","ruleset":"rtu"}`); code != 201 {
		t.Fatalf("create: %d", code)
	}
	_, m := u.api("POST", "/v1/tournaments/big/officials", admin, `{"name":"N","role":"arbiter"}`)
	arb, _ := m["token"].(string)
	const players = 132 // 33 tables of 4: two pages of each list
	for i := range players {
		if code, m := u.api("POST", "/v1/tournaments/big/commands", arb, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%03d","name":"Giocatore %d"}`, i, i)); code != 201 {
			t.Fatalf("register: %d %v", code, m)
		}
	}
	for _, c := range []string{`{"type":"CloseRegistration"}`, `{"type":"DrawTables","round":1,"seed":"big"}`} {
		if code, m := u.api("POST", "/v1/tournaments/big/commands", arb, c); code != 201 {
			t.Fatalf("%s: %d %v", c, code, m)
		}
	}
	if code, m := u.api("POST", "/v1/tournaments/big/player-tokens", arb, `{}`); code != 201 {
		t.Fatalf("links: %d %v", code, m)
	}
	for _, list := range []struct {
		path, item string
		pages      []int // the items on each page
	}{
		{"/ui/t/big/links", `class="entry-slip"`, []int{100, 32}},
		{"/ui/t/big/rounds/1/slips", `class="slip"`, []int{25, 8}},
	} {
		seen := map[string]int{}
		for i, want := range list.pages {
			page := i + 1
			code, _, body := u.get(fmt.Sprintf("%s?page=%d", list.path, page), arb)
			if code != 200 {
				t.Fatalf("%s page %d: %d", list.path, page, code)
			}
			if got := strings.Count(body, list.item); got != want {
				t.Errorf("%s page %d: %d items, want %d", list.path, page, got, want)
			}
			for j := range players {
				if strings.Contains(body, fmt.Sprintf(">Giocatore %d<", j)) || strings.Contains(body, fmt.Sprintf("<b>Giocatore %d</b>", j)) {
					seen[fmt.Sprint(j)]++
				}
			}
			qrs := strings.Count(body, `<svg class="qr"`)
			if wantQR := min(players-100*i, 100); list.item == `class="entry-slip"` && qrs != wantQR {
				t.Errorf("%s page %d: %d QR codes, want %d (its players' only)", list.path, page, qrs, wantQR)
			}
			if qrs > 100 {
				t.Errorf("%s page %d: %d QR codes", list.path, page, qrs)
			}
			pages := fmt.Sprintf("Pagina %d / %d", page, len(list.pages))
			if !strings.Contains(body, pages) {
				t.Errorf("%s page %d does not say %q", list.path, page, pages)
			}
			if next := fmt.Sprintf(`href="%s?page=%d"`, list.path, page+1); (page < len(list.pages)) != strings.Contains(body, next) {
				t.Errorf("%s page %d: link to the next page %v, want %v", list.path, page, strings.Contains(body, next), page < len(list.pages))
			}
		}
		if len(seen) != players {
			t.Errorf("%s: %d players over the pages, want %d", list.path, len(seen), players)
		}
		for p, n := range seen {
			if n != 1 {
				t.Errorf("%s: player %s on %d pages", list.path, p, n)
			}
		}
	}
}
