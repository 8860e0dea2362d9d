package node_test

import (
	"os"
	"strings"
	"testing"

	"github.com/referto/referto/api/node"
)

// TestAdminTokenHashIsMadeOnce: the first call makes a token and keeps
// only its hash, readable by the owner alone; later calls return the hash
// and no token.
func TestAdminTokenHashIsMadeOnce(t *testing.T) {
	l := node.Layout{Dir: t.TempDir()}
	hash, token, err := l.AdminTokenHash(nil)
	if err != nil || token == "" || node.TokenHash(token) != hash {
		t.Fatalf("first: hash %s, token %q, %v", hash, token, err)
	}
	fi, err := os.Stat(l.AdminToken())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s: %v %v, want mode 0600", l.AdminToken(), fi.Mode(), err)
	}
	if b, _ := os.ReadFile(l.AdminToken()); strings.Contains(string(b), token) {
		t.Error("the token itself is on disk")
	}
	again, token2, err := l.AdminTokenHash(nil)
	if err != nil || again != hash || token2 != "" {
		t.Errorf("second: %s %q %v, want %s and no token", again, token2, err, hash)
	}
}
