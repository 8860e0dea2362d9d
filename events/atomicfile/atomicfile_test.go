package atomicfile_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/referto/referto/events/atomicfile"
)

// entries are the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestWriteReplacesTheFileWhole: a write makes the file, a second replaces
// it, each with the mode asked for, and nothing else is left beside it.
func TestWriteReplacesTheFileWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "key")
	for _, c := range []struct {
		data []byte
		perm os.FileMode
	}{{[]byte("first"), 0o600}, {[]byte("second, longer"), 0o644}} {
		if err := atomicfile.Write(path, c.data, c.perm); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, c.data) {
			t.Errorf("read back %q, %v; want %q", got, err, c.data)
		}
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != c.perm {
			t.Errorf("mode %v, %v; want %v", fi.Mode().Perm(), err, c.perm)
		}
		if got := entries(t, dir); len(got) != 1 || got[0] != "key" {
			t.Errorf("the directory holds %q; want only key", got)
		}
	}
}

// TestAbortLeavesTheFileAsItWas: a file written and aborted (or failing
// before its commit) neither replaces the destination nor stays beside it.
func TestAbortLeavesTheFileAsItWas(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hub.json")
	if err := atomicfile.Write(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := atomicfile.Create(path, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("half of the new"); err != nil {
		t.Fatal(err)
	}
	if got := entries(t, dir); len(got) != 2 {
		t.Errorf("while writing the directory holds %q; want hub.json and the new file beside it", got)
	}
	f.Abort()
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("after Abort the file reads %q; want old", got)
	}
	if got := entries(t, dir); len(got) != 1 {
		t.Errorf("after Abort the directory holds %q; want only hub.json", got)
	}
	if err := f.Commit(); err == nil {
		t.Error("Commit after Abort succeeded; want an error")
	}
	if err := atomicfile.Write(filepath.Join(dir, "missing", "x"), nil, 0o600); err == nil {
		t.Error("a write into a directory that does not exist succeeded")
	}
}
