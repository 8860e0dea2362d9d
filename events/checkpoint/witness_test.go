package checkpoint

import (
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCosign: a witness's cosignature is kept beside the log's signature,
// checks with the witness key (as a file or a hub's GET /v1/keys answer),
// and with no other; the witness key survives a reload.
func TestCosign(t *testing.T) {
	dir := t.TempDir()
	w, err := LoadOrCreateWitness(dir, "hub", rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := LoadOrCreateKeys(t.TempDir(), "referto", nil)
	if err != nil {
		t.Fatal(err)
	}
	signed, err := Sign(Checkpoint{Origin: Origin("t"), Size: 3, Root: make([]byte, 32)}, keys.Signer)
	if err != nil {
		t.Fatal(err)
	}
	cosigned, err := Cosign([]byte(signed), keys.Verifier, w.Cosigner)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(cosigned, signed) || strings.Count(cosigned, "\n— ") != 2 {
		t.Fatalf("cosigned note:\n%s", cosigned)
	}
	if _, err := Open([]byte(cosigned), keys.Verifier); err != nil {
		t.Errorf("the log's signature: %v", err)
	}
	answer := filepath.Join(dir, "keys.json")
	if err := os.WriteFile(answer, []byte(`{"checkpoint":"x","witness":"`+w.VerifierKey+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	wv, err := ReadWitnessVerifier(answer)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckCosigned([]byte(cosigned), wv); err != nil {
		t.Errorf("CheckCosigned: %v", err)
	}
	if err := CheckCosigned([]byte(signed), wv); !errors.Is(err, ErrSignature) {
		t.Errorf("CheckCosigned(no cosignature) = %v, want ErrSignature", err)
	}
	other, err := LoadOrCreateWitness(t.TempDir(), "hub", rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ov, _ := NewWitnessVerifier(other.VerifierKey)
	if err := CheckCosigned([]byte(cosigned), ov); !errors.Is(err, ErrSignature) {
		t.Errorf("CheckCosigned(another witness) = %v, want ErrSignature", err)
	}
	if _, err := Cosign([]byte(signed), ov, w.Cosigner); !errors.Is(err, ErrSignature) {
		t.Errorf("Cosign with the wrong log key = %v, want ErrSignature", err)
	}
	again, err := LoadOrCreateWitness(dir, "hub", nil)
	if err != nil || again.VerifierKey != w.VerifierKey {
		t.Errorf("reloaded witness %v, %v", again, err)
	}
}
