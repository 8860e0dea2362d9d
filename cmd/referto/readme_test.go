package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/referto/referto/api/client"
)

// TestReadmeWalkthrough runs the README's first tournament as a reader
// would, from the README itself: every ```sh block of its "A first
// tournament" section, in order, through a small interpreter of the shell
// the blocks use (variables, export, $(…), a one-line function, pipes into
// `jq -r PATH`, `>` into a file; `curl`, `echo` and `go run ./cmd/referto`).
// `go run ./cmd/referto serve` starts the server in-process on a loopback
// port in a temporary directory, and URL is that server's address. Every
// HTTP request must be answered 2xx and every referto subcommand must
// succeed; at the end the classification is published and final, verify's
// verdict is the one the README prints, and the standings and
// classification are the ones its prose states.
func TestReadmeWalkthrough(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := markdownSection(string(readme), "## A first tournament")
	if section == "" {
		t.Fatal(`README.md has no "## A first tournament" section`)
	}
	blocks := fencedBlocks(section, "sh")
	if len(blocks) < 5 {
		t.Fatalf("the walkthrough has %d sh blocks; want the whole tournament", len(blocks))
	}

	t.Chdir(t.TempDir())
	sh := newShell(t)
	for _, b := range blocks {
		sh.script(b)
	}
	if sh.url == "" {
		t.Fatal("the walkthrough never starts the server (go run ./cmd/referto serve)")
	}

	// Published and final.
	var cl struct {
		Final bool `json:"final"`
		Rows  []struct {
			Player string  `json:"player"`
			Total  float64 `json:"total"`
		} `json:"rows"`
		Checkpoint string `json:"checkpoint"`
	}
	sh.getJSON("/v1/tournaments/"+sh.vars["T"]+"/classification", &cl)
	if !cl.Final || cl.Checkpoint == "" {
		t.Errorf("after the walkthrough the classification is not published final with its checkpoint: final %v", cl.Final)
	}
	// verify said what the README says it says.
	m := regexp.MustCompile("`(verdict: OK \\(\\d+ events),").FindStringSubmatch(section)
	if m == nil {
		t.Error("the walkthrough does not say what verify prints (`verdict: OK (N events, …)`)")
	} else if !strings.Contains(sh.lastVerify, m[1]+",") {
		t.Errorf("verify printed\n%s\nthe README says %q", sh.lastVerify, m[1])
	}
	// The prose: the standings after round 1 and the classification's order.
	stated := regexp.MustCompile(`(?s)standings: .*?, so (.*?)\. Round 2`).FindStringSubmatch(section)
	if stated == nil {
		t.Fatal("the walkthrough does not state the standings after round 1 (\"…, so p2 112, …. Round 2\")")
	}
	var want []string
	for _, pm := range regexp.MustCompile(`(p\d+) (\d+)`).FindAllStringSubmatch(stated[1], -1) {
		want = append(want, pm[1]+" "+pm[2])
	}
	var at struct {
		Rows []struct {
			Player string  `json:"player"`
			Total  float64 `json:"total"`
		} `json:"rows"`
	}
	sh.getJSON(fmt.Sprintf("/v1/tournaments/%s/standings?at=%d", sh.vars["T"], sh.seqBefore("round 2")), &at)
	var got []string
	for _, r := range at.Rows {
		got = append(got, fmt.Sprintf("%s %g", r.Player, r.Total))
	}
	if !slices.Equal(got, want) {
		t.Errorf("standings after round 1:\n got %v\nthe README says %v", got, want)
	}
	order := regexp.MustCompile(`\((p\d.*?) by the final,\s+then (.*?) by the qualifying game\)`).FindStringSubmatch(section)
	if order == nil {
		t.Fatal("the walkthrough does not state the classification's order (\"(p6, … by the final, then … by the qualifying game)\")")
	}
	want = regexp.MustCompile(`p\d+`).FindAllString(order[1]+" "+order[2], -1)
	got = nil
	for _, r := range cl.Rows {
		got = append(got, r.Player)
	}
	if !slices.Equal(got, want) {
		t.Errorf("classification:\n got %v\nthe README says %v", got, want)
	}
}

// markdownSection is the text under heading up to the next heading of the
// same level.
func markdownSection(doc, heading string) string {
	i := strings.Index(doc, "\n"+heading+"\n")
	if i < 0 {
		return ""
	}
	rest := doc[i+len(heading)+2:]
	level := heading[:strings.IndexByte(heading, ' ')+1]
	if j := strings.Index(rest, "\n"+level); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// fencedBlocks lists the bodies of the ```lang blocks of doc.
func fencedBlocks(doc, lang string) []string {
	var out []string
	for _, m := range regexp.MustCompile("(?ms)^```"+lang+"\n(.*?)^```$").FindAllStringSubmatch(doc, -1) {
		out = append(out, m[1])
	}
	return out
}

// shell runs the README's blocks. It fails the test on anything it does
// not understand, so the README can only use what is interpreted here.
type shell struct {
	t     *testing.T
	vars  map[string]string
	funcs map[string]string
	args  []string // $1, $2, … inside a function
	url   string   // the server started by the walkthrough
	// commands lists, in order, each command POSTed and the seq it got.
	commands []posted
	// lastVerify is what the last `referto verify` printed.
	lastVerify string
}

type posted struct {
	body string
	seq  int
}

func newShell(t *testing.T) *shell {
	return &shell{t: t, vars: map[string]string{}, funcs: map[string]string{}}
}

var funcRE = regexp.MustCompile(`^([A-Za-z_]\w*)\(\) \{ (.*); \}$`)

// script runs each command of src.
func (sh *shell) script(src string) {
	sh.t.Helper()
	for _, c := range splitCommands(src) {
		if m := funcRE.FindStringSubmatch(c); m != nil {
			sh.funcs[m[1]] = m[2]
			continue
		}
		sh.command(c)
	}
}

// command runs one command line (a pipeline with an optional redirect)
// and returns what it printed, or writes it to the redirect's file.
func (sh *shell) command(src string) string {
	sh.t.Helper()
	words := splitWords(src)
	var stages [][]string
	var redirect string
	cur := []string{}
	for i := 0; i < len(words); i++ {
		switch words[i] {
		case "|":
			stages, cur = append(stages, cur), []string{}
		case ">":
			if i+1 >= len(words) {
				sh.t.Fatalf("%s: > without a file", src)
			}
			redirect = sh.expand(words[i+1])
			i++
		default:
			cur = append(cur, words[i])
		}
	}
	stages = append(stages, cur)
	out := ""
	for _, st := range stages {
		out = sh.simple(st, out)
	}
	if redirect != "" {
		if err := os.WriteFile(redirect, []byte(out), 0o644); err != nil {
			sh.t.Fatal(err)
		}
		return ""
	}
	return out
}

var assignRE = regexp.MustCompile(`^([A-Za-z_]\w*)=`)

// simple runs one command of a pipeline with stdin, returning its stdout.
func (sh *shell) simple(raw []string, stdin string) string {
	sh.t.Helper()
	if len(raw) > 0 && raw[0] == "export" {
		raw = raw[1:]
		if len(raw) == 0 {
			sh.t.Fatal("export of nothing")
		}
	}
	env := map[string]string{}
	for len(raw) > 0 {
		m := assignRE.FindStringSubmatch(raw[0])
		if m == nil {
			break
		}
		env[m[1]] = sh.expand(raw[0][len(m[0]):])
		raw = raw[1:]
	}
	if len(raw) == 0 {
		for k, v := range env {
			if k == "URL" && sh.url != "" {
				sh.checkURL(v)
				continue
			}
			sh.vars[k] = v
		}
		return ""
	}
	var args []string
	for _, w := range raw {
		args = append(args, sh.expand(w))
	}
	switch name := args[0]; {
	case sh.funcs[name] != "":
		saved := sh.args
		sh.args = args[1:]
		defer func() { sh.args = saved }()
		out := ""
		for _, c := range splitCommands(sh.funcs[name]) {
			out += sh.command(c)
		}
		return out
	case name == "echo":
		return strings.Join(args[1:], " ") + "\n"
	case name == "curl":
		return sh.curl(args[1:])
	case name == "jq":
		return sh.jq(args[1:], stdin)
	case name == "go" && len(args) >= 3 && args[1] == "run" && args[2] == "./cmd/referto":
		return sh.referto(args[3:], env)
	}
	sh.t.Fatalf("the walkthrough runs %q, which this test does not interpret", strings.Join(args, " "))
	return ""
}

// checkURL: the README's URL must be where its serve command listens.
func (sh *shell) checkURL(v string) {
	if v != sh.vars["README_URL"] {
		sh.t.Errorf("the walkthrough sets URL=%s, but its serve command listens on %s", v, sh.vars["README_URL"])
	}
}

// expand removes quotes and substitutes $NAME, ${NAME}, $1 and $(…).
func (sh *shell) expand(w string) string {
	sh.t.Helper()
	var b strings.Builder
	for i := 0; i < len(w); {
		switch c := w[i]; c {
		case '\'':
			j := strings.IndexByte(w[i+1:], '\'')
			if j < 0 {
				sh.t.Fatalf("unterminated quote in %s", w)
			}
			b.WriteString(w[i+1 : i+1+j])
			i += j + 2
		case '"':
			j := i + 1
			for ; j < len(w) && w[j] != '"'; j++ {
				if w[j] == '$' {
					n, v := sh.dollar(w[j:])
					b.WriteString(v)
					j += n - 1
					continue
				}
				if w[j] == '\\' && j+1 < len(w) {
					j++
				}
				b.WriteByte(w[j])
			}
			i = j + 1
		case '$':
			n, v := sh.dollar(w[i:])
			b.WriteString(v)
			i += n
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

var nameRE = regexp.MustCompile(`^\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*)|([1-9]))`)

// dollar expands the $… at the start of s: how many bytes it took, and
// its value.
func (sh *shell) dollar(s string) (int, string) {
	sh.t.Helper()
	if strings.HasPrefix(s, "$(") {
		end := matchParen(s, 1)
		if end < 0 {
			sh.t.Fatalf("unterminated $( in %s", s)
		}
		out := ""
		for _, c := range splitCommands(s[2:end]) {
			out += sh.command(c)
		}
		return end + 1, strings.TrimRight(out, "\n")
	}
	m := nameRE.FindStringSubmatch(s)
	switch {
	case m == nil:
		return 1, "$"
	case m[3] != "":
		n := int(m[3][0] - '0')
		if n > len(sh.args) {
			sh.t.Fatalf("$%d outside a function call", n)
		}
		return len(m[0]), sh.args[n-1]
	}
	name := m[1] + m[2]
	v, ok := sh.vars[name]
	if name == "URL" && sh.url != "" {
		v, ok = sh.url, true
	}
	if !ok {
		sh.t.Fatalf("the walkthrough uses $%s before setting it", name)
	}
	return len(m[0]), v
}

// curl sends a request as curl would with these flags (-s, -S, -X, -H,
// -d, one URL) and fails the test on an error status, which curl without
// -f would print and go on from.
func (sh *shell) curl(args []string) string {
	sh.t.Helper()
	method, url, data, hasData := "", "", "", false
	header := http.Header{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() string {
			if i+1 >= len(args) {
				sh.t.Fatalf("curl %s: %s needs a value", strings.Join(args, " "), a)
			}
			i++
			return args[i]
		}
		switch {
		case a == "-s" || a == "-S" || a == "-sS":
		case a == "-X":
			method = next()
		case strings.HasPrefix(a, "-X"):
			method = a[2:]
		case a == "-H":
			k, v, ok := strings.Cut(next(), ":")
			if !ok {
				sh.t.Fatalf("curl: header %q", args[i])
			}
			header.Set(k, strings.TrimSpace(v))
		case a == "-d":
			data, hasData = next(), true
		case strings.HasPrefix(a, "-"):
			sh.t.Fatalf("curl: flag %s is not interpreted by this test", a)
		default:
			url = a
		}
	}
	if method == "" {
		method = "GET"
		if hasData {
			method = "POST"
		}
	}
	var body io.Reader
	if hasData {
		body = strings.NewReader(data)
		if header.Get("Content-Type") == "" {
			header.Set("Content-Type", "application/x-www-form-urlencoded") // curl's default for -d
		}
	}
	path, ok := strings.CutPrefix(url, sh.url)
	if !ok || sh.url == "" {
		sh.t.Fatalf("curl %s: not the walkthrough's server (%s)", url, sh.url)
	}
	res, err := (&client.Client{Base: sh.url}).Send(context.Background(), method, path, body, header)
	if err != nil {
		sh.t.Fatalf("curl %s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode/100 != 2 {
		sh.t.Fatalf("%s %s\n%s\nanswered %d: %s", method, url, data, res.StatusCode, b)
	}
	if method == "POST" && strings.HasSuffix(url, "/commands") {
		var a struct {
			Seq int `json:"seq"`
		}
		json.Unmarshal(b, &a)
		sh.commands = append(sh.commands, posted{body: data, seq: a.Seq})
	}
	return string(b)
}

// jq interprets `jq [-r] PATH` for PATH of the form .a.b (or .).
func (sh *shell) jq(args []string, stdin string) string {
	sh.t.Helper()
	raw := false
	if len(args) > 0 && args[0] == "-r" {
		raw, args = true, args[1:]
	}
	if len(args) != 1 || !regexp.MustCompile(`^(\.|(\.[A-Za-z_]\w*)+)$`).MatchString(args[0]) {
		sh.t.Fatalf("jq %s: only `jq [-r] .a.b` is interpreted by this test", strings.Join(args, " "))
	}
	var v any
	if err := json.Unmarshal([]byte(stdin), &v); err != nil {
		sh.t.Fatalf("jq: input is not JSON: %s", stdin)
	}
	for _, k := range strings.Split(args[0], ".")[1:] {
		if k == "" {
			continue
		}
		m, _ := v.(map[string]any)
		v = m[k]
	}
	if s, ok := v.(string); ok && raw {
		return s + "\n"
	}
	b, _ := json.Marshal(v)
	return string(b) + "\n"
}

// referto runs a subcommand in-process: serve in the background on a
// loopback port, the others to completion.
func (sh *shell) referto(args []string, env map[string]string) string {
	sh.t.Helper()
	getenv := func(k string) string { return env[k] }
	if len(args) == 0 {
		sh.t.Fatal("go run ./cmd/referto without a subcommand")
	}
	if args[0] != "serve" {
		var out, errOut bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := run(ctx, args, getenv, &out, &errOut); err != nil {
			sh.t.Fatalf("referto %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errOut.String())
		}
		if args[0] == "verify" {
			sh.lastVerify = out.String()
		}
		return out.String()
	}
	// Where the README's serve listens, for its URL.
	c, err := parseServe(args[1:], getenv, io.Discard)
	if err != nil {
		sh.t.Fatalf("referto %s: %v", strings.Join(args, " "), err)
	}
	sh.vars["README_URL"] = "http://" + c.Addr
	if filepath.IsAbs(c.Data) {
		sh.t.Fatalf("the walkthrough's data directory %s is not relative", c.Data)
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append(slices.Clone(args), "--addr", "127.0.0.1:0"), getenv, pw, io.Discard)
		pw.Close()
	}()
	sh.t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				sh.t.Errorf("serve: %v", err)
			}
		case <-time.After(10 * time.Second):
			sh.t.Errorf("serve did not stop within 10s")
		}
	})
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		if m := listenRE.FindStringSubmatch(sc.Text()); m != nil {
			sh.url = m[1]
			break
		}
	}
	go io.Copy(io.Discard, pr)
	if sh.url == "" {
		sh.t.Fatalf("serve did not print its address: %v", <-done)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if (&client.Client{Base: sh.url}).Ready(context.Background()) {
			break
		}
		if time.Now().After(deadline) {
			sh.t.Fatal("serve not ready within 20s")
		}
	}
	return ""
}

// getJSON reads a public route of the walkthrough's server.
func (sh *shell) getJSON(path string, v any) {
	sh.t.Helper()
	if err := (&client.Client{Base: sh.url}).Get(context.Background(), path, v); err != nil {
		sh.t.Fatalf("GET %s: %v", path, err)
	}
}

// seqBefore is the last seq before the first command that draws the
// given round ("round 2"): the state the walkthrough describes before it.
func (sh *shell) seqBefore(round string) int {
	sh.t.Helper()
	n := strings.TrimPrefix(round, "round ")
	last := 0
	for _, c := range sh.commands {
		if strings.Contains(c.body, `"DrawTables"`) && strings.Contains(c.body, `"round":`+n) {
			return last
		}
		last = c.seq
	}
	sh.t.Fatalf("the walkthrough never draws %s", round)
	return 0
}

// splitCommands splits a script at unquoted newlines and semicolons,
// joining lines continued with a backslash.
func splitCommands(src string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if s := strings.TrimSpace(b.String()); s != "" && !strings.HasPrefix(s, "#") {
			out = append(out, s)
		}
		b.Reset()
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(src) && src[j] != c {
				if c == '"' && src[j] == '\\' {
					j++
				}
				j++
			}
			b.WriteString(src[i:min(j+1, len(src))])
			i = j
		case c == '$' && i+1 < len(src) && src[i+1] == '(':
			end := matchParen(src[i:], 1)
			if end < 0 {
				end = len(src) - i - 1
			}
			b.WriteString(src[i : i+end+1])
			i += end
		case c == '\\' && i+1 < len(src) && src[i+1] == '\n':
			i++
		case c == '{' && strings.HasSuffix(strings.TrimSpace(b.String()), "()"):
			// A function definition runs to its closing brace.
			end := strings.Index(src[i:], "; }")
			if end < 0 {
				end = len(src) - i - 3
			}
			b.WriteString(src[i : i+end+3])
			i += end + 2
		case c == '\n' || c == ';':
			flush()
		default:
			b.WriteByte(c)
		}
	}
	flush()
	return out
}

// matchParen is the index of the parenthesis closing the one at s[open],
// skipping quoted text, or -1.
func matchParen(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '\'', '"':
			q := s[i]
			for i++; i < len(s) && s[i] != q; i++ {
			}
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// splitWords splits a command at unquoted blanks; | and > are words of
// their own.
func splitWords(src string) []string {
	var out []string
	var b strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			out = append(out, b.String())
		}
		b.Reset()
		inWord = false
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(src) && src[j] != c {
				if c == '"' && src[j] == '\\' {
					j++
				}
				j++
			}
			b.WriteString(src[i:min(j+1, len(src))])
			inWord, i = true, j
		case c == '$' && i+1 < len(src) && src[i+1] == '(':
			end := matchParen(src[i:], 1)
			if end < 0 {
				end = len(src) - i - 1
			}
			b.WriteString(src[i : i+end+1])
			inWord, i = true, i+end
		case c == ' ' || c == '\t' || c == '\n':
			flush()
		case c == '|' || c == '>':
			flush()
			out = append(out, string(c))
		default:
			b.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return out
}
