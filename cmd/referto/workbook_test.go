package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/referto/referto/commands/workbook/workbooktest"
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
