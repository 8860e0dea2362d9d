package backup

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestAHubsClubWorkbooksAreBackedUpAndChecked: a hub's folder of club
// workbooks (its season ranking reads them) is carried by its backup,
// FormatWorkbooks, each .xlsx file after the snapshots with its SHA-256 in
// the manifest and nothing else of the folder; restored, the folder is
// back byte for byte, the owner's alone. A workbook changed, dropped or
// added, or a manifest that does not say the file holds workbooks, is
// refused and nothing is restored.
func TestAHubsClubWorkbooksAreBackedUpAndChecked(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	node, reg := hubNode(ctx, t)
	dir := node.Layout.Workbooks()
	files := map[string][]byte{
		"4f2a.xlsx":                []byte("PK\x03\x04 the hub's upload, kept under its SHA-256"),
		"Torneo di Primavera.xlsx": []byte("PK\x03\x04 a file dropped in the folder by hand"),
	}
	others := map[string][]byte{".upload-123": []byte("an upload being written"), "leggimi.txt": []byte("not a workbook")}
	if err := os.MkdirAll(filepath.Join(dir, "vecchi.xlsx"), 0o700); err != nil { // a folder, not a workbook
		t.Fatal(err)
	}
	all := maps.Clone(files)
	maps.Copy(all, others)
	for name, b := range all {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	m, err := Write(ctx, &buf, Source{Log: node.Log, Store: node.Store, Runner: node.Runner, Registry: reg, KeysDir: node.Layout.Keys(), Workbooks: dir})
	if err != nil {
		t.Fatal(err)
	}
	whole := buf.Bytes()
	if m.Format != FormatWorkbooks || m.Registry == nil {
		t.Errorf("format %q, registry %v: want %s with the registry", m.Format, m.Registry, FormatWorkbooks)
	}
	for name, b := range files {
		if got, want := m.Files[WorkbooksEntry+name], hexSum(b); got != want {
			t.Errorf("the manifest's SHA-256 of %s: %q, want %q", name, got, want)
		}
	}
	names := entryNames(t, whole)
	if got, want := names[len(names)-3:], []string{"workbooks/4f2a.xlsx", "workbooks/Torneo di Primavera.xlsx", "manifest.json"}; !slices.Equal(got, want) {
		t.Errorf("the backup ends with %q, want %q", got, want)
	}

	restore := func(t *testing.T, file []byte) (string, error) {
		t.Helper()
		tmp := t.TempDir()
		path := filepath.Join(tmp, "b.tar")
		if err := os.WriteFile(path, file, 0o600); err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(tmp, "restored")
		_, err := Restore(ctx, path, target)
		return target, err
	}
	target, err := restore(t, whole)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadDir(filepath.Join(target, "workbooks"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(files) {
		t.Errorf("the restored folder holds %v, want only %d workbooks", got, len(files))
	}
	for name, want := range files {
		p := filepath.Join(target, "workbooks", name)
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(b, want) {
			t.Errorf("restored %s: %q %v, want %q", name, b, err, want)
		}
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
			t.Errorf("restored %s has mode %v, want 0600", name, fi.Mode().Perm())
		}
	}

	at, data := entry(t, whole, "workbooks/4f2a.xlsx")
	flipped := bytes.Clone(whole)
	flipped[at+len(data)/2] ^= 0x20
	isWorkbook := func(name string) bool { return strings.HasPrefix(name, WorkbooksEntry) }
	keep := func(string) bool { return false }
	for _, c := range []struct {
		name string
		file []byte
		want string
	}{
		{"a byte changed in a workbook", flipped, "workbooks/4f2a.xlsx is damaged"},
		{"a workbook dropped", rewrite(t, whole, func(name string) bool { return name == "workbooks/4f2a.xlsx" }, func(*Manifest) {}), "the manifest lists"},
		{"a workbook not in the manifest", rewrite(t, whole, keep, func(m *Manifest) { delete(m.Files, "workbooks/4f2a.xlsx") }), "the manifest lists"},
		{"the workbooks dropped, the manifest still FormatWorkbooks", rewrite(t, whole, isWorkbook, func(m *Manifest) {
			delete(m.Files, "workbooks/4f2a.xlsx")
			delete(m.Files, "workbooks/Torneo di Primavera.xlsx")
		}), "without club workbooks"},
		{"the workbooks kept, the manifest FormatRegistry", rewrite(t, whole, keep, func(m *Manifest) { m.Format = FormatRegistry }), "backup with club workbooks"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Read(bytes.NewReader(c.file), nil); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("read: %v, want it refused saying %q", err, c.want)
			}
			target, err := restore(t, c.file)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("restore: %v, want an error saying %q", err, c.want)
			}
			if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a refused restore left %s behind", target)
			}
		})
	}
}
