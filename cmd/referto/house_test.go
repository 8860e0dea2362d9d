// The rules of the house: which package may import which
// (docs/design.md#packages). They stand with the command, on the top
// floor, and read the whole module from its root.
package main_test

import (
	"errors"
	"go/build"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/referto/referto"

// floors are the top-level folders from the ground up. A package imports
// packages of its own folder or of a lower floor, never of a higher one
// nor of another folder on its floor.
var floors = [][]string{
	{"events"},
	{"projections"},
	{"commands"},
	{"replay"},
	{"api"},
	{"cmd"},
}

// storage are the modules of the log and the projection store: the
// decisions and the submit loop are tested without them, and none of
// commands/ may depend on them, even through another package.
var storage = []string{"github.com/nats-io/", "github.com/cockroachdb/pebble"}

// testHelpers may be imported by any package's tests, whatever their
// floor: they make inputs (entrants and table reports, a Raduno played
// through the API, logs and seasons), not decisions.
var testHelpers = []string{"cmd/referto/sim", "cmd/referto/demo", "cmd/referto/synth"}

// testUpward are the tests that check a package against one above it, each
// with its reason; no other test import runs back up the house.
var testUpward = map[[2]string]string{
	{"commands", "replay"}: "the golden draws are logs the auditor's verify must accept",
}

// pkg is one package of the module as go/build reads it.
type pkg struct {
	path        string // relative to the module
	imports     []string
	testImports []string
}

// modulePackages reads every package of the module, by its directory.
func modulePackages(t *testing.T) map[string]pkg {
	t.Helper()
	pkgs := map[string]pkg{}
	const root = "../.." // the module's root, from cmd/referto
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if name := d.Name(); p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
			return filepath.SkipDir
		}
		if p == root {
			return nil // the module's root holds no package
		}
		bp, err := build.ImportDir(p, 0)
		if err != nil {
			var none *build.NoGoError
			if errors.As(err, &none) {
				return nil
			}
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		pkgs[rel] = pkg{path: rel, imports: bp.Imports, testImports: append(slices.Clone(bp.TestImports), bp.XTestImports...)}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 20 {
		t.Fatalf("read %d packages of the module; want them all", len(pkgs))
	}
	return pkgs
}

// floorOf is the floor of a module package (relative path) and its
// top-level folder; -1 for the module's root.
func floorOf(rel string) (int, string) {
	top, _, _ := strings.Cut(rel, "/")
	for i, f := range floors {
		if slices.Contains(f, top) {
			return i, top
		}
	}
	return -1, top
}

// local is the module-relative path of an import of the module, or "".
func local(imp string) string {
	if rel, ok := strings.CutPrefix(imp, module+"/"); ok {
		return rel
	}
	return ""
}

// upward says why importer may not import imported, or "".
func upward(importer, imported string) string {
	fi, ti := floorOf(importer)
	fj, tj := floorOf(imported)
	switch {
	case fi < 0 || fj < 0:
		return "a top-level folder with no floor"
	case ti == tj:
		return ""
	case fj > fi:
		return "runs back up the house (" + tj + " is above " + ti + ")"
	case fj == fi:
		return "runs across the floor (" + ti + " and " + tj + ")"
	}
	return ""
}

// TestNoImportRunsBackUpTheHouse: every import of the module's own
// packages points down the floors (events ← projections ← commands ←
// replay ← api ← cmd) or stays within its folder; tests may also use the
// helpers that make inputs.
func TestNoImportRunsBackUpTheHouse(t *testing.T) {
	pkgs := modulePackages(t)
	for _, p := range pkgs {
		if f, _ := floorOf(p.path); f < 0 {
			t.Errorf("%s is in no folder of the house; want one of %v", p.path, floors)
		}
		for _, imp := range p.imports {
			if rel := local(imp); rel != "" {
				if why := upward(p.path, rel); why != "" {
					t.Errorf("%s imports %s: %s", p.path, rel, why)
				}
			}
		}
		for _, imp := range p.testImports {
			rel := local(imp)
			if rel == "" || slices.Contains(testHelpers, rel) || testUpward[[2]string{p.path, rel}] != "" {
				continue
			}
			if why := upward(p.path, rel); why != "" {
				t.Errorf("the tests of %s import %s: %s", p.path, rel, why)
			}
		}
	}
}

// TestCommandsDependOnNoStorage: no package of commands/ reaches NATS or
// Pebble, directly or through another package of the module.
func TestCommandsDependOnNoStorage(t *testing.T) {
	pkgs := modulePackages(t)
	// reach is every module package p depends on, p included.
	reach := func(start string) []string {
		seen := map[string]bool{}
		var walk func(string)
		walk = func(p string) {
			if seen[p] {
				return
			}
			seen[p] = true
			for _, imp := range pkgs[p].imports {
				if rel := local(imp); rel != "" {
					walk(rel)
				}
			}
		}
		walk(start)
		out := make([]string, 0, len(seen))
		for p := range seen {
			out = append(out, p)
		}
		sort.Strings(out)
		return out
	}
	checked := 0
	for _, p := range pkgs {
		if _, top := floorOf(p.path); top != "commands" {
			continue
		}
		checked++
		for _, dep := range reach(p.path) {
			for _, imp := range pkgs[dep].imports {
				for _, s := range storage {
					if strings.HasPrefix(imp, s) {
						t.Errorf("%s depends on %s (through %s)", p.path, imp, path.Clean(dep))
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no package of commands/ was checked")
	}
}

// TestTheRulesCatchAnUpwardImport: the rules refuse what they are there to
// refuse, so that a test of them cannot pass by reading nothing.
func TestTheRulesCatchAnUpwardImport(t *testing.T) {
	for _, c := range []struct {
		importer, imported string
		allowed            bool
	}{
		{"commands/ledger", "events/eventlog", true},
		{"api/hub", "replay", true},
		{"commands/ledger", "commands", true},
		{"cmd/referto", "api/node", true},
		{"commands/ledger", "api/node", false},
		{"events", "projections", false},
		{"replay", "api/hub", false},
		{"projections/store", "commands", false},
		{"api", "cmd/referto", false},
	} {
		if got := upward(c.importer, c.imported) == ""; got != c.allowed {
			t.Errorf("%s importing %s: allowed %v, want %v", c.importer, c.imported, got, c.allowed)
		}
	}
}
