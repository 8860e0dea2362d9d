package web

import (
	"strings"
	"testing"

	"github.com/referto/referto/api/problem"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/fault"
	"github.com/referto/referto/projections/ranking"
)

// TestParametersHaveLabels: every parameter of every preset is said in
// words in both languages: no parameter name (tp_bonus), no Go slice ([4 5]),
// no label key left untranslated.
func TestParametersHaveLabels(t *testing.T) {
	for _, lang := range []string{"it", "en"} {
		for _, id := range events.Presets() {
			rs, _ := events.Preset(id)
			for _, p := range params(lang, rs) {
				for _, s := range []string{p.Label, p.Value} {
					if strings.ContainsAny(s, "[]_") || strings.HasPrefix(s, "param") || strings.HasPrefix(s, "formula_") || strings.Contains(s, "knockout_") {
						t.Errorf("%s %s: %s is %q = %q", lang, id, p.Key, p.Label, p.Value)
					}
				}
			}
		}
	}
}

// TestRefusalsAreSaidInThePagesLanguage: the ledger's messages a page
// meets are said again in Italian, the field by its label and the player
// by his name; one the catalogue does not know is said by its kind, the
// ledger's words kept apart.
func TestRefusalsAreSaidInThePagesLanguage(t *testing.T) {
	names := map[string]string{"p01": "Mario Rossi", "p02": "Giulia Bianchi"}
	name := func(id string) string { return names[id] }
	seat := func(i int) string { return []string{"Mario Rossi", "Giulia Bianchi"}[i] }
	prob := &Problem{Problem: problem.Problem{Status: 400, Code: fault.Invalid}}
	prob.Errors = append(prob.Errors,
		problem.Field{Field: "players[0].table_points", Detail: "95 table points is more than the board can give: at most 86, the most any objective of set rtu-16 is worth (objective 1; projections/board/data/objectives.json)", Rule: "docs/rules.md#31-pinned-board-bounds"},
		problem.Field{Field: "closed_by", Detail: `this ruleset ends games only by objective, not time`, Rule: "cirki-2001 §12"},
		problem.Field{Field: "players[1].turn", Detail: "p02 plays 3rd in the recorded turn order (p01, p03, p02)", Rule: ""},
	)
	v := viewProblem("it", prob, seat, name)
	want := []string{
		"Punti tavolo · Mario Rossi: 95 punti tavolo sono più di quanti ne dia il tabellone: al massimo 86.",
		"Chiusura: questo regolamento chiude le partite solo per obiettivo, non per tempo.",
		"Ordine di gioco · Giulia Bianchi: Giulia Bianchi gioca in un'altra posizione dell'ordine di gioco registrato (Mario Rossi, p03, Giulia Bianchi).",
	}
	for i, l := range v.Lines {
		if got := l.Field + ": " + l.Text; got != want[i] {
			t.Errorf("line %d: %q\nwant %q", i, got, want[i])
		}
	}
	if got, want := v.Lines[0].Rule, "regole di referto, §3.1 «Limiti del tabellone» (rur-2015 art. 7 e 30; campionato-2003 «Numero massimo di armate»)"; got != want {
		t.Errorf("the rule of a board bound: %q, want %q", got, want)
	}
	unknown := viewProblem("it", &Problem{Problem: problem.Problem{Status: 422, Code: fault.RuleViolation, Detail: "something the catalogue has never seen"}}, nil, name)
	if l := unknown.Lines[0]; l.Text != "il regolamento del torneo non lo consente." {
		t.Errorf("an unknown message: %+v", l)
	}
}

// TestRankingReasonsAreSaidInItalian: every reason the ranking gives for a
// result that does not count has its Italian words, which take the
// reason's arguments as the English does; English pages show the ledger's
// own text.
func TestRankingReasonsAreSaidInItalian(t *testing.T) {
	args := map[string][]any{
		ranking.WhyNoThresholds: {"MASTER", "seasons/2024.json"}, ranking.WhyFewTables: {5, "MASTER", 6, "2024"},
		ranking.WhyHeld: {"venue roma's key is not registered"}, ranking.WhyQuarantined: {"line 7: bad link"},
		ranking.WhyPastCheckpoint: {212, 200}, ranking.WhyDisqualified: {"2024-04-01", "2024-06-30", "art. 5"},
		ranking.WhyRoundsCap: {45, "CAMPIONATO", 48}, ranking.WhyPastBest: {3, "MASTER"},
	}
	for _, code := range ranking.WhyCodes() {
		w := ranking.Because(code, args[code]...)
		it, en := whyText("it", w), whyText("en", w)
		if !hasLabel("why_"+code) || it == w.Text || strings.Contains(it, "%!") {
			t.Errorf("%s: Italian %q (English %q)", code, it, w.Text)
		}
		if en != w.Text || strings.Contains(en, "%!") {
			t.Errorf("%s: English %q, want %q", code, en, w.Text)
		}
		for _, a := range w.Args {
			if !strings.Contains(it, a) {
				t.Errorf("%s: the Italian %q leaves out %q", code, it, a)
			}
		}
	}
	if got := whyText("it", ranking.Because(ranking.WhyFewTables, 5, "MASTER", 6, "2024")); got != "troppo pochi tavoli: 5, un MASTER ne richiede 6 nella stagione 2024" {
		t.Errorf("few tables, in Italian: %q", got)
	}
}
