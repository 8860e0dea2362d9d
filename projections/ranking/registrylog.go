package ranking

import (
	"errors"
	"fmt"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
)

// ErrRegistryLog reports a line that is not the next one of a season
// registry's log.
var ErrRegistryLog = errors.New("ranking: registry log")

// RegistryLog is a season registry's log (events.RegistryID) read line by
// line, as a hub keeps it and as an export of it is verified: every line
// must be the next event of that log (seq from 1, linked to the line
// before it, events.Envelope.Prev) and an event the Registry takes; the
// Merkle tree of the lines read is what the log's checkpoints sign.
type RegistryLog struct {
	reg  *Registry
	tree *checkpoint.Tree
}

// NewRegistryLog returns the log of no lines.
func NewRegistryLog() *RegistryLog {
	return &RegistryLog{reg: NewRegistry(), tree: checkpoint.NewTree()}
}

// Append reads the next stored line (without its newline). A line that is
// not the next one, or whose event the Registry refuses, is an error
// wrapping ErrRegistryLog and leaves the log as it was.
func (l *RegistryLog) Append(line []byte) (events.Envelope, error) {
	n := l.tree.Size() + 1
	env, ev, err := events.DecodeLine(line)
	switch {
	case err != nil:
		return env, fmt.Errorf("%w: line %d: %v", ErrRegistryLog, n, err)
	case env.Tournament != events.RegistryID:
		return env, fmt.Errorf("%w: line %d is of log %q, not the registry's", ErrRegistryLog, n, env.Tournament)
	case env.Seq != n:
		return env, fmt.Errorf("%w: line %d has seq %d", ErrRegistryLog, n, env.Seq)
	case env.Prev != events.LinkTo(l.tree.Last()):
		return env, fmt.Errorf("%w: line %d is not linked to the line before it", ErrRegistryLog, n)
	}
	if err := l.reg.Apply(ev); err != nil {
		return env, fmt.Errorf("%w: line %d: %v", ErrRegistryLog, n, err)
	}
	if err := l.tree.Append(line, nil); err != nil {
		return env, err
	}
	return env, nil
}

// Registry is the registry the lines read make. It changes as lines are
// appended: Clone it to keep it.
func (l *RegistryLog) Registry() *Registry { return l.reg }

// Head is the Merkle head of the lines read: what the next line links to
// and what a checkpoint of them signs.
func (l *RegistryLog) Head() checkpoint.Head { return l.tree.Head() }

// Checkpoint is the (unsigned) checkpoint of the lines read.
func (l *RegistryLog) Checkpoint() checkpoint.Checkpoint {
	return checkpoint.Checkpoint{Origin: checkpoint.RegistryOrigin, Size: l.tree.Size(), Root: l.tree.Root()}
}
