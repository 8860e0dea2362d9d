package checkpoint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadVerifier: the key, a file holding it, a saved GET /v1/keys
// answer; a JSON file that is not one, and what is no key, refused.
func TestReadVerifier(t *testing.T) {
	dir := t.TempDir()
	keys, err := LoadOrCreateKeys(dir, "referto", nil)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, arg := range []string{keys.VerifierKey, write("pub", keys.VerifierKey+"\n"), write("keys.json", `{"checkpoint":"`+keys.VerifierKey+`","format":"x"}`)} {
		if v, err := ReadVerifier(arg); err != nil || v.Name() != "referto" {
			t.Errorf("%s: %v", arg, err)
		}
	}
	for arg, says := range map[string]string{write("bad.json", `{"checkpoint":""}`): "not a GET /v1/keys answer", "referto+nope": "not a verifier key"} {
		if _, err := ReadVerifier(arg); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("%s: %v, want an error saying %q", arg, err, says)
		}
	}
}
