package ledger

import (
	"context"
	"fmt"
	"time"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/projections"
)

// tournamentStream is a tournament's command on its way through the append
// loop. It is decided on the projections' state of the tournament (States),
// read under the tournament's lock: the lock is held from one command's
// decision until the projections have applied it, so that state holds
// every command of the tournament this process appended, and the command
// index holds their keys. Only another process sharing the log can have
// appended since, and the append's expected sequence catches that.
type tournamentStream struct {
	l   *Ledger
	sub Submission
}

// Find looks for the commit the submission's key stands for in the command
// index, a creation's key in the creation index too. A creation's key
// stands for it across tournaments, whose locks do not hold each other
// back: the creation index is read once the state holds every command this
// process acknowledged.
func (s tournamentStream) Find(ctx context.Context) (uint64, bool, error) {
	sub := s.sub
	if sub.Route == RouteCreate {
		if err := s.l.AwaitAcked(ctx, ""); err != nil {
			return 0, false, err
		}
		if ref, ok, err := s.l.opts.Index.Creation(sub.Key); err != nil || ok {
			return ref.StreamSeq, ok, err
		}
	}
	ref, ok, err := s.l.opts.Index.Command(sub.Tournament, sub.Key)
	return ref.StreamSeq, ok, err
}

// Replay answers with the outcome of the commit at streamSeq once the state
// holds it (Ledger.replayed).
func (s tournamentStream) Replay(ctx context.Context, streamSeq uint64) (Outcome, error) {
	o, err := s.l.replayed(ctx, streamSeq, s.sub)
	if err == nil {
		err = s.l.waitFor(ctx, s.sub.Tournament, streamSeq)
	}
	if err != nil {
		return Outcome{}, err
	}
	return o, nil
}

// Decide checks the submission's If-Match and decides its command on the
// tournament's state (a tournament not created yet: an empty one).
func (s tournamentStream) Decide(now time.Time) (evs []events.Event, head checkpoint.Head, expected uint64, err error) {
	sub := s.sub
	in := commands.Input{Now: now, Actor: sub.Actor, Seed: sub.Seed}
	run := func(t *projections.Tournament, h checkpoint.Head) {
		if sub.IfMatch != nil && !sub.IfMatch.Matches(t.Seq) {
			err = fmt.Errorf("%w: tournament %s is at seq %d, which If-Match %s does not match", ErrPrecondition, t.ID, t.Seq, sub.IfMatch)
			return
		}
		head, expected = h, t.LastStreamSeq
		evs, err = decideEvents(t, h, sub.Command, in, s.l.opts.Signer)
	}
	if !s.l.opts.State.ReadHead(sub.Tournament, run) {
		run(projections.New(sub.Tournament), checkpoint.NewTree().Head())
	}
	return evs, head, expected, err
}

// Append appends the commit under the submission's message id, with its
// request's fingerprint. A commit stored is acknowledged at once
// (AwaitAcked): from then on reads of the tournament wait for it.
func (s tournamentStream) Append(ctx context.Context, expected uint64, body []byte) (events.Appended, error) {
	ack, err := s.l.opts.Log.AppendRequest(ctx, s.sub.Tournament, expected, s.sub.msgID(), s.sub.Request, body)
	if err == nil && !ack.Duplicate {
		s.l.acknowledged(s.sub.Tournament, ack.StreamSeq)
	}
	return ack, err
}

// CatchUp waits until the state holds the tournament's last message.
func (s tournamentStream) CatchUp(ctx context.Context) error {
	return s.l.catchUp(ctx, s.sub.Tournament)
}

// FoldCommit applies a stored commit to a tournament's state and its
// Merkle tree as the projections apply it: decoded from its stored bytes
// (events.DecodeCommitForFold), folded event by event, each stored line a
// leaf of the tree. The generators of logs fold with it.
func FoldCommit(t *projections.Tournament, tree *checkpoint.Tree, body []byte) error {
	c, evs, err := events.DecodeCommitForFold(body)
	if err != nil {
		return err
	}
	for i, env := range c.Envelopes {
		if err := t.Apply(env, evs[i], nil); err != nil {
			return err
		}
		if err := tree.Append(c.Lines[i], nil); err != nil {
			return err
		}
	}
	return nil
}
