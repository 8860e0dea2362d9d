package web

import (
	"strings"
	"testing"

	"github.com/referto/referto/events"
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
	prob := &Problem{Status: 400, Code: "invalid"}
	prob.Errors = append(prob.Errors,
		struct {
			Field  string `json:"field"`
			Detail string `json:"detail"`
			Rule   string `json:"rule"`
		}{"players[0].table_points", "95 table points is more than the board can give: at most 86, the most any objective of set rtu-16 is worth (objective 1; projections/board/data/objectives.json)", "docs/rules.md#31-pinned-board-bounds"},
		struct {
			Field  string `json:"field"`
			Detail string `json:"detail"`
			Rule   string `json:"rule"`
		}{"closed_by", `this ruleset ends games only by objective, not time`, "cirki-2001 §12"},
		struct {
			Field  string `json:"field"`
			Detail string `json:"detail"`
			Rule   string `json:"rule"`
		}{"players[1].turn", "p02 plays 3rd in the recorded turn order (p01, p03, p02)", ""},
	)
	v := viewProblem("it", prob, seat, name)
	want := []string{
		"Punti tavolo · Mario Rossi: 95 punti tavolo sono più di quanti ne dia il tabellone: al massimo 86.",
		"Chiusura: questo regolamento chiude le partite solo per obiettivo, non per tempo.",
		"Ordine di gioco · Giulia Bianchi: Giulia Bianchi gioca in un'altra posizione dell'ordine di gioco registrato (Mario Rossi, p03, Giulia Bianchi).",
	}
	for i, l := range v.Lines {
		if got := l.Field + ": " + l.Text; got != want[i] || l.Raw != "" {
			t.Errorf("line %d: %q (raw %q)\nwant %q", i, got, l.Raw, want[i])
		}
	}
	unknown := viewProblem("it", &Problem{Status: 422, Code: "rule_violation", Detail: "something the catalogue has never seen"}, nil, name)
	if l := unknown.Lines[0]; l.Text != "il regolamento del torneo non lo consente." || l.Raw == "" {
		t.Errorf("an unknown message: %+v", l)
	}
}
