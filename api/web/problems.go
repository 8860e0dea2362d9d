package web

import (
	"regexp"
	"strconv"
	"strings"
)

// A refusal is shown as sentences in the page's language: each problem the
// API names (a field and its message, or the command as a whole) becomes
// the field's label and the message said again in the page's language
// (catalog.go: the catalogue keys the ledger's messages by the formats it
// writes them with), players named by name, the rule by its article. The
// catalogue knows every message the ledger writes (a test reads them from
// its source); one it did not know would be said by its kind, never in
// another language.

// problemLine is one sentence of a refusal.
type problemLine struct {
	// Key is the field as the API names it (players[0].table_points).
	Key   string
	Field string // what it is about, in words ("" for the command as a whole)
	Text  string
	Rule  string
}

// problemView is a refusal as a page shows it.
type problemView struct {
	Status   int
	Headline string
	Lines    []problemLine
}

var seatFieldRE = regexp.MustCompile(`^players\[(\d+)\]\.(\w+)$`)

// viewProblem says prob in the page's language; seat names the player of
// a report's line by its index ("" when unknown), name a player by id.
func viewProblem(lang string, prob *Problem, seat func(int) string, name func(string) string) *problemView {
	if prob == nil {
		return nil
	}
	v := &problemView{Status: prob.Status, Headline: prob.Headline}
	if v.Headline == "" {
		v.Headline = tr(lang, "not_recorded")
		if hasLabel("refused_" + string(prob.Code)) {
			v.Headline = tr(lang, "refused_"+string(prob.Code))
		}
	}
	type item struct{ field, detail, rule string }
	var items []item
	for _, e := range prob.Errors {
		items = append(items, item{e.Field, e.Detail, e.Rule})
	}
	if len(items) == 0 {
		d := prob.Detail
		if prob.Field != "" {
			d = strings.TrimPrefix(d, prob.Field+": ")
		}
		items = append(items, item{prob.Field, d, prob.Rule})
	}
	for _, it := range items {
		line := problemLine{Key: it.field, Field: fieldLabel(lang, it.field, seat)}
		if it.rule != "" {
			line.Rule = ruleText(lang, it.rule)
		}
		if prob.Said {
			line.Text = it.detail
		} else if text, ok := say(lang, it.detail, name); ok {
			line.Text = text
		} else if lang == "en" {
			line.Text = scrubPaths(names(it.detail, name))
		} else {
			line.Text = tr(lang, "code_"+cmpOr(string(prob.Code), "internal"))
		}
		v.Lines = append(v.Lines, line)
	}
	return v
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// repositoryPath is a reference to a file of the ledger's source, which a
// message in English may carry ("(projections/board/data/map.json)",
// a section of the rules document): a page says what it means instead.
var repositoryPath = regexp.MustCompile(`\s*\(?\b(?:docs|projections|commands|events|api|cmd|replay|testdata)/[\w./#-]+\)?`)

// scrubPaths leaves the references to the ledger's source out of a message.
func scrubPaths(s string) string { return strings.TrimSpace(repositoryPath.ReplaceAllString(s, "")) }

// fieldLabel says which field a problem is about: "Punti tavolo · Mario
// Rossi" for players[0].table_points.
func fieldLabel(lang, field string, seat func(int) string) string {
	if field == "" {
		return ""
	}
	if m := seatFieldRE.FindStringSubmatch(field); m != nil {
		i, _ := strconv.Atoi(m[1])
		who := ""
		if seat != nil {
			who = seat(i)
		}
		if who == "" {
			who = tr(lang, "player") + " " + strconv.Itoa(i+1)
		}
		return tr(lang, m[2]) + " · " + who
	}
	if rest, ok := strings.CutPrefix(field, "params."); ok {
		rest, _, _ = strings.Cut(rest, "[")
		if hasLabel("param_" + rest) {
			return tr(lang, "param_"+rest)
		}
	}
	base, _, _ := strings.Cut(field, ".")
	base, _, _ = strings.Cut(base, "[")
	if hasLabel("field_" + base) {
		return tr(lang, "field_"+base)
	}
	return tr(lang, base)
}

var idRE = regexp.MustCompile(`\b[a-z0-9][a-z0-9-]{0,63}\b`)

// names replaces the player ids of a message by the players' names.
func names(text string, name func(string) string) string {
	if name == nil {
		return text
	}
	return idRE.ReplaceAllStringFunc(text, func(id string) string {
		if n := name(id); n != "" {
			return n
		}
		return id
	})
}
