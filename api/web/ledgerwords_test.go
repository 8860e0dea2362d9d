package web

import (
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// ledgerSources are the packages whose messages reach a page, and which of
// their sentinel errors a message the pages show may wrap: the decisions
// (their refusals and the reasons they record), the draw and the board
// they pass on, the API's refusals of a session. keep says whether a
// wrapped sentinel's text stays in the message shown (the board's) or is
// left out (the API leaves out its own and the draw's: the problem's code
// says it).
var ledgerSources = []struct {
	dir string
	// helpers are the functions that write a message, and which of their
	// arguments is its format (a literal, or fmt.Sprintf of one).
	helpers   map[string]int
	sentinels []string
	keep      bool
}{
	{"../../commands", map[string]int{"fieldErr": 1, "ruleErr": 1, "notFound": 0, "conflict": 0, "bound": 1}, nil, false},
	{"../../projections/scoring", map[string]int{"v.add": 2}, nil, false},
	{"../../events", map[string]int{"bad": 1}, nil, false},
	{"../../commands/draw", nil, []string{"ErrInput", "ErrSizes"}, false},
	{"../../projections/board", nil, []string{"ErrUnknownTerritory", "ErrUnknownObjective", "ErrDuplicate", "ErrContested", "ErrMismatch"}, true},
	{"../../api", nil, []string{"errForbidden", "errUnauthorized", "errNotFound"}, false},
}

// ledgerFormats reads, from the Go source of ledgerSources, every message
// format the ledger can refuse a command with or record as a reason: the
// format of each call to a source's helpers, the Msg and Reason of each
// FieldError, RuleError, ParamError and SanctionImposed, and each rule of
// a contestation's admissibility written with fmt.Sprintf; elsewhere, each
// fmt.Errorf wrapping one of the sentinels named. A format that is only a
// verb ("%s", "%v") passes another's message on and is left out.
func ledgerFormats(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	add := func(s string) {
		if s == "" || s == "%s" || s == "%v" {
			return
		}
		seen[s] = true
	}
	for _, src := range ledgerSources {
		fset := gotoken.NewFileSet()
		files, err := filepath.Glob(filepath.Join(src.dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		var parsed []*ast.File
		sentinels := map[string]string{}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			parsed = append(parsed, f)
			ast.Inspect(f, func(n ast.Node) bool {
				if vs, ok := n.(*ast.ValueSpec); ok {
					for i, v := range vs.Values {
						if c, ok := v.(*ast.CallExpr); ok && callName(c) == "errors.New" && len(c.Args) == 1 && slices.Contains(src.sentinels, vs.Names[i].Name) {
							if s, ok := literal(c.Args[0]); ok {
								sentinels[vs.Names[i].Name] = s
							}
						}
					}
				}
				return true
			})
		}
		for _, f := range parsed {
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					name := callName(n)
					if i, ok := src.helpers[name]; ok && len(n.Args) > i {
						if s, ok := formatOf(n.Args[i]); ok {
							add(s)
						}
					}
					switch {
					case src.sentinels == nil && name == "fmt.Sprintf":
						if s, ok := literal(n.Args[0]); ok && (strings.HasPrefix(s, rulesDoc) || strings.HasPrefix(s, "contest_")) {
							add(s)
						}
					case src.sentinels != nil && name == "fmt.Errorf" && len(n.Args) > 1:
						s, ok := literal(n.Args[0])
						id, isIdent := n.Args[1].(*ast.Ident)
						if !ok || !isIdent || !strings.HasPrefix(s, "%w") {
							break
						}
						text, known := sentinels[id.Name]
						if !known {
							break
						}
						if src.keep {
							add(text + strings.TrimPrefix(s, "%w"))
						} else {
							add(strings.TrimPrefix(strings.TrimPrefix(s, "%w"), ": "))
						}
					}
				case *ast.CompositeLit:
					if src.sentinels != nil {
						return true
					}
					typ := ""
					switch tt := n.Type.(type) {
					case *ast.Ident:
						typ = tt.Name
					case *ast.SelectorExpr:
						typ = tt.Sel.Name
					}
					if typ != "FieldError" && typ != "RuleError" && typ != "SanctionImposed" && typ != "ParamError" {
						return true
					}
					for _, e := range n.Elts {
						kv, ok := e.(*ast.KeyValueExpr)
						if !ok {
							continue
						}
						if k, ok := kv.Key.(*ast.Ident); !ok || (k.Name != "Msg" && k.Name != "Reason") {
							continue
						}
						if s, ok := formatOf(kv.Value); ok {
							add(s)
						}
					}
				}
				return true
			})
		}
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// rulesDoc is how the ledger cites a section of its rules document.
var rulesDoc = "docs/rules" + ".md#"

// formatOf is a message's format: a literal, or fmt.Sprintf's.
func formatOf(e ast.Expr) (string, bool) {
	if s, ok := literal(e); ok {
		return s, true
	}
	if c, ok := e.(*ast.CallExpr); ok && callName(c) == "fmt.Sprintf" && len(c.Args) > 0 {
		return literal(c.Args[0])
	}
	return "", false
}

// callName is a call's function as written: "fieldErr", "fmt.Errorf".
func callName(c *ast.CallExpr) string {
	switch f := c.Fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		if x, ok := f.X.(*ast.Ident); ok {
			return x.Name + "." + f.Sel.Name
		}
	}
	return ""
}

// literal is the value of a string literal, or of a sum of them.
func literal(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != gotoken.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.BinaryExpr:
		if e.Op != gotoken.ADD {
			return "", false
		}
		a, ok1 := literal(e.X)
		b, ok2 := literal(e.Y)
		return a + b, ok1 && ok2
	case *ast.ParenExpr:
		return literal(e.X)
	}
	return "", false
}

// TestTheCatalogueSaysEveryLedgerMessage: every message the ledger can
// refuse a command with or record as a reason (read from its source) has
// its Italian sentence in the catalogue; each sentence takes its arguments
// by explicit index, among the message's own, each as the message writes
// it (a number as a number), so that it can never print a wrong argument
// or a formatting error.
func TestTheCatalogueSaysEveryLedgerMessage(t *testing.T) {
	it := languages["it"]
	formats := ledgerFormats(t)
	if len(formats) < 250 {
		t.Fatalf("only %d message formats read from the ledger's source: the reader misses them", len(formats))
	}
	for _, f := range formats {
		if _, ok := it.file.Messages[f]; !ok {
			t.Errorf("no Italian for the ledger's message %q", f)
		}
	}
	for code, c := range languages {
		for format, text := range c.file.Messages {
			checkTranslation(t, code, format, text)
		}
	}
}

// checkTranslation checks that text uses only format's arguments, by
// explicit index and with a verb of the same kind.
func checkTranslation(t *testing.T, code, format, text string) {
	t.Helper()
	m, err := compileFormat(format)
	if err != nil {
		t.Errorf("%s: %q: %v", code, format, err)
		return
	}
	for _, v := range verbRE.FindAllString(text, -1) {
		if v == "%%" {
			continue
		}
		sub := regexp.MustCompile(`^%\[(\d+)\]([a-z])$`).FindStringSubmatch(v)
		if sub == nil {
			t.Errorf("%s: %q says %q with %s: arguments go by explicit index, %%[1]s", code, format, text, v)
			continue
		}
		n, _ := strconv.Atoi(sub[1])
		if n < 1 || n > len(m.ints) {
			t.Errorf("%s: %q says %q with argument %d of %d", code, format, text, n, len(m.ints))
			continue
		}
		if want := map[bool]string{true: "d", false: "s"}[m.ints[n-1]]; sub[2] != want {
			t.Errorf("%s: %q says argument %d as %%%s, want %%%s", code, format, n, sub[2], want)
		}
	}
}

// TestTheCatalogueSaysEveryRuleCited: every section of its rules document
// the ledger cites as a rule (read from its source) is said in the
// catalogue by its title and articles, never shown as a path.
func TestTheCatalogueSaysEveryRuleCited(t *testing.T) {
	cited := map[string]bool{}
	for _, dir := range []string{"../../commands", "../../projections", "../../projections/scoring", "../../events"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(gotoken.NewFileSet(), name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if s, ok := literal0(n); ok && strings.HasPrefix(s, rulesDoc) {
					rule, _, _ := strings.Cut(s, ": ")
					cited[rule] = true
				}
				return true
			})
		}
	}
	if len(cited) < 10 {
		t.Fatalf("only %d rules read from the ledger's source: the reader misses them", len(cited))
	}
	for rule := range cited {
		for code, c := range languages {
			if _, ok := c.file.Rules[rule]; !ok {
				t.Errorf("%s: no words for the rule %q", code, rule)
			}
		}
	}
}

// literal0 is the value of a string literal node.
func literal0(n ast.Node) (string, bool) {
	lit, ok := n.(*ast.BasicLit)
	if !ok {
		return "", false
	}
	return literal(lit)
}
