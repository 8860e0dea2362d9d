package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	pebbledb "github.com/cockroachdb/pebble/v2"

	"github.com/referto/referto/api"
	"github.com/referto/referto/api/apitest"
	"github.com/referto/referto/api/client"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/projections"
	"github.com/referto/referto/replay"
)

// cli runs one referto command in-process and returns its stdout.
func cli(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, func(string) string { return "" }, &out, &errOut)
	if err != nil && !errors.Is(err, errVerify) {
		return out.String() + errOut.String(), err
	}
	return out.String(), err
}

func mustCLI(t *testing.T, args ...string) string {
	t.Helper()
	out, err := cli(t, args...)
	if err != nil {
		t.Fatalf("referto %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// audited is a whole Raduno played through the real stack and exported.
type audited struct {
	data, log, cp, key string
	lines              [][]byte
}

func exportDemo(t *testing.T) audited {
	t.Helper()
	dir := t.TempDir()
	a := audited{data: filepath.Join(dir, "data"), log: filepath.Join(dir, "raduno-demo.ndjson"), cp: filepath.Join(dir, "raduno-demo.checkpoint"),
		key: filepath.Join(dir, "data", "keys", "checkpoint.pub")}
	mustCLI(t, "demo", "--data", a.data, "--players", "48", "--seed", "3")
	out := mustCLI(t, "export", "--data", a.data, "--tournament", "raduno-demo", "--out", a.log, "--checkpoint", a.cp)
	if !strings.Contains(out, "exported ") {
		t.Fatalf("export said %q", out)
	}
	b, err := os.ReadFile(a.log)
	if err != nil {
		t.Fatal(err)
	}
	a.lines = bytes.SplitAfter(b, []byte("\n"))
	a.lines = a.lines[:len(a.lines)-1]
	return a
}

// lineOf returns the 1-based line of the n-th event of type typ (n from 1;
// -1 for the last).
func (a audited) lineOf(t *testing.T, typ string, n int) int {
	t.Helper()
	var found []int
	for i, l := range a.lines {
		if bytes.Contains(l, []byte(`"type":"`+typ+`"`)) {
			found = append(found, i+1)
		}
	}
	if len(found) == 0 {
		t.Fatalf("no %s in the export", typ)
	}
	if n < 0 {
		return found[len(found)-1]
	}
	return found[n-1]
}

// write writes lines to a new file beside the export and returns its path.
func (a audited) write(t *testing.T, name string, lines [][]byte) string {
	t.Helper()
	p := filepath.Join(filepath.Dir(a.log), name)
	if err := os.WriteFile(p, bytes.Join(lines, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func (a audited) clone() [][]byte {
	out := make([][]byte, len(a.lines))
	for i, l := range a.lines {
		out[i] = bytes.Clone(l)
	}
	return out
}

// relink recomputes every link from line from on, as a careful forger would.
func relink(t *testing.T, lines [][]byte, from int) {
	t.Helper()
	for i := from - 1; i < len(lines); i++ {
		env, err := events.DecodeEnvelope(bytes.TrimSuffix(lines[i], []byte("\n")))
		if err != nil {
			t.Fatal(err)
		}
		env.Prev = ""
		if i > 0 {
			env.Prev = events.Link(bytes.TrimSuffix(lines[i-1], []byte("\n")))
		}
		b, _ := json.Marshal(&env)
		lines[i] = append(b, '\n')
	}
}

// sign signs a checkpoint over lines, a tournament's, with the keys in dir.
func sign(t *testing.T, dir string, lines [][]byte) []byte {
	t.Helper()
	keys, err := checkpoint.LoadOrCreateKeys(dir, "referto", nil)
	if err != nil {
		t.Fatal(err)
	}
	first, err := events.DecodeEnvelope(bytes.TrimSuffix(lines[0], []byte("\n")))
	if err != nil {
		t.Fatal(err)
	}
	tree := checkpoint.NewTree()
	for _, l := range lines {
		_ = tree.Append(bytes.TrimSuffix(l, []byte("\n")), nil)
	}
	note, err := checkpoint.Sign(checkpoint.Checkpoint{Origin: checkpoint.Origin(first.Tournament), Size: tree.Size(), Root: tree.Root()}, keys.Signer)
	if err != nil {
		t.Fatal(err)
	}
	return []byte(note)
}

var verdictRE = regexp.MustCompile(`(?m)^verdict: (.*)$`)

func verdict(t *testing.T, out string) string {
	t.Helper()
	m := verdictRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no verdict in:\n%s", out)
	}
	return m[1]
}

// republish rewrites the publication at line pub, relinks what follows and
// signs the result with the server's own key: a forgery by the server.
func republish(t *testing.T, a audited, l [][]byte, pub int, change func(*events.ClassificationPublished)) ([][]byte, []byte) {
	t.Helper()
	rewriteEvent(t, l, pub, change)
	return l, sign(t, filepath.Join(a.data, "keys"), l)
}

// rewriteEvent changes the event at line n, an E, and relinks what
// follows.
func rewriteEvent[E any](t *testing.T, l [][]byte, n int, change func(*E)) {
	t.Helper()
	var env events.Envelope
	if err := json.Unmarshal(l[n-1], &env); err != nil {
		t.Fatal(err)
	}
	var ev E
	if err := json.Unmarshal(env.Data, &ev); err != nil {
		t.Fatal(err)
	}
	change(&ev)
	env.Data, _ = json.Marshal(ev)
	b, _ := json.Marshal(&env)
	l[n-1] = append(b, '\n')
	relink(t, l, n+1)
}

// TestVerifyFindsEveryTampering exports a Raduno played through the real
// stack, checks that referto verify accepts it, and that every kind of
// tampering fails with the offending line named.
func TestVerifyFindsEveryTampering(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a whole tournament: skipped in -short mode")
	}
	a := exportDemo(t)
	n := len(a.lines)
	out, err := cli(t, "verify", "--log", a.log, "--checkpoint", a.cp, "--key", a.key)
	if err != nil || !strings.HasPrefix(verdict(t, out), "OK") {
		t.Fatalf("the untouched export: %v\n%s", err, out)
	}
	for _, want := range []string{"every line is linked to the one before it", "the checkpoint given: size " + fmt.Sprint(n) + ", signature ok, root matches",
		"signature ok, root matches", "draws re-run to their recorded tables"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	// The checkpoint beside the log is found on its own; without a key
	// nothing is proved.
	if out, err := cli(t, "verify", "--log", a.log); !errors.Is(err, errVerify) || !strings.HasPrefix(verdict(t, out), "NOT VERIFIED") {
		t.Errorf("without --key: %v, %s", err, verdict(t, out))
	}
	// Without the export's checkpoint, the one the publication embeds
	// anchors the log (DESIGN: "given, or the one embedded").
	bare := a.write(t, "bare.ndjson", a.lines)
	if out, err := cli(t, "verify", "--log", bare, "--key", a.key); err != nil || !strings.HasPrefix(verdict(t, out), "OK") {
		t.Errorf("with the embedded checkpoint only: %v\n%s", err, out)
	}

	result := a.lineOf(t, events.TypeResultRecorded, 5)
	register := a.lineOf(t, events.TypePlayerRegistered, 3)
	pub := a.lineOf(t, events.TypeClassificationPublished, -1)
	draw2 := a.lineOf(t, events.TypeTablesDrawn, 2)
	otherKeys := t.TempDir()
	changeResult := func(l [][]byte) {
		l[result-1] = regexp.MustCompile(`"table_points":(\d)`).ReplaceAll(l[result-1], []byte(`"table_points":9$1`))
	}
	// A careful forger: change, relink everything after, and either sign
	// with a key of their own or leave the server's checkpoints as they are.
	cases := []struct {
		name   string
		tamper func(lines [][]byte) ([][]byte, []byte) // the lines and the checkpoint to give (nil: the export's)
		want   string                                  // the verdict's start
		first  int                                     // the first line changed, which the verdict must name or hold
	}{
		{"a changed byte in a table report", func(l [][]byte) ([][]byte, []byte) {
			changeResult(l)
			return l, nil
		}, fmt.Sprintf("FAILED at line %d ", result), result},
		{"a changed byte in a name", func(l [][]byte) ([][]byte, []byte) {
			l[9] = bytes.Replace(l[9], []byte(`"name":"`), []byte(`"name":"X`), 1)
			return l, nil
		}, "FAILED at line 10 ", 10},
		{"a changed link", func(l [][]byte) ([][]byte, []byte) {
			l[19] = bytes.Replace(l[19], []byte(`"prev":"`), []byte(`"prev":"A`), 1)
			return l, nil
		}, "FAILED at lines 19..20 ", 20},
		{"two lines in a row changed", func(l [][]byte) ([][]byte, []byte) {
			l[8] = bytes.Replace(l[8], []byte(`"name":"`), []byte(`"name":"X`), 1)
			l[9] = bytes.Replace(l[9], []byte(`"name":"`), []byte(`"name":"X`), 1)
			return l, nil
		}, "FAILED at lines 9..10 ", 9},
		{"a removed event", func(l [][]byte) ([][]byte, []byte) {
			return slices.Delete(l, 29, 30), nil
		}, "FAILED at line 30 ", 30},
		{"two events swapped", func(l [][]byte) ([][]byte, []byte) {
			l[39], l[40] = l[40], l[39]
			return l, nil
		}, "FAILED at line 40 ", 40},
		{"events removed from the end", func(l [][]byte) ([][]byte, []byte) {
			return l[:n-3], nil
		}, fmt.Sprintf("FAILED at line %d ", n-2), n - 2},
		{"an event added at the end", func(l [][]byte) ([][]byte, []byte) {
			extra := bytes.ReplaceAll(l[n-1], []byte(fmt.Sprintf("raduno-demo/%d", n)), []byte(fmt.Sprintf("raduno-demo/%d", n+1)))
			extra = bytes.Replace(extra, []byte(fmt.Sprintf(`"seq":%d`, n)), []byte(fmt.Sprintf(`"seq":%d`, n+1)), 1)
			l = append(l, extra)
			relink(t, l, n+1)
			return l, nil
		}, fmt.Sprintf("FAILED at line %d ", n+1), n + 1},
		{"a forged signature", func(l [][]byte) ([][]byte, []byte) {
			return l, sign(t, otherKeys, l)
		}, "FAILED at the log of", 0},
		{"a changed result, relinked and signed by another key", func(l [][]byte) ([][]byte, []byte) {
			changeResult(l)
			relink(t, l, result+1)
			return l, sign(t, otherKeys, l)
		}, "FAILED at lines ", result},
		{"a changed registration, relinked, under the server's checkpoint", func(l [][]byte) ([][]byte, []byte) {
			// Later events about the player no longer follow: the verdict
			// must not blame them.
			l[register-1] = bytes.Replace(l[register-1], []byte(`"player":"p003"`), []byte(`"player":"p999"`), 1)
			relink(t, l, register+1)
			return l, nil
		}, "FAILED at lines ", register},
		{"a changed result, relinked, under an early checkpoint only", func(l [][]byte) ([][]byte, []byte) {
			changeResult(l)
			relink(t, l, result+1)
			return l, sign(t, filepath.Join(a.data, "keys"), l[:5])
		}, "FAILED at lines ", result},
		{"two players swapped between tables of a draw, relinked and signed by the server's key", func(l [][]byte) ([][]byte, []byte) {
			// Every root matches; only re-running the draw's search (beside
			// the fold) shows its tables are not the ones its seed gives.
			re := regexp.MustCompile(`"tables":\[\{"table":1,"players":\["(p\d+)"(.*?)\{"table":2,"players":\["(p\d+)"`)
			if !re.Match(l[draw2-1]) {
				t.Fatalf("no tables 1 and 2 in line %d", draw2)
			}
			l[draw2-1] = re.ReplaceAll(l[draw2-1], []byte(`"tables":[{"table":1,"players":["$3"$2{"table":2,"players":["$1"`))
			relink(t, l, draw2+1)
			return l, sign(t, filepath.Join(a.data, "keys"), l)
		}, fmt.Sprintf("FAILED at line %d ", draw2), draw2},
		{"a score among a draw's recorded inputs changed, relinked and signed by the server's key", func(l [][]byte) ([][]byte, []byte) {
			// The tables are the ones recorded; the inputs they were drawn
			// from are not the games the log holds.
			re := regexp.MustCompile(`("past":\[\{[^}]*?"scores":\[)(\d+)`)
			if !re.Match(l[draw2-1]) {
				t.Fatalf("no past game in line %d", draw2)
			}
			l[draw2-1] = re.ReplaceAll(l[draw2-1], []byte(`${1}1${2}`))
			relink(t, l, draw2+1)
			return l, sign(t, filepath.Join(a.data, "keys"), l)
		}, fmt.Sprintf("FAILED at line %d ", draw2), draw2},
		{"a draw's recorded inputs that do not decode, relinked and signed by the server's key", func(l [][]byte) ([][]byte, []byte) {
			// Well-formed JSON of the wrong shape: the projections pass it
			// over (they do not read a draw's inputs), verify must not.
			re := regexp.MustCompile(`"sizes":\[(\d)`)
			if !re.Match(l[draw2-1]) {
				t.Fatalf("no sizes in line %d", draw2)
			}
			l[draw2-1] = re.ReplaceAll(l[draw2-1], []byte(`"sizes":["$1"`))
			relink(t, l, draw2+1)
			return l, sign(t, filepath.Join(a.data, "keys"), l)
		}, fmt.Sprintf("FAILED at line %d ", draw2), draw2},
		{"a classification that does not follow, signed by the server itself", func(l [][]byte) ([][]byte, []byte) {
			// The server's own key signs a publication whose first two
			// rows are swapped: every root matches, the rows do not.
			return republish(t, a, l, pub, func(cp *events.ClassificationPublished) {
				cp.Rows[0].Player, cp.Rows[1].Player = cp.Rows[1].Player, cp.Rows[0].Player
			})
		}, fmt.Sprintf("FAILED at line %d of", pub), pub},
		{"a published winner's name changed, signed by the server itself", func(l [][]byte) ([][]byte, []byte) {
			return republish(t, a, l, pub, func(cp *events.ClassificationPublished) { cp.Rows[0].Name = "Impostore" })
		}, fmt.Sprintf("FAILED at line %d of", pub), pub},
	}
	// What the report must say besides its verdict, for some cases.
	reportSays := map[string]string{
		"a score among a draw's recorded inputs changed, relinked and signed by the server's key": "its inputs differ",
		"a draw's recorded inputs that do not decode, relinked and signed by the server's key":    "does not decode",
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lines, cp := tc.tamper(a.clone())
			log := a.write(t, fmt.Sprintf("t%d.ndjson", i), lines)
			cpPath := a.cp
			if cp != nil {
				cpPath = a.write(t, fmt.Sprintf("t%d.cp", i), [][]byte{cp})
			}
			out, err := cli(t, "verify", "--log", log, "--checkpoint", cpPath, "--key", a.key)
			if !errors.Is(err, errVerify) {
				t.Fatalf("verify returned %v, want a failed verification\n%s", err, out)
			}
			v := verdict(t, out)
			if says := reportSays[tc.name]; !strings.Contains(out, says) {
				t.Errorf("the report does not say %q:\n%s", says, out)
			}
			if !strings.HasPrefix(v, tc.want) {
				t.Errorf("verdict %q, want it to start with %q\n%s", v, tc.want, out)
			}
			var lo, hi int
			if _, err := fmt.Sscanf(v, "FAILED at lines %d..%d", &lo, &hi); err != nil {
				if _, err := fmt.Sscanf(v, "FAILED at line %d", &lo); err != nil {
					lo = 0
				}
				hi = lo
			}
			if tc.first > 0 && (tc.first < lo || tc.first > hi) {
				t.Errorf("verdict %q does not name line %d, the first changed", v, tc.first)
			}
		})
	}
}

// TestExportOverHTTPIsTheStoredLog exports the same tournament from the
// data directory and from a running server: the same bytes, and a
// checkpoint that verifies.
func TestExportOverHTTPIsTheStoredLog(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a whole tournament: skipped in -short mode")
	}
	a := exportDemo(t)
	_, srv := apitest.Serve(t, a.data, testAdmin)
	c := &client.Client{Base: srv.URL, Token: testAdmin, HTTP: srv.Client()}
	off, err := c.AppointOfficial(context.Background(), "raduno-demo", client.Official{Name: "Revisore", Role: events.RoleAuditor})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	logPath, cpPath := filepath.Join(dir, "h.ndjson"), filepath.Join(dir, "h.checkpoint")
	// The appointment is an event too: the HTTP export has one line more.
	mustCLI(t, "export", "--url", srv.URL, "--token", off.Token, "--tournament", "raduno-demo", "--out", logPath, "--checkpoint", cpPath)
	got, _ := os.ReadFile(logPath)
	want := bytes.Join(a.lines, nil)
	if !bytes.HasPrefix(got, want) || bytes.Count(got, []byte("\n")) != len(a.lines)+1 {
		t.Errorf("the HTTP export is not the stored log plus the appointment (%d bytes, stored %d)", len(got), len(want))
	}
	if out, err := cli(t, "verify", "--log", logPath, "--checkpoint", cpPath, "--key", a.key); err != nil {
		t.Errorf("verify of the HTTP export: %v\n%s", err, out)
	}
	// A wrong token is refused with the server's problem.
	if out, err := cli(t, "export", "--url", srv.URL, "--token", "nope", "--tournament", "raduno-demo", "--out", logPath); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("export with a bad token: %v\n%s", err, out)
	}
}

// TestReplayAtDiffWhatIf replays an exported Raduno at a point, between two
// points and with a hypothetical amended report, through the CLI.
func TestReplayAtDiffWhatIf(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a whole tournament: skipped in -short mode")
	}
	a := exportDemo(t)
	// The end of qualifying: the last report before the semifinal draw.
	draw3 := a.lineOf(t, events.TypeTablesDrawn, 3)
	endQ := draw3 - 1
	out := mustCLI(t, "replay", "--log", a.log, "--at", fmt.Sprint(endQ))
	for _, want := range []string{fmt.Sprintf("after event %d: ", endQ), "round 1 (qualifying)", "round 2 (qualifying)", "table 1 [", "sanctions", "card_loss", "standings"} {
		if !strings.Contains(out, want) {
			t.Errorf("replay --at %d lacks %q:\n%s", endQ, want, out)
		}
	}
	if strings.Contains(out, "round 3") {
		t.Errorf("replay --at %d shows a round drawn later:\n%s", endQ, out)
	}
	// From the data directory, the same state.
	if out2 := mustCLI(t, "replay", "--data", a.data, "--tournament", "raduno-demo", "--at", fmt.Sprint(endQ)); out2 != out {
		t.Errorf("replay --data differs from replay --log")
	}

	// The difference across round 2's reports.
	draw2 := a.lineOf(t, events.TypeTablesDrawn, 2)
	out = mustCLI(t, "replay", "--log", a.log, "--diff", fmt.Sprintf("%d..%d", draw2, endQ))
	if !strings.Contains(out, fmt.Sprintf("events %d..%d:", draw2+1, endQ)) || !strings.Contains(out, "ResultRecorded") || !strings.Contains(out, "players moved") {
		t.Errorf("replay --diff:\n%s", out)
	}

	// What if the committee amended a round-2 report so that the first
	// player outside the cut won their table?
	st, err := replay.Fold(replay.NewScanner(bytes.NewReader(bytes.Join(a.lines, nil)), nil), uint64(endQ))
	if err != nil {
		t.Fatal(err)
	}
	phase, cut, err := commands.NextQualifiers(st)
	if err != nil {
		t.Fatal(err)
	}
	var target string
	var correction map[string]any
	for _, row := range st.Standings().Rows {
		if slices.Contains(cut, row.Player) || correction != nil {
			continue
		}
		for _, tb := range st.Round(2).Tables {
			if !slices.Contains(tb.Players, row.Player) || tb.Results == nil {
				continue
			}
			var players []map[string]any
			for i, p := range tb.Players {
				tp := 10 + i
				if p == row.Player {
					tp = 86
				}
				players = append(players, map[string]any{"player": p, "turn": i + 1, "table_points": tp, "status": "finished"})
			}
			target = row.Player
			correction = map[string]any{"type": "RecordResult", "round": 2, "table": tb.Number, "closed_by": "closing_roll", "players": players}
		}
	}
	if correction == nil {
		t.Fatal("no player outside the cut to test with")
	}
	b, _ := json.Marshal([]any{correction})
	file := filepath.Join(t.TempDir(), "whatif.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(a.log)
	out = mustCLI(t, "replay", "--log", a.log, "--at", fmt.Sprint(endQ), "--what-if", file)
	for _, want := range []string{"ResultAmended", target + " ", "qualifiers for the " + string(phase) + ":", " would take it", "nothing was appended to the log"} {
		if !strings.Contains(out, want) {
			t.Errorf("what-if lacks %q:\n%s", want, out)
		}
	}
	if m := regexp.MustCompile(`, (.*) would take it`).FindStringSubmatch(out); m == nil || !strings.Contains(m[1], target) {
		t.Errorf("%s should take a place:\n%s", target, out)
	}
	if after, _ := os.ReadFile(a.log); !bytes.Equal(before, after) {
		t.Error("what-if changed the export")
	}
	// A correction the rules refuse is reported, not applied.
	bad := filepath.Join(t.TempDir(), "bad.json")
	_ = os.WriteFile(bad, []byte(`[{"type":"DrawTables","round":3}]`), 0o644)
	if out, err := cli(t, "replay", "--log", a.log, "--what-if", bad); err == nil || !strings.Contains(err.Error(), "RecordResult, RevokeSanction or ImposeSanction") {
		t.Errorf("a DrawTables correction: %v\n%s", err, out)
	}
	// Requests that cannot mean anything are refused before the log is read.
	for _, args := range [][]string{{"--top", "0"}, {"--diff", "5..3"}, {"--diff", "3..5", "--at", "4"}, {"--diff", "3..5", "--what-if", file}} {
		if out, err := cli(t, append([]string{"replay", "--log", a.log}, args...)...); err == nil {
			t.Errorf("replay %v accepted:\n%s", args, out)
		}
	}
}

// TestGenerateExportVerify writes a synthetic tournament, exports and
// verifies it, and serves it: the projections built from the generated log
// publish the classification the log holds.
func TestGenerateExportVerify(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a whole tournament: skipped in -short mode")
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	out := mustCLI(t, "generate", "--data", data, "--events", "3000", "--rounds", "4", "--tournament", "gen")
	if !strings.Contains(out, "generated gen: ") {
		t.Fatalf("generate said %q", out)
	}
	if _, err := cli(t, "generate", "--data", data, "--events", "3000", "--tournament", "gen"); err == nil {
		t.Error("generating into an existing tournament succeeded")
	}
	logPath := filepath.Join(dir, "gen.ndjson")
	mustCLI(t, "export", "--data", data, "--tournament", "gen", "--out", logPath)
	out = mustCLI(t, "verify", "--log", logPath, "--key", filepath.Join(data, "keys", "checkpoint.pub"))
	if v := verdict(t, out); !strings.HasPrefix(v, "OK") || !strings.Contains(out, "4 draws re-run") {
		t.Errorf("verify of a generated log: %s\n%s", v, out)
	}
	_, srv := apitest.Serve(t, data, testAdmin)
	cl, err := (&client.Client{Base: srv.URL, HTTP: srv.Client()}).Classification(context.Background(), "gen")
	if err != nil {
		t.Fatal(err)
	}
	if !cl.Final || cl.Checkpoint == "" || len(cl.Rows) < 16 {
		t.Errorf("served classification: final %v, checkpoint %q, %d rows", cl.Final, cl.Checkpoint, len(cl.Rows))
	}
}

// TestProgressOnlyOnATerminal: a pipe, a file or a buffer gets nothing;
// a terminal gets a bar that counts events.
func TestProgressOnlyOnATerminal(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf, 100, "verify", false)
	p.Add(50)
	p.Done()
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	newProgress(f, 100, "verify", false).Add(10)
	if st, _ := f.Stat(); buf.Len() > 0 || st.Size() > 0 {
		t.Errorf("progress written off a terminal: %q, %d bytes to a file", buf.String(), st.Size())
	}
	b := newBar(&buf, 1000, "verify", false)
	b.Add(400)
	b.Done()
	if !strings.Contains(buf.String(), "verify") || !strings.Contains(buf.String(), "400/1000") {
		t.Errorf("the bar drew %q", buf.String())
	}
}

// TestExportRefusesWhatItCannotVouchFor: export signs only with the
// server's own key, only a log that reproduces the Merkle head the server
// recorded, and over HTTP keeps only a transfer that arrived whole.
func TestExportRefusesWhatItCannotVouchFor(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a whole tournament: skipped in -short mode")
	}
	a := exportDemo(t)
	out := filepath.Join(t.TempDir(), "x.ndjson")
	mustFail := func(want string, args ...string) {
		t.Helper()
		msg, err := cli(t, args...)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("referto %s: got %v, want an error saying %q\n%s", strings.Join(args, " "), err, want, msg)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("a refused export left %s behind", out)
		}
	}

	// Transfers that did not arrive whole.
	note, _ := os.ReadFile(a.cp)
	whole := bytes.Join(a.lines, nil)
	for _, c := range []struct {
		name, want string
		body       []byte
		abort      bool
	}{
		{"a line short", "received", bytes.Join(a.lines[:len(a.lines)-1], nil), false},
		{"cut mid-line", "inside line", whole[:len(whole)-5], false},
		{"aborted by the server", "transfer failed", whole[:len(whole)/2], true},
		{"a line changed", "root of the server's checkpoint", bytes.Replace(whole, []byte("Arbitro capo"), []byte("Arbitra capo"), 1), false},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set(api.CheckpointHeader, base64.StdEncoding.EncodeToString(note))
			w.Header().Set("Referto-Events", strconv.Itoa(len(a.lines)))
			w.Write(c.body)
			if c.abort {
				w.(http.Flusher).Flush()
				panic(http.ErrAbortHandler)
			}
		}))
		srv.Config.ErrorLog = log.New(io.Discard, "", 0)
		t.Run(c.name, func(t *testing.T) {
			mustFail(c.want, "export", "--url", srv.URL, "--token", "x", "--tournament", "raduno-demo", "--out", out)
		})
		srv.Close()
	}

	// No key in the data directory: refuse, and do not make one.
	keys := filepath.Join(a.data, "keys")
	if err := os.Rename(keys, keys+".away"); err != nil {
		t.Fatal(err)
	}
	mustFail("will not make a new one", "export", "--data", a.data, "--tournament", "raduno-demo", "--out", out)
	if _, err := os.Stat(keys); err == nil {
		t.Error("export --data created a signing key")
	}
	if err := os.Rename(keys+".away", keys); err != nil {
		t.Fatal(err)
	}

	// The log no longer reproduces the head the projections recorded (here
	// the recorded side is changed, which the export cannot tell apart from
	// a changed stream): nothing is signed.
	db, err := pebbledb.Open(filepath.Join(a.data, "projections"), &pebbledb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	it, err := db.NewIter(&pebbledb.IterOptions{LowerBound: []byte("mt/raduno-demo/"), UpperBound: []byte("mt/raduno-demo0")})
	if err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch()
	for it.First(); it.Valid(); it.Next() {
		b.Set(slices.Clone(it.Key()), bytes.Repeat([]byte{7}, 32), nil)
	}
	it.Close()
	if b.Count() == 0 {
		t.Fatal("no Merkle nodes stored for raduno-demo")
	}
	if err := b.Commit(pebbledb.Sync); err != nil {
		t.Fatal(err)
	}
	db.Close()
	mustFail("do not have the Merkle root", "export", "--data", a.data, "--tournament", "raduno-demo", "--out", out)
}

// TestSnapshotsReadBackAlongATournament: the runner's snapshots (JSON v2,
// streamed) read back into the state they were written from at every
// stage of a whole Raduno (check-ins, draws, results, sanctions,
// withdrawals, repechage, knockout, publication), compared as the API
// shows a state (encoding/json).
func TestSnapshotsReadBackAlongATournament(t *testing.T) {
	a := exportDemo(t)
	var envs []events.Envelope
	for _, l := range a.lines {
		env, err := events.DecodeEnvelope(bytes.TrimSuffix(l, []byte("\n")))
		if err != nil {
			t.Fatal(err)
		}
		envs = append(envs, env)
	}
	st := projections.New(envs[0].Tournament)
	for i, env := range envs {
		ev, err := events.Decode(env)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Apply(env, ev, nil); err != nil {
			t.Fatal(err)
		}
		if i%5 != 0 && i != len(envs)-1 {
			continue
		}
		var buf bytes.Buffer
		if err := st.WriteSnapshot(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := projections.ReadSnapshot(&buf, st.ID)
		if err != nil {
			t.Fatalf("after event %d: %v", env.Seq, err)
		}
		want, _ := json.Marshal(st)
		got, _ := json.Marshal(back)
		if !bytes.Equal(got, want) {
			t.Fatalf("after event %d (%s) the snapshot reads back differently:\n got %s\nwant %s", env.Seq, env.Type, got, want)
		}
	}
}

// TestVerifyNamesAnEquivocation: given checkpoints of one tournament,
// verify names two of one size with different roots as an equivocation,
// both files and both roots, and says whether the witness cosigned both;
// checkpoints of one history pass.
func TestVerifyNamesAnEquivocation(t *testing.T) {
	dir := t.TempDir()
	keys, err := checkpoint.LoadOrCreateKeys(filepath.Join(dir, "venue"), "roma", nil)
	if err != nil {
		t.Fatal(err)
	}
	w, err := checkpoint.LoadOrCreateWitness(filepath.Join(dir, "hub"), "referto-hub", strings.NewReader(strings.Repeat("w", 64)))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, size uint64, root byte) string {
		t.Helper()
		signed, err := checkpoint.Sign(checkpoint.Checkpoint{Origin: checkpoint.Origin("t1"), Size: size, Root: bytes.Repeat([]byte{root}, 32)}, keys.Signer)
		if err == nil {
			signed, err = checkpoint.Cosign([]byte(signed), keys.Verifier, w.Cosigner)
		}
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(signed), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	a, b, c := write("a.checkpoint", 22, 1), write("b.checkpoint", 22, 2), write("c.checkpoint", 30, 3)
	out, err := cli(t, "verify", "--checkpoint", a, "--checkpoint", c, "--key", keys.VerifierKey, "--witness", w.VerifierKey)
	if err != nil || !strings.Contains(out, "verdict: OK") {
		t.Errorf("two checkpoints of one history: %v\n%s", err, out)
	}
	out, err = cli(t, "verify", "--checkpoint", a, "--checkpoint", c, "--checkpoint", b, "--key", keys.VerifierKey, "--witness", w.VerifierKey)
	if !errors.Is(err, errVerify) {
		t.Errorf("an equivocation verified: %v", err)
	}
	want := fmt.Sprintf("equivocation: %s and %s both sign 22 events of referto/t1 with different roots (%x, %x)", a, b, bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32))
	if !strings.Contains(out, want) || !strings.Contains(out, "witness referto-hub cosigned both") || !strings.Contains(out, "verdict: EQUIVOCATION") {
		t.Errorf("verify does not name the equivocation:\n%s\nwant %q", out, want)
	}
	if _, err := cli(t, "verify", "--checkpoint", a, "--checkpoint", b); err == nil {
		t.Error("checkpoints compared without the trusted key")
	}
}
