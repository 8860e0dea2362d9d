package replay

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/projections/ranking"
)

// ErrRegistry reports a season registry's export that does not verify.
var ErrRegistry = errors.New("replay: registry")

// VerifyRegistry checks the export of a national hub's season registry
// (GET /v1/registry/export, referto export --registry) as Verify checks a
// tournament's: the checkpoint signed by one of keys (the hub's checkpoint
// key) for the registry's log (checkpoint.RegistryOrigin), every line the
// next event of that log and one the registry takes (ranking.RegistryLog),
// and the lines exactly the ones the checkpoint signs, by their Merkle
// root. It returns the registry they fold to, and the checkpoint.
func VerifyRegistry(export, signed []byte, keys Keyring) (*ranking.Registry, checkpoint.Checkpoint, error) {
	v := keys.Verifier(signed)
	if v == nil {
		_, name, _ := checkpoint.OpenUnverified(signed)
		return nil, checkpoint.Checkpoint{}, fmt.Errorf("%w: its checkpoint is signed by %q, no trusted key", ErrRegistry, name)
	}
	cp, err := checkpoint.Open(signed, v)
	if err != nil {
		return nil, cp, fmt.Errorf("%w: %v", ErrRegistry, err)
	}
	if cp.Origin != checkpoint.RegistryOrigin {
		return nil, cp, fmt.Errorf("%w: the checkpoint is of %q, not of a season registry (%s)", ErrRegistry, cp.Origin, checkpoint.RegistryOrigin)
	}
	log := ranking.NewRegistryLog()
	for rest := export; len(rest) > 0; {
		line, after, ok := bytes.Cut(rest, []byte{'\n'})
		if !ok {
			return nil, cp, fmt.Errorf("%w: line %d ends without a newline: the export is cut short", ErrRegistry, log.Head().Size+1)
		}
		if _, err := log.Append(line); err != nil {
			return nil, cp, fmt.Errorf("%w: %v", ErrRegistry, err)
		}
		rest = after
	}
	if got := log.Checkpoint(); got.Size != cp.Size || !bytes.Equal(got.Root, cp.Root) {
		return nil, cp, fmt.Errorf("%w: the %d lines do not have the root the checkpoint signs for %d events", ErrRegistry, got.Size, cp.Size)
	}
	return log.Registry(), cp, nil
}
