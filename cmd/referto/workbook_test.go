package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/referto/referto/api/apitest"
	"github.com/referto/referto/api/client"
	"github.com/referto/referto/commands/workbook/workbooktest"
	"github.com/referto/referto/events"
)

// The README's workbook commands, run as written on a workbook made by
// hand: checked (exit 0), imported into a stopped data directory, exported
// back as a workbook the check accepts with the same national id; and the
// imported tournament's log verifies like any other.
func TestReadmeWorkbookCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a node on a data directory (embedded NATS, Pebble)")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := fencedBlocks(markdownSection(string(readme), "## The clubs' workbook"), "sh")
	if len(blocks) != 1 {
		t.Fatalf("the README's workbook section has %d sh blocks, want 1", len(blocks))
	}
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("torneo.xlsx", workbooktest.Primavera(t).Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(blocks[0]), "\n") {
		args, ok := strings.CutPrefix(strings.TrimSpace(line), "go run ./cmd/referto ")
		if !ok {
			t.Fatalf("README line %q is not a referto command", line)
		}
		var out, errOut bytes.Buffer
		argv := strings.Fields(args)
		if err := run(ctx, argv, func(string) string { return "" }, &out, &errOut); err != nil {
			t.Fatalf("referto %s: %v\n%s%s", args, err, out.String(), errOut.String())
		}
		seen[argv[0]] = true
		t.Logf("referto %s:\n%s", args, out.String())
	}
	for _, c := range []string{"check", "import", "export"} {
		if !seen[c] {
			t.Errorf("the README's workbook section does not run referto %s", c)
		}
	}
	exported := "20250315_ROMA_Il_Gufo_Torneo_di_Primavera.xlsx"
	var out bytes.Buffer
	if err := run(ctx, []string{"check", "--workbook", exported}, func(string) string { return "" }, &out, &out); err != nil {
		t.Fatalf("the exported workbook: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), `"20250315 - ROMA [Il Gufo]"`) || !strings.Contains(out.String(), "tavoli / tables 4, partecipanti / participants 8, turni / rounds 2") {
		t.Errorf("the exported workbook is not the imported tournament:\n%s", out.String())
	}
	out.Reset()
	if err := run(ctx, []string{"export", "--data", "referto-data", "--tournament", "20250315-roma-il-gufo", "--out", "t.ndjson"}, os.Getenv, &out, &out); err != nil {
		t.Fatal(err)
	}
	if err := run(ctx, []string{"verify", "--log", "t.ndjson", "--key", filepath.Join("referto-data", "keys", "checkpoint.pub")}, os.Getenv, &out, &out); err != nil {
		t.Fatalf("verify of the imported tournament: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "verdict: OK") {
		t.Errorf("verify:\n%s", out.String())
	}
}

// check reports every problem with its sheet and cell, in Italian and
// English, and exits non-zero when one is an error.
func TestCheckWorkbookReportsEveryProblem(t *testing.T) {
	path := filepath.Join(t.TempDir(), "torneo.xlsx")
	broken := workbooktest.Primavera(t).Set("Iscritti", "A5", 1).Set("TORNEO", "D5", "Torneo Fantasia").Set("2\u00b0 Turno", "A2", 99)
	if err := os.WriteFile(path, broken.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := run(context.Background(), []string{"check", "--workbook", path}, func(string) string { return "" }, &out, &out)
	if !errors.Is(err, errCheck) {
		t.Fatalf("check of a broken workbook: %v\n%s", err, out.String())
	}
	for _, want := range []string{"TORNEO!D5", "Iscritti!A5", "2° Turno!A2", "corretta tipologia di Torneo", "is not a tournament type", "duplicato", "listed twice"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("check does not say %q:\n%s", want, out.String())
		}
	}
}

// The morning's entry list, from the arbiter's Excel file, into a
// tournament a running server holds: the server plans it against the
// tournament as it stands (referto import --entry-list --url); sent again
// it records nothing more and says why.
func TestImportEntryListIntoARunningServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a node (embedded NATS, Pebble)")
	}
	const admin = "workbook-admin"
	_, srv := apitest.Serve(t, t.TempDir(), admin)
	ctx := context.Background()
	c := &client.Client{Base: srv.URL, Token: admin}
	if _, err := c.CreateTournament(ctx, "", client.NewTournament{ID: "mattina", Name: "Torneo del mattino", Ruleset: "rtu"}); err != nil {
		t.Fatal(err)
	}
	arb, err := c.AppointOfficial(ctx, "mattina", client.Official{Name: "Arbitro", Role: "arbiter"})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "iscritti.xlsx")
	if err := os.WriteFile(path, workbooktest.Primavera(t).Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"import", "--workbook", path, "--url", srv.URL, "--token", arb.Token, "--entry-list", "--tournament", "mattina"}
	var out bytes.Buffer
	if err := run(ctx, args, func(string) string { return "" }, &out, &out); err != nil {
		t.Fatalf("import: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "into tournament mattina: 8 players, 9 commands") {
		t.Errorf("import said:\n%s", out.String())
	}
	players, err := c.Players(ctx, "mattina")
	if err != nil || len(players.Players) != 8 {
		t.Fatalf("the entry list after the import: %+v %v", players, err)
	}
	out.Reset()
	err = run(ctx, args, func(string) string { return "" }, &out, &out)
	if err == nil || !strings.Contains(err.Error(), "già stato importato") {
		t.Errorf("the same file again: %v\n%s", err, out.String())
	}
}

// importedExport imports a club workbook made by hand into a stopped data
// directory, its standings disagreeing with the ruleset on p3 and p7, and
// exports the tournament with its signed checkpoint: an export verify
// accepts.
func importedExport(t *testing.T) audited {
	t.Helper()
	dir := t.TempDir()
	data, file := filepath.Join(dir, "data"), filepath.Join(dir, "primavera.xlsx")
	rows := workbooktest.PrimaveraStandings()
	rows[3].Points = 134 // the file's own sum for p3, not the ruleset's
	wb := workbooktest.Primavera(t).Delete("Classifica Ridotta").Standings(rows...).Set("2\u00b0 Turno", "C4", 44.1)
	if err := os.WriteFile(file, wb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, "import", "--workbook", file, "--data", data)
	a := audited{data: data, log: filepath.Join(dir, "t.ndjson"), cp: filepath.Join(dir, "t.checkpoint"), key: filepath.Join(data, "keys", "checkpoint.pub")}
	mustCLI(t, "export", "--data", data, "--tournament", "20250315-roma-il-gufo", "--out", a.log, "--checkpoint", a.cp)
	b, err := os.ReadFile(a.log)
	if err != nil {
		t.Fatal(err)
	}
	a.lines = bytes.SplitAfter(b, []byte("\n"))
	a.lines = a.lines[:len(a.lines)-1]
	if out := mustCLI(t, "verify", "--log", a.log, "--checkpoint", a.cp, "--key", a.key); !strings.HasPrefix(verdict(t, out), "OK") {
		t.Fatalf("the imported tournament does not verify:\n%s", out)
	}
	return a
}

// verify derives again the rows on which an imported classification's
// standings disagree with the ruleset: an export whose
// ClassificationImported states other disagreements (one left out, one
// changed, one made up), relinked and signed with the server's own key,
// fails at that line.
func TestVerifyFindsAChangedImportedClassification(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a node on a data directory (embedded NATS, Pebble)")
	}
	a := importedExport(t)
	data := a.data
	imp := a.lineOf(t, events.TypeClassificationImported, 1)
	reimport := func(l [][]byte, change func(*events.ClassificationImported)) ([][]byte, []byte) {
		rewriteEvent(t, l, imp, func(ci *events.ClassificationImported) {
			if len(ci.Disagreements) != 2 {
				t.Fatalf("the import states %d disagreements, want p3's and p7's: %+v", len(ci.Disagreements), ci.Disagreements)
			}
			change(ci)
		})
		return l, sign(t, filepath.Join(data, "keys"), l)
	}
	for i, c := range []struct {
		name   string
		change func(*events.ClassificationImported)
	}{
		{"a disagreement left out", func(ci *events.ClassificationImported) { ci.Disagreements = ci.Disagreements[1:] }},
		{"a disagreement's rank changed", func(ci *events.ClassificationImported) { ci.Disagreements[0].Rank++ }},
		{"a disagreement made up", func(ci *events.ClassificationImported) {
			ci.Disagreements = append(ci.Disagreements, events.Disagreement{Player: "p2", FileRank: 1, FilePoints: "175", Rank: 2, Total: 17500})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			lines, cp := reimport(a.clone(), c.change)
			out, err := cli(t, "verify", "--log", a.write(t, fmt.Sprintf("d%d.ndjson", i), lines),
				"--checkpoint", a.write(t, fmt.Sprintf("d%d.cp", i), [][]byte{cp}), "--key", a.key)
			if !errors.Is(err, errVerify) {
				t.Fatalf("verify returned %v, want a failed verification\n%s", err, out)
			}
			if v := verdict(t, out); !strings.HasPrefix(v, fmt.Sprintf("FAILED at line %d ", imp)) || !strings.Contains(out, fmt.Sprintf("the classification imported at line %d is not what events 1..%d derive", imp, imp-1)) {
				t.Errorf("verdict %q does not name line %d, the imported classification:\n%s", v, imp, out)
			}
		})
	}
}

// A player of a tournament imported from a club workbook carries the proof
// of his row of the file's standings as the ledger published them: written
// from the export (referto proof), it verifies offline with the server's
// key and says it is the workbook's classification; a row changed in it
// is refused.
func TestProveARowOfAnImportedClassification(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a node on a data directory (embedded NATS, Pebble)")
	}
	a := importedExport(t)
	path := filepath.Join(filepath.Dir(a.log), "p2.proof.json")
	if out := mustCLI(t, "proof", "--log", a.log, "--player", "p2", "--out", path); !strings.Contains(out, "proof of p2's row (rank 1)") {
		t.Errorf("proof said %q", out)
	}
	out := mustCLI(t, "verify", "--proof", path, "--key", a.key)
	if v := verdict(t, out); v != "OK: p2 (Giulia Bianchi) ranked 1, 175.00 points, in the standings of 20250315-roma-il-gufo's workbook" ||
		!strings.Contains(out, "the classification imported from a club workbook") {
		t.Errorf("verify --proof of an imported row:\n%s", out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	changed := bytes.Replace(b, []byte(`"total": 17500`), []byte(`"total": 18500`), 1)
	if bytes.Equal(changed, b) {
		t.Fatalf("no total to change in the proof:\n%s", b)
	}
	if err := os.WriteFile(path, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := cli(t, "verify", "--proof", path, "--key", a.key); !errors.Is(err, errVerify) || !strings.Contains(out, "REFUSED") {
		t.Errorf("a changed row verified: %v\n%s", err, out)
	}
}
