package node

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/referto/referto/events/atomicfile"
)

// TokenHash is the hex SHA-256 of a bearer token: how tokens are kept, the
// administrator's in Layout.AdminToken and the officials' in the
// projections, never the tokens themselves.
func TokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// AdminTokenHash returns the administrator's token hash kept in the
// layout's AdminToken file. When there is none, it makes a token from
// random (crypto/rand when nil), keeps its hash there (mode 0600, in a keys
// directory of mode 0700) and returns the token too, to be shown once.
func (l Layout) AdminTokenHash(random io.Reader) (hash, newToken string, err error) {
	b, err := os.ReadFile(l.AdminToken())
	if err == nil {
		return strings.TrimSpace(string(b)), "", nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", "", err
	}
	if random == nil {
		random = rand.Reader
	}
	raw := make([]byte, 32)
	if _, err := io.ReadFull(random, raw); err != nil {
		return "", "", err
	}
	token := hex.EncodeToString(raw)
	hash = TokenHash(token)
	if err := os.MkdirAll(l.Keys(), 0o700); err != nil {
		return "", "", err
	}
	if err := atomicfile.Write(l.AdminToken(), []byte(hash+"\n"), 0o600); err != nil {
		return "", "", err
	}
	return hash, token, nil
}
