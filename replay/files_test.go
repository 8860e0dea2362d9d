package replay

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteFiles: both files whole, the checkpoint readable by all; a
// failed fill leaves nothing behind.
func TestWriteFiles(t *testing.T) {
	dir := t.TempDir()
	log, cp := filepath.Join(dir, "t.ndjson"), filepath.Join(dir, "t.ndjson.checkpoint")
	if err := WriteFiles(log, cp, func(w io.Writer) (string, error) {
		_, err := io.WriteString(w, "a\nb\n")
		return "note\n", err
	}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(log); string(b) != "a\nb\n" {
		t.Errorf("log %q", b)
	}
	if fi, err := os.Stat(cp); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("checkpoint: %v %v", fi, err)
	}
	other := t.TempDir()
	boom := errors.New("boom")
	err := WriteFiles(filepath.Join(other, "x"), filepath.Join(other, "x.checkpoint"), func(w io.Writer) (string, error) {
		io.WriteString(w, "half")
		return "", boom
	})
	if entries, _ := os.ReadDir(other); !errors.Is(err, boom) || len(entries) != 0 {
		t.Errorf("a failed fill: %v, left %v", err, entries)
	}
}

// TestFindCheckpoint: the name export writes, else the older one, else
// none; never the log itself.
func TestFindCheckpoint(t *testing.T) {
	dir := t.TempDir()
	touch := func(name string) {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	touch("a.ndjson")
	if p, ok := FindCheckpoint(filepath.Join(dir, "a.ndjson")); ok {
		t.Errorf("no checkpoint: found %s", p)
	}
	touch("a.checkpoint")
	if p, ok := FindCheckpoint(filepath.Join(dir, "a.ndjson")); !ok || filepath.Base(p) != "a.checkpoint" {
		t.Errorf("the older name: %s %v", p, ok)
	}
	touch("a.ndjson.checkpoint")
	if p, ok := FindCheckpoint(filepath.Join(dir, "a.ndjson")); !ok || filepath.Base(p) != "a.ndjson.checkpoint" {
		t.Errorf("export's name first: %s %v", p, ok)
	}
	touch("b.checkpoint")
	if p, ok := FindCheckpoint(filepath.Join(dir, "b.checkpoint")); ok {
		t.Errorf("a log named .checkpoint is not its own checkpoint: %s", p)
	}
}
