package checkpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/mod/sumdb/note"
)

// ReadVerifier reads a trusted verifier key as an auditor gives it: the
// key itself (name+hash+key, as GET /v1/keys serves it), a file holding
// it, or a file holding a GET /v1/keys answer ({"checkpoint": key}).
func ReadVerifier(arg string) (note.Verifier, error) {
	k := arg
	if b, err := os.ReadFile(arg); err == nil {
		k = strings.TrimSpace(string(b))
		var answer struct {
			Checkpoint string `json:"checkpoint"`
		}
		if strings.HasPrefix(k, "{") {
			if err := json.Unmarshal([]byte(k), &answer); err != nil || answer.Checkpoint == "" {
				return nil, errors.New(`a JSON file but not a GET /v1/keys answer (no "checkpoint" key)`)
			}
			k = answer.Checkpoint
		}
	}
	v, err := note.NewVerifier(strings.TrimSpace(k))
	if err != nil {
		return nil, fmt.Errorf("not a verifier key (as GET /v1/keys serves it: name+hash+key), nor a file holding one or that answer: %v", err)
	}
	return v, nil
}
