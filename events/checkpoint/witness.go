package checkpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"

	"github.com/referto/referto/events/atomicfile"
)

// A witness (the hub) cosigns a log's checkpoint once it has checked that
// the checkpoint is consistent with the last one it cosigned: its
// signature is a C2SP tlog-cosignature (cosignature/v1: Ed25519 over the
// checkpoint and a timestamp), added to the note beside the log's own.

// The files of a witness's keys, in its keys directory.
const (
	WitnessSignerFile   = "witness.key"
	WitnessVerifierFile = "witness.pub"
)

// Witness is a witness's cosigning key.
type Witness struct {
	Cosigner note.Signer
	// VerifierKey is the cosignature/v1 verifier key as text, what the
	// hub's GET /v1/keys serves as "witness" and verify --witness reads.
	VerifierKey string
}

// LoadOrCreateWitness reads the witness key from dir, creating an Ed25519
// key named name on first use. The cosignatures' timestamps are the
// operating system's clock (the formats library reads it).
func LoadOrCreateWitness(dir, name string, random io.Reader) (*Witness, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	skPath, vkPath := filepath.Join(dir, WitnessSignerFile), filepath.Join(dir, WitnessVerifierFile)
	if _, err := os.Stat(skPath); errors.Is(err, os.ErrNotExist) {
		if random == nil {
			return nil, errors.New("checkpoint: no randomness for a witness key")
		}
		s, v, err := note.GenerateKey(random, name)
		if err != nil {
			return nil, fmt.Errorf("checkpoint: generate witness key: %w", err)
		}
		cv, err := fnote.VKeyToCosignatureV1(v)
		if err != nil {
			return nil, err
		}
		if err := atomicfile.Write(vkPath, []byte(cv+"\n"), 0o600); err != nil {
			return nil, err
		}
		if err := atomicfile.Write(skPath, []byte(s+"\n"), 0o600); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	sk, err := os.ReadFile(skPath)
	if err != nil {
		return nil, err
	}
	signer, err := fnote.NewSignerForCosignatureV1(strings.TrimSpace(string(sk)))
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %s: %w", skPath, err)
	}
	vk, err := os.ReadFile(vkPath)
	if err != nil {
		return nil, err
	}
	vkey := strings.TrimSpace(string(vk))
	v, err := fnote.NewVerifierForCosignatureV1(vkey)
	if err != nil || v.KeyHash() != signer.KeyHash() {
		return nil, fmt.Errorf("checkpoint: %s and %s are not one key pair", WitnessSignerFile, WitnessVerifierFile)
	}
	return &Witness{Cosigner: signer, VerifierKey: vkey}, nil
}

// Cosign returns the signed checkpoint with w's cosignature added, after
// checking the log's signature with logKey.
func Cosign(signed []byte, logKey note.Verifier, w note.Signer) (string, error) {
	n, err := note.Open(signed, note.VerifierList(logKey))
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrSignature, err)
	}
	// Keep only the log's own signature: a cosignature from before is the
	// witness's to give again, not to repeat.
	n.UnverifiedSigs = nil
	out, err := note.Sign(n, w)
	if err != nil {
		return "", fmt.Errorf("checkpoint: cosign: %w", err)
	}
	return string(out), nil
}

// NewWitnessVerifier reads a witness's cosignature/v1 verifier key (a
// plain Ed25519 note key is read as its cosignature/v1 form).
func NewWitnessVerifier(vkey string) (note.Verifier, error) {
	v, err := fnote.NewVerifierForCosignatureV1(strings.TrimSpace(vkey))
	if err != nil {
		return nil, fmt.Errorf("%w: witness key: %v", ErrFormat, err)
	}
	return v, nil
}

// ReadWitnessVerifier reads a trusted witness key as an auditor gives it:
// the key, a file holding it, or a file holding a hub's GET /v1/keys
// answer ({"witness": key}).
func ReadWitnessVerifier(arg string) (note.Verifier, error) {
	k := arg
	if b, err := os.ReadFile(arg); err == nil {
		k = strings.TrimSpace(string(b))
		if strings.HasPrefix(k, "{") {
			var answer struct {
				Witness string `json:"witness"`
			}
			if err := json.Unmarshal([]byte(k), &answer); err != nil || answer.Witness == "" {
				return nil, errors.New(`a JSON file but not a hub's GET /v1/keys answer (no "witness" key)`)
			}
			k = answer.Witness
		}
	}
	return NewWitnessVerifier(k)
}

// CheckCosigned checks that signed carries a valid cosignature by the
// witness key w, over exactly its checkpoint.
func CheckCosigned(signed []byte, w note.Verifier) error {
	if _, err := note.Open(signed, note.VerifierList(w)); err != nil {
		var unknown *note.UnverifiedNoteError
		if errors.As(err, &unknown) {
			return fmt.Errorf("%w: no cosignature by witness %s", ErrSignature, w.Name())
		}
		return fmt.Errorf("%w: cosignature by witness %s: %v", ErrSignature, w.Name(), err)
	}
	return nil
}
