package web

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"
	"golang.org/x/text/number"

	"github.com/referto/referto/events"
)

// The UI says everything in the page's language from one message catalogue
// per language, catalog/<lang>.json, embedded:
//
//   - labels: the pages' words, by key; a word of one of the ledger's
//     vocabularies (a phase, a status, a sanction) is keyed by its
//     constant, never spelled again in Go;
//   - plurals: words that agree with a number ("1 turno", "3 turni"), by
//     CLDR plural category;
//   - messages: the ledger's messages (its refusals, and the reasons it
//     records), keyed by the format the ledger writes them with
//     ("%s is %s and cannot play"), said with the same arguments in the
//     language (explicit indexes, "%[1]s è %[2]s e non può giocare");
//   - rules: the rules the ledger cites by a section of its own rules
//     document, said as that section's title and the rulebooks' articles.
//
// They are loaded into a golang.org/x/text/message catalogue, whose
// printer also writes numbers as the language does ("200,2").

//go:embed catalog/*.json
var catalogFS embed.FS

// catalogFile is one language's catalogue as its file holds it.
type catalogFile struct {
	Labels   map[string]string            `json:"labels"`
	Plurals  map[string]map[string]string `json:"plurals"`
	Messages map[string]string            `json:"messages"`
	Rules    map[string]string            `json:"rules"`
}

// ledgerMessage is one message format of the ledger, as a pattern that
// finds its arguments in a message written with it.
type ledgerMessage struct {
	format string
	re     *regexp.Regexp
	// ints marks the arguments written with %d, read back as numbers so
	// that the language writes them its way.
	ints []bool
	// literal is how much of the format is not a verb: the most specific
	// format is tried first.
	literal int
}

// catalogue is one language's words and messages.
type catalogue struct {
	tag      language.Tag
	file     catalogFile
	printer  *message.Printer
	messages []ledgerMessage
}

// languages are the catalogues, by language code; Italian is the venue's
// language and the one a missing word falls back to. They are read once,
// when the package is loaded, and never change.
var languages = mustLoadLanguages()

func mustLoadLanguages() map[string]*catalogue {
	out, err := loadLanguages(catalogFS)
	if err != nil {
		panic(err)
	}
	return out
}

// loadLanguages reads every catalogue of fsys (catalog/<lang>.json).
func loadLanguages(fsys fs.FS) (map[string]*catalogue, error) {
	names, err := fs.Glob(fsys, "catalog/*.json")
	if err != nil {
		return nil, err
	}
	b := catalog.NewBuilder(catalog.Fallback(language.Italian))
	out := map[string]*catalogue{}
	for _, name := range names {
		code := strings.TrimSuffix(strings.TrimPrefix(name, "catalog/"), ".json")
		tag, err := language.Parse(code)
		if err != nil {
			return nil, fmt.Errorf("web: %s: %w", name, err)
		}
		raw, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		l := &catalogue{tag: tag}
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l.file); err != nil {
			return nil, fmt.Errorf("web: %s: %w", name, err)
		}
		for k, v := range l.file.Labels {
			if err := b.SetString(tag, k, escapePercent(v)); err != nil {
				return nil, fmt.Errorf("web: %s: label %s: %w", name, k, err)
			}
		}
		for k, forms := range l.file.Plurals {
			var cases []any
			for _, form := range []string{"zero", "one", "two", "few", "many", "other"} {
				if text, ok := forms[form]; ok {
					cases = append(cases, form, text)
				}
			}
			if err := b.Set(tag, k, plural.Selectf(1, "%d", cases...)); err != nil {
				return nil, fmt.Errorf("web: %s: plural %s: %w", name, k, err)
			}
		}
		for format, text := range l.file.Messages {
			if err := b.SetString(tag, format, text); err != nil {
				return nil, fmt.Errorf("web: %s: message %q: %w", name, format, err)
			}
			m, err := compileFormat(format)
			if err != nil {
				return nil, fmt.Errorf("web: %s: message %q: %w", name, format, err)
			}
			l.messages = append(l.messages, m)
		}
		slices.SortFunc(l.messages, func(a, b ledgerMessage) int {
			if a.literal != b.literal {
				return b.literal - a.literal
			}
			return strings.Compare(a.format, b.format)
		})
		out[code] = l
	}
	if out["it"] == nil {
		return nil, fmt.Errorf("web: no Italian catalogue")
	}
	for _, l := range out {
		l.printer = message.NewPrinter(l.tag, message.Catalog(b))
	}
	return out, nil
}

// escapePercent makes a label's text a format with no verb.
func escapePercent(s string) string { return strings.ReplaceAll(s, "%", "%%") }

var verbRE = regexp.MustCompile(`%(?:\[\d+\])?[-+# 0]*\d*(?:\.\d+)?[a-zA-Z%]`)

// compileFormat turns a message format of the ledger into the pattern of
// the messages it writes.
func compileFormat(format string) (ledgerMessage, error) {
	m := ledgerMessage{format: format}
	var re strings.Builder
	re.WriteString("^")
	last := 0
	for _, loc := range verbRE.FindAllStringIndex(format, -1) {
		re.WriteString(regexp.QuoteMeta(format[last:loc[0]]))
		m.literal += loc[0] - last
		last = loc[1]
		switch verb := format[loc[1]-1]; verb {
		case '%':
			re.WriteString("%")
			continue
		case 'd':
			re.WriteString(`(-?\d+)`)
			m.ints = append(m.ints, true)
		case 'q':
			re.WriteString(`"((?:[^"\\]|\\.)*)"`)
			m.ints = append(m.ints, false)
		case 'U':
			re.WriteString(`(U\+[0-9A-F]{4,6})`)
			m.ints = append(m.ints, false)
		case 's', 'v':
			re.WriteString(`(.+?)`)
			m.ints = append(m.ints, false)
		default:
			return m, fmt.Errorf("verb %%%c", verb)
		}
	}
	re.WriteString(regexp.QuoteMeta(format[last:]))
	m.literal += len(format) - last
	re.WriteString("$")
	var err error
	m.re, err = regexp.Compile(re.String())
	return m, err
}

// swallows reports arguments that hold a whole message the ledger joined
// to this one with ": ", which a format without ": " of its own never
// writes: "%s is %s" must not read "rule: a draw is open…: still open".
func (m ledgerMessage) swallows(args []string) bool {
	if strings.Contains(m.format, ": ") {
		return false
	}
	for _, a := range args {
		if strings.Contains(a, ": ") {
			return true
		}
	}
	return false
}

// catalogueOf is the catalogue of code, or Italian's.
func catalogueOf(code string) *catalogue {
	if l, ok := languages[code]; ok {
		return l
	}
	return languages["it"]
}

// tr is the label key in lang: its own, else Italian's, else the key.
func tr(lang, key string) string {
	for _, l := range []*catalogue{catalogueOf(lang), languages["it"]} {
		if s, ok := l.file.Labels[key]; ok {
			return s
		}
	}
	return key
}

// hasLabel reports whether the Italian catalogue has a label for key.
func hasLabel(key string) bool {
	_, ok := languages["it"].file.Labels[key]
	return ok
}

// trf is the plural or label key in lang, formatted with args as the
// language writes them (numbers, plural forms); a label with arguments is a
// format ("%[1]d giocatori").
func trf(lang, key string, args ...any) string {
	l := catalogueOf(lang)
	if _, ok := l.file.Plurals[key]; ok {
		return l.printer.Sprintf(key, args...)
	}
	if _, ok := languages["it"].file.Plurals[key]; ok {
		return l.printer.Sprintf(key, args...)
	}
	return l.printer.Sprintf(tr(lang, key), args...)
}

// points writes hundredths of a point as the language does: "200,2".
func points(lang string, hundredths int64) string {
	return catalogueOf(lang).printer.Sprint(number.Decimal(float64(hundredths)/100, number.MaxFractionDigits(2)))
}

// integer writes a whole number as the language does.
func integer(lang string, n int) string {
	return catalogueOf(lang).printer.Sprint(number.Decimal(n))
}

// word says one argument of a ledger message in lang: a word of the
// ledger's vocabularies by its label, a player's id by his name, a list of
// them ("p1, p2", "objective or time") item by item.
func word(lang string, arg string, name func(string) string) string {
	for _, sep := range []string{"; ", ", ", " or ", " and "} {
		if strings.Contains(arg, sep) {
			parts := strings.Split(arg, sep)
			for i, p := range parts {
				parts[i] = word(lang, p, name)
			}
			joiner := sep
			switch sep {
			case " or ":
				joiner = " " + tr(lang, "word_or") + " "
			case " and ":
				joiner = " " + tr(lang, "word_and") + " "
			}
			return strings.Join(parts, joiner)
		}
	}
	if name != nil {
		if n := name(arg); n != "" {
			return n
		}
	}
	if w := strings.ReplaceAll(arg, " ", "_"); vocabularyWord(w) && hasLabel(w) {
		return tr(lang, w)
	}
	return arg
}

// vocabularyWord reports a word of the ledger's vocabularies (events):
// a phase, a player's status, a way a game or a player's game ends, a
// sanction, a withdrawal's reason, an official's role.
func vocabularyWord(s string) bool { return vocabulary[s] }

var vocabulary = func() map[string]bool {
	out := map[string]bool{}
	add := func(ws ...string) {
		for _, w := range ws {
			out[w] = true
		}
	}
	add(strs(events.Phases())...)
	add(strs(events.PlayerStatuses())...)
	add(strs(events.Closings())...)
	add(strs(events.SeatStatuses())...)
	add(strs(events.SanctionKinds())...)
	add(events.WithdrawalReasons()...)
	add(events.OfficialRoles()...)
	return out
}()

func strs[S ~string](words []S) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = string(w)
	}
	return out
}

// say says one message of the ledger in lang, its arguments as word says
// them; ok is false when the catalogue does not know the message. A message
// the ledger wrote by joining others with ": " is said part by part.
func say(lang, msg string, name func(string) string) (string, bool) {
	msg = strings.TrimSpace(msg)
	for _, prefix := range []string{"commands: ", "api: forbidden: ", "api: unauthorized: ", "api: not found: ", "forbidden: "} {
		msg = strings.TrimPrefix(msg, prefix)
	}
	if lang != "en" {
		msg = ordinalRE.ReplaceAllString(msg, "$1°")
	}
	if s, ok := sayWhole(lang, msg, name); ok {
		return s, true
	}
	parts := strings.Split(msg, ": ")
	if len(parts) < 2 {
		return "", false
	}
	for i, p := range parts {
		s, ok := sayWhole(lang, p, name)
		if !ok {
			if s, ok = citation(lang, p); !ok {
				return "", false
			}
		}
		parts[i] = s
	}
	return strings.Join(parts, ": "), true
}

// ordinalRE is an English ordinal the ledger writes ("2nd"), said "2°".
var ordinalRE = regexp.MustCompile(`\b(\d+)(?:st|nd|rd|th)\b`)

// sayWhole says msg when one format of the catalogue wrote it.
func sayWhole(lang, msg string, name func(string) string) (string, bool) {
	l := catalogueOf(lang)
	for _, m := range l.messages {
		sub := m.re.FindStringSubmatch(msg)
		if sub == nil || m.swallows(sub[1:]) {
			continue
		}
		args := make([]any, len(sub)-1)
		for i, s := range sub[1:] {
			if m.ints[i] {
				n, err := strconv.Atoi(s)
				if err == nil {
					args[i] = n
					continue
				}
			}
			args[i] = word(lang, s, name)
		}
		return l.printer.Sprintf(m.format, args...), true
	}
	return "", false
}

// citation says a rule the ledger cites: a rulebook's article as it is
// ("rur-2015 art. 8"), a section of the ledger's own rules by its title
// and the articles it stands for.
func citation(lang, rule string) (string, bool) {
	rule = strings.TrimSpace(rule)
	if rule == "" {
		return "", true
	}
	for _, l := range []*catalogue{catalogueOf(lang), languages["it"]} {
		if s, ok := l.file.Rules[rule]; ok {
			return s, true
		}
	}
	if rulebookCitation.MatchString(rule) {
		return rule, true
	}
	return "", false
}

// rulebookCitation is a rulebook's own article or section, as the ledger
// cites it: "rur-2015 art. 8", "master §penalità", "rtu §formule torneo".
var rulebookCitation = regexp.MustCompile(`^(rur-2015|campionato-2003|master|rtu|cirki-2001)( art\. \d+| §[^\s].*| preamble)( \([^)]*\))?$`)

// ruleText says a rule in lang, and anything the catalogue cannot say as
// the kind of rule it is, never as the ledger's own reference: a rule the
// pages show is a rule, never a path.
func ruleText(lang, rule string) string {
	if s, ok := citation(lang, rule); ok {
		return s
	}
	if s, ok := say(lang, rule, nil); ok {
		return s
	}
	return tr(lang, "rule_unknown")
}
