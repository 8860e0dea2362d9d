package web_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestTheEntryListCountsOnlyThoseEntered: a refused registration is no
// entry. The entry list's heading counts the players entered (a reserve
// among them), lists them alone in its table, and shows the refused
// registrations apart, with their reason; the tournament as it stood at an
// event counts them the same way.
func TestTheEntryListCountsOnlyThoseEntered(t *testing.T) {
	u := newUI(t)
	if code, m := u.api("POST", "/v1/tournaments", admin, `{"id":"conta","name":"Torneo del conteggio","ruleset":"rur-2015"}`); code != 201 {
		t.Fatalf("create: %d %v", code, m)
	}
	_, m := u.api("POST", "/v1/tournaments/conta/officials", admin, `{"name":"Arbitro capo","role":"arbiter"}`)
	arb, _ := m["token"].(string)
	for _, cmd := range []string{
		`{"type":"RegisterPlayer","player":"p1","name":"Mario Rossi"}`,
		`{"type":"RegisterPlayer","player":"p2","name":"Giulia Bianchi"}`,
		`{"type":"RegisterPlayer","player":"p3","name":"Luca Ferrari"}`,
		`{"type":"DesignateReserve","player":"r1","name":"Riccardo Riserva"}`,
		`{"type":"RefuseRegistration","player":"p9","name":"Nino Neri","reason":"Quota non versata"}`,
		`{"type":"RefuseRegistration","player":"p8","name":"Ugo Verdi","reason":"Iscrizione arrivata tardi"}`,
	} {
		if code, m := u.api("POST", "/v1/tournaments/conta/commands", arb, cmd); code != 201 {
			t.Fatalf("%s: %d %v", cmd, code, m)
		}
	}
	for _, who := range []struct{ name, token string }{{"the arbiter", arb}, {"a visitor", ""}} {
		_, _, body := u.get("/ui/t/conta/players", who.token)
		if h := regexp.MustCompile(`(?s)<h1[^>]*>(.*?)</h1>`).FindStringSubmatch(body); h == nil || !strings.Contains(h[1], "(4)") {
			t.Errorf("%s: the entry list is headed %q, want 4 entered (three players and the reserve)", who.name, h)
		}
		table := part(body, `id="players-body"`, "</tbody>")
		for _, id := range []string{"p1", "p2", "p3", "r1"} {
			if !strings.Contains(table, fmt.Sprintf(`id="player-%s"`, id)) {
				t.Errorf("%s: %s is not in the entry list", who.name, id)
			}
		}
		for _, id := range []string{"p8", "p9"} {
			if strings.Contains(table, fmt.Sprintf(`id="player-%s"`, id)) {
				t.Errorf("%s: the refused %s is listed among the players entered", who.name, id)
			}
		}
		refused := part(body, `id="refused"`, "</section>")
		for _, want := range []string{"Iscrizioni rifiutate <small>(2)</small>", `id="refused-p9"`, "Nino Neri", "Quota non versata", `id="refused-p8"`} {
			if !strings.Contains(refused, want) {
				t.Errorf("%s: the refused registrations do not show %q", who.name, want)
			}
		}
	}
	seq := int(u.seq("conta"))
	if _, _, body := u.get(fmt.Sprintf("/ui/t/conta/at/%d", seq), ""); !strings.Contains(body, "4 iscritti") {
		t.Errorf("the tournament at event %d does not count 4 entered:\n%s", seq, body)
	}
}

// part is the part of a page from the element marked by from to the first
// end after it; "" when the page has no such element.
func part(body, from, end string) string {
	i := strings.Index(body, from)
	if i < 0 {
		return ""
	}
	rest := body[i:]
	if j := strings.Index(rest, end); j >= 0 {
		return rest[:j+len(end)]
	}
	return rest
}
