package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// The repository stands alone: its documents link only to what it holds,
// and every reference into the rules or the design names a section that
// exists.

// repoRoot is the repository's root, from this package's directory.
const repoRoot = "../.."

// TestDocumentLinksResolve: every relative link of README.md and docs/*.md
// (outside code) resolves to a file of the repository, and to a heading of
// it when it names an anchor; none leaves the repository.
func TestDocumentLinksResolve(t *testing.T) {
	docs := []string{"README.md"}
	more, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range more {
		rel, _ := filepath.Rel(repoRoot, m)
		docs = append(docs, filepath.ToSlash(rel))
	}
	if !slices.Contains(docs, "docs/rules.md") || !slices.Contains(docs, "docs/design.md") {
		t.Fatalf("docs/rules.md and docs/design.md must exist; found %v", docs)
	}
	checked := 0
	for _, doc := range docs {
		src, err := os.ReadFile(filepath.Join(repoRoot, doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range markdownLinks(string(src)) {
			if isExternal(l.target) {
				continue
			}
			checked++
			if err := resolveLink(doc, l.target); err != "" {
				t.Errorf("%s:%d: link %q: %s", doc, l.line, l.target, err)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d relative links checked: the link parser is broken", checked)
	}
}

// TestRulesAndDesignReferencesNameRealSections: every reference to a
// section of docs/rules.md or docs/design.md (the path, "#", the anchor) in
// the repository's Go, Markdown and YAML files names a heading of that
// document.
func TestRulesAndDesignReferencesNameRealSections(t *testing.T) {
	anchors := map[string]map[string]bool{}
	for _, doc := range []string{"docs/rules.md", "docs/design.md"} {
		src, err := os.ReadFile(filepath.Join(repoRoot, doc))
		if err != nil {
			t.Fatal(err)
		}
		anchors[doc] = headingAnchors(string(src))
	}
	// An anchor is what GitHub makes of a heading: letters, digits, '-' and '_'.
	ref := regexp.MustCompile(`docs/(rules|design)\.md#([\p{L}\p{N}_-]*)`)
	found := 0
	walkRepo(t, func(path string, src []byte) {
		if !strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, ".md") && !strings.HasSuffix(path, ".yaml") {
			return
		}
		for i, line := range bytes.Split(src, []byte("\n")) {
			for _, m := range ref.FindAllSubmatch(line, -1) {
				found++
				doc, anchor := "docs/"+string(m[1])+".md", string(m[2])
				if !anchors[doc][anchor] {
					t.Errorf("%s:%d: %s#%s: no such section (sections: %s)", path, i+1, doc, anchor, strings.Join(sortedSet(anchors[doc]), ", "))
				}
			}
		}
	})
	if found == 0 {
		t.Error("no reference to a section of docs/rules.md or docs/design.md found: the search is broken")
	}
}

// TestNothingReachesBesideTheRepository: no file of the repository names
// the team's shared folder beside our checkouts (by its relative path, or
// the absolute one on our machines), except .ci/run's check that the
// copied reference vectors have not drifted, nor the reference's list of
// sources, which the repository restates (docs/rules.md#reference-data)
// rather than holds; the reference data's own files are copied as they are.
func TestNothingReachesBesideTheRepository(t *testing.T) {
	// Spelled apart so that this file does not name them.
	outside := [][]byte{[]byte(".." + "/shared"), []byte("/work" + "/"), []byte("SOURCES" + ".md")}
	seen := 0
	walkRepo(t, func(path string, src []byte) {
		seen++
		if path == ".ci/run" || strings.HasPrefix(path, "projections/board/data/") {
			return
		}
		for i, line := range bytes.Split(src, []byte("\n")) {
			for _, o := range outside {
				if bytes.Contains(line, o) {
					t.Errorf("%s:%d names %s, which only our own checkouts have beside them: %s", path, i+1, o, bytes.TrimSpace(line))
				}
			}
		}
	})
	if seen < 50 {
		t.Errorf("only %d files walked: the walk is broken", seen)
	}
}

// TestRulesAreCitedInsideTheRepository: nothing cites the team's
// documents by their old names ("RULES §7", "RULES.md", "DESIGN.md"), which
// a user of the repository does not have; rules are cited by their section
// of docs/rules.md, the contract as api/openapi.yaml. The reference
// vectors' own description is theirs, copied as is.
func TestRulesAreCitedInsideTheRepository(t *testing.T) {
	old := regexp.MustCompile(`\bRULES(\.md)?\s*§|\bRULES\.md\b|\bDESIGN\.md\b`)
	walkRepo(t, func(path string, src []byte) {
		if path == "testdata/scoring-vectors.json" || path == "cmd/referto/docs_test.go" {
			return
		}
		for i, line := range bytes.Split(src, []byte("\n")) {
			if m := old.Find(line); m != nil {
				t.Errorf("%s:%d cites %q, outside the repository: cite a section of docs/rules.md, or api/openapi.yaml", path, i+1, m)
			}
		}
	})
}

// walkRepo calls f with every file of the repository (its path relative to
// the root, slash-separated) except Git's, build output and fuzz corpora.
func walkRepo(t *testing.T, f func(path string, src []byte)) {
	t.Helper()
	err := filepath.WalkDir(repoRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == ".git" || rel == ".ci/artifacts" || strings.HasSuffix(rel, "testdata/fuzz") || strings.HasPrefix(d.Name(), "referto-data") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() == ".git" || !d.Type().IsRegular() {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f(rel, src)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

type mdLink struct {
	target string
	line   int
}

var (
	linkRE       = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	inlineCodeRE = regexp.MustCompile("`[^`]*`")
)

// markdownLinks lists the inline links of a Markdown document, outside
// fenced code blocks and inline code.
func markdownLinks(src string) []mdLink {
	var out []mdLink
	fenced := false
	for i, line := range strings.Split(src, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		// Inline code may hold link-like text; link text may hold code.
		line = inlineCodeRE.ReplaceAllStringFunc(line, func(s string) string {
			return strings.Repeat("x", len(s))
		})
		for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
			out = append(out, mdLink{target: m[1], line: i + 1})
		}
	}
	return out
}

func isExternal(target string) bool {
	for _, p := range []string{"http://", "https://", "mailto:"} {
		if strings.HasPrefix(target, p) {
			return true
		}
	}
	return false
}

// resolveLink checks one relative link of doc; it returns what is wrong, or "".
func resolveLink(doc, target string) string {
	path, anchor, _ := strings.Cut(target, "#")
	if strings.HasPrefix(path, "/") {
		return "an absolute path: links must be relative to the document"
	}
	file := doc
	if path != "" {
		file = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(doc), path)))
	}
	if file == ".." || strings.HasPrefix(file, "../") {
		return "points outside the repository"
	}
	info, err := os.Stat(filepath.Join(repoRoot, file))
	if err != nil {
		return "no such file in the repository"
	}
	if anchor == "" {
		return ""
	}
	if info.IsDir() || !strings.HasSuffix(file, ".md") {
		return "an anchor into something that is not a Markdown document"
	}
	src, err := os.ReadFile(filepath.Join(repoRoot, file))
	if err != nil {
		return err.Error()
	}
	if a := headingAnchors(string(src)); !a[anchor] {
		return "no heading of " + file + " has that anchor (" + strings.Join(sortedSet(a), ", ") + ")"
	}
	return ""
}

// headingAnchors is the set of anchors GitHub gives a document's headings:
// lowercased, punctuation but hyphens and underscores removed, spaces
// made hyphens, a repeated one suffixed -1, -2, ….
func headingAnchors(src string) map[string]bool {
	out := map[string]bool{}
	count := map[string]int{}
	fenced := false
	for _, line := range strings.Split(src, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		m := headingRE.FindStringSubmatch(line)
		if fenced || m == nil {
			continue
		}
		slug := githubSlug(strings.TrimSpace(m[1]))
		a := slug
		if n := count[slug]; n > 0 {
			a = slug + "-" + strconv.Itoa(n)
		}
		count[slug]++
		out[a] = true
	}
	return out
}

var headingRE = regexp.MustCompile(`^#{1,6} (.+)$`)

func githubSlug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func sortedSet(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// citationRE is a rule citation as the ledger writes it: a ruleset, then
// an article or a named section ("rur-2015 art. 8", "master §penalità"),
// up to what follows it (a colon, a comma, a bracket, a quote, a
// parenthesis).
var citationRE = regexp.MustCompile(`(rur-2015|campionato-2003|master|cirki-2001|rtu) (art\. [0-9]+|§[^:,()\]"\n]+)`)

// TestEveryCitedRuleIsListed: every rule the code cites in a refusal or an
// event (a citation in a Go string literal of the packages that decide,
// project, serve and verify, or in the rule files' recorded refusals and
// events) is in docs/rules.md's table of citations, which says where the
// rule is treated; and the table lists nothing that is never cited.
func TestEveryCitedRuleIsListed(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(repoRoot, "docs/rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(src), "\n## Citations\n")
	if !ok {
		t.Fatal("docs/rules.md has no section ## Citations")
	}
	table, _, _ = strings.Cut(table, "\n## ")
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\|").FindAllStringSubmatch(table, -1) {
		listed[m[1]] = true
	}
	if len(listed) < 10 {
		t.Fatalf("only %d citations listed in docs/rules.md: the table's parser is broken", len(listed))
	}
	cited := map[string]string{} // citation → where first seen
	note := func(path string, line int, s string) {
		for _, m := range citationRE.FindAllString(s, -1) {
			c := strings.TrimSpace(m)
			if _, seen := cited[c]; !seen {
				cited[c] = fmt.Sprintf("%s:%d", path, line)
			}
		}
	}
	literal := regexp.MustCompile(`"(?:rur-2015|campionato-2003|master|cirki-2001|rtu) [^"]*"`)
	recorded := regexp.MustCompile(`\[([^\]]+)\]:|"rule":"([^"]+)"`)
	walkRepo(t, func(path string, src []byte) {
		top, _, _ := strings.Cut(path, "/")
		switch {
		case strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") &&
			slices.Contains([]string{"commands", "projections", "events", "api", "replay"}, top):
			for i, line := range strings.Split(string(src), "\n") {
				for _, lit := range literal.FindAllString(line, -1) {
					note(path, i+1, lit)
				}
			}
		case strings.HasPrefix(path, "commands/testdata/decide/"):
			for i, line := range strings.Split(string(src), "\n") {
				if strings.HasPrefix(line, "#") || strings.HasPrefix(line, "{") {
					continue // comments and commands (whose article is free text)
				}
				for _, m := range recorded.FindAllStringSubmatch(line, -1) {
					note(path, i+1, m[1]+m[2])
				}
			}
		}
	})
	if len(cited) < 10 {
		t.Fatalf("only %d citations found in the code and the rule files: the search is broken", len(cited))
	}
	for c, where := range cited {
		if !listed[c] {
			t.Errorf("%s cites %q, which docs/rules.md's table of citations does not list", where, c)
		}
	}
	for c := range listed {
		if _, ok := cited[c]; !ok {
			t.Errorf("docs/rules.md lists the citation %q, which nothing cites", c)
		}
	}
}
