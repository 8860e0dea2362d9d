package checkpoint

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/transparency-dev/formats/log"
	"golang.org/x/mod/sumdb/note"

	"github.com/referto/referto/events/atomicfile"
)

// ErrSignature reports a checkpoint whose signature does not verify, or
// that no trusted key signed.
var ErrSignature = errors.New("checkpoint: signature")

// ErrFormat reports text that is not a checkpoint.
var ErrFormat = errors.New("checkpoint: malformed")

// Checkpoint is the signed statement "the log of origin had size events and
// this root".
type Checkpoint struct {
	Origin string
	Size   uint64
	Root   []byte
}

// Origin names a tournament's log in its checkpoints.
func Origin(tournament string) string { return "referto/" + tournament }

// RegistryOrigin names a national hub's season registry log in its
// checkpoints: not of Origin's form, so that no tournament's checkpoint,
// whatever its id, is one of the registry's.
const RegistryOrigin = "referto-registry"

// Text is the note body: origin, size and base64 root, one per line (the
// common checkpoint format of github.com/transparency-dev/formats/log).
func (c Checkpoint) Text() string {
	return string(log.Checkpoint{Origin: c.Origin, Size: c.Size, Hash: c.Root}.Marshal())
}

// ParseText reads a note body: origin, size and a base64 root of 32 bytes,
// each ending with a newline; lines after them are ignored.
func ParseText(text string) (Checkpoint, error) {
	var c log.Checkpoint
	_, err := c.Unmarshal([]byte(text))
	if err == nil && len(c.Hash) == 32 {
		return Checkpoint{Origin: c.Origin, Size: c.Size, Root: c.Hash}, nil
	}
	// Name the line at fault, in the order the format is read.
	lines := strings.SplitN(text, "\n", 4)
	if len(lines) < 4 || lines[0] == "" {
		return Checkpoint{}, fmt.Errorf("%w: want origin, size and root lines", ErrFormat)
	}
	if _, serr := strconv.ParseUint(lines[1], 10, 64); serr != nil {
		return Checkpoint{}, fmt.Errorf("%w: size %q", ErrFormat, lines[1])
	}
	return Checkpoint{}, fmt.Errorf("%w: root %q", ErrFormat, lines[2])
}

// Sign renders the checkpoint as a signed note.
func Sign(c Checkpoint, s note.Signer) (string, error) {
	b, err := note.Sign(&note.Note{Text: c.Text()}, s)
	if err != nil {
		return "", fmt.Errorf("checkpoint: sign: %w", err)
	}
	return string(b), nil
}

// Open verifies a signed checkpoint with v and parses it.
func Open(signed []byte, v note.Verifier) (Checkpoint, error) {
	n, err := note.Open(signed, note.VerifierList(v))
	if err != nil {
		var unknown *note.UnverifiedNoteError
		var invalid *note.InvalidSignatureError
		switch {
		case errors.As(err, &unknown):
			return Checkpoint{}, fmt.Errorf("%w: not signed by %s", ErrSignature, v.Name())
		case errors.As(err, &invalid):
			return Checkpoint{}, fmt.Errorf("%w: invalid signature by %s", ErrSignature, v.Name())
		}
		return Checkpoint{}, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	return ParseText(n.Text)
}

// OpenUnverified parses a signed checkpoint without checking its signature
// (when no key is at hand) and returns the name of the key that claims it.
func OpenUnverified(signed []byte) (Checkpoint, string, error) {
	i := bytes.Index(signed, []byte("\n\n"))
	if i < 0 {
		return Checkpoint{}, "", fmt.Errorf("%w: no signature block", ErrFormat)
	}
	c, err := ParseText(string(signed[:i+1]))
	name := ""
	if rest := strings.TrimPrefix(string(signed[i+2:]), "— "); rest != string(signed[i+2:]) {
		name, _, _ = strings.Cut(rest, " ")
	}
	return c, name, err
}

// Keys is a log's signing key pair.
type Keys struct {
	Signer   note.Signer
	Verifier note.Verifier
	// VerifierKey is the public key as text ("<name>+<hash>+<keydata>"),
	// what GET /v1/keys serves and verify --key reads.
	VerifierKey string
	// Dir is the directory the keys were read from (what a backup copies).
	Dir string

	// seed is the signing key's private material, from which Secret
	// derives keys for other purposes; nil when the keys were built
	// without it.
	seed []byte
}

// ErrNoSecret reports keys that hold no private material to derive from.
var ErrNoSecret = errors.New("checkpoint: no signing key to derive a secret from")

// Secret derives a 32-byte key for purpose from the signing key:
// HMAC-SHA256 keyed with the private key, over "referto/derive/" and the
// purpose. The signing key is never used as is for anything but signing,
// and what is derived for one purpose tells nothing about another, nor
// about the signing key. The same key file derives the same secret, so a
// backup restored elsewhere derives what the original did.
func (k *Keys) Secret(purpose string) ([]byte, error) {
	if k == nil || len(k.seed) == 0 {
		return nil, ErrNoSecret
	}
	m := hmac.New(sha256.New, k.seed)
	m.Write([]byte("referto/derive/" + purpose))
	return m.Sum(nil), nil
}

// privateMaterial is the key data of a note signer key,
// "PRIVATE+KEY+<name>+<hash>+<base64 key>".
func privateMaterial(skey string) ([]byte, error) {
	parts := strings.SplitN(skey, "+", 5)
	if len(parts) != 5 || parts[0] != "PRIVATE" || parts[1] != "KEY" {
		return nil, fmt.Errorf("%w: not a signer key", ErrFormat)
	}
	b, err := base64.StdEncoding.DecodeString(parts[4])
	if err != nil || len(b) < 2 {
		return nil, fmt.Errorf("%w: signer key data", ErrFormat)
	}
	return b, nil
}

// The files of a keys directory (LoadOrCreateKeys, LoadKeys).
const (
	// SignerFile holds the signing key (mode 0600).
	SignerFile = "checkpoint.key"
	// VerifierFile holds the verifier key.
	VerifierFile = "checkpoint.pub"
)

// LoadOrCreateKeys reads the signing key from dir, creating an Ed25519 key
// named name on first use (mode 0600; the directory 0700).
func LoadOrCreateKeys(dir, name string, random io.Reader) (*Keys, error) {
	if random == nil {
		random = rand.Reader
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	// MkdirAll leaves an existing directory's mode alone: the keys are
	// the owner's only, whoever made the directory.
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, err
	}
	_, err := os.Stat(filepath.Join(dir, SignerFile))
	if errors.Is(err, os.ErrNotExist) {
		s, v, gerr := note.GenerateKey(random, name)
		if gerr != nil {
			return nil, fmt.Errorf("checkpoint: generate key: %w", gerr)
		}
		// The signing key's file is what says a key exists, so it is
		// written last, and each file whole or not at all: a crash in
		// between leaves no key and the next start makes a new pair.
		if err := atomicfile.Write(filepath.Join(dir, VerifierFile), []byte(v+"\n"), 0o600); err != nil {
			return nil, err
		}
		if err := atomicfile.Write(filepath.Join(dir, SignerFile), []byte(s+"\n"), 0o600); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	return LoadKeys(dir)
}

// LoadKeys reads the key pair LoadOrCreateKeys made in dir and never creates
// one: a tool that signs on behalf of an existing server (referto export
// --data) must sign with that server's key or not at all.
func LoadKeys(dir string) (*Keys, error) {
	skey, err := os.ReadFile(filepath.Join(dir, SignerFile))
	if err != nil {
		return nil, fmt.Errorf("checkpoint: signing key: %w", err)
	}
	signer, err := note.NewSigner(strings.TrimSpace(string(skey)))
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %s: %w", filepath.Join(dir, SignerFile), err)
	}
	vb, err := os.ReadFile(filepath.Join(dir, VerifierFile))
	if err != nil {
		return nil, err
	}
	vkey := strings.TrimSpace(string(vb))
	verifier, err := note.NewVerifier(vkey)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %s: %w", filepath.Join(dir, VerifierFile), err)
	}
	if verifier.KeyHash() != signer.KeyHash() || verifier.Name() != signer.Name() {
		return nil, fmt.Errorf("checkpoint: %s and %s are not one key pair", SignerFile, VerifierFile)
	}
	seed, err := privateMaterial(strings.TrimSpace(string(skey)))
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %s: %w", filepath.Join(dir, SignerFile), err)
	}
	return &Keys{Signer: signer, Verifier: verifier, VerifierKey: vkey, Dir: dir, seed: seed}, nil
}

// NewVerifier reads a verifier key as served by GET /v1/keys.
func NewVerifier(vkey string) (note.Verifier, error) {
	v, err := note.NewVerifier(strings.TrimSpace(vkey))
	if err != nil {
		return nil, fmt.Errorf("%w: verifier key: %v", ErrFormat, err)
	}
	return v, nil
}
