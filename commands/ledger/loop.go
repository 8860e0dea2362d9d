package ledger

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
)

// Stream is one event stream as Loop.Append appends a command to it: a
// tournament (Ledger.Submit) or a hub's season registry. One value stands
// for one command on its way in; its methods are called by one goroutine,
// the stream's one appender in this process (it holds the stream's lock).
type Stream interface {
	// Find looks for the commit the command's idempotency key already
	// stands for, and returns its stream sequence.
	Find(ctx context.Context) (streamSeq uint64, found bool, err error)
	// Replay is the outcome of the commit at streamSeq, which the
	// command's key already stands for (found by Find, or by the log's
	// duplicate window): the original outcome (Replayed), or a
	// *KeyReusedError when it was made for another request.
	Replay(ctx context.Context, streamSeq uint64) (Outcome, error)
	// Decide decides the command on the stream's state as this process
	// holds it: the events, the head of the stream's log they follow
	// (head.Size is its last event's seq) and the stream sequence of the
	// stream's last message, which the append expects.
	Decide(now time.Time) (evs []events.Event, head checkpoint.Head, expected uint64, err error)
	// Append appends a commit's body under the command's message id,
	// expecting the stream's last message at stream sequence expected.
	Append(ctx context.Context, expected uint64, body []byte) (events.Appended, error)
	// CatchUp brings the state up to the stream's last message in the log.
	CatchUp(ctx context.Context) error
}

// Command is what Loop.Append seals into a command's envelopes, and how it
// is held back.
type Command struct {
	// Stream is the envelopes' tournament field: a tournament's id, or
	// events.RegistryID.
	Stream string
	Actor  events.Actor
	// Key is the idempotency key, the envelopes' command_id.
	Key string
	// IfMatch, when set, is the condition Decide checked: a command that
	// loses a race is refused with ErrPrecondition, not decided again.
	IfMatch *IfMatch
	// Check, when set, is asked before each decision; an error refuses
	// the command with nothing appended (the disk guard).
	Check func() error
}

// Loop is the one decide → seal → chain → append → retry loop every
// command of referto goes through, a tournament's and the season
// registry's alike.
type Loop struct {
	// Clock is the time stamped on events.
	Clock func() time.Time
	// Retries is how many times a command is decided again after losing a
	// race for its stream.
	Retries int
	// Observer, when set, is told of every append and retry.
	Observer Observer
}

// Stored is the commit Loop.Append stored: its body, at StreamSeq (0 when
// nothing was stored: the command was refused or replayed).
type Stored struct {
	StreamSeq uint64
	Body      []byte
}

// Append decides c on s, seals and chains the events into a commit and
// appends it expecting the stream's last message to be the one decided on.
// It returns once the log has stored the commit. A command refused on a
// state that may lag the log is decided again once caught up; one that
// loses a race (events.ErrConflict) catches up, looks for its own key (a
// retry whose original won) and is decided again, at most Retries times; a
// key the stream already holds is answered with Replay. sp, when set, is
// added the time spent deciding and appending.
func (lp Loop) Append(ctx context.Context, s Stream, c Command, sp *Split) (Outcome, Stored, error) {
	if sp == nil {
		sp = &Split{}
	}
	if lp.Observer == nil {
		lp.Observer = nopObserver{}
	}
	// caughtUp: the state decided on has caught up with the log since the
	// command arrived.
	for attempt, caughtUp := 0, false; ; {
		if seq, found, err := s.Find(ctx); err != nil {
			return Outcome{}, Stored{}, err
		} else if found {
			o, err := s.Replay(ctx, seq)
			return o, Stored{}, err
		}
		if c.Check != nil {
			if err := c.Check(); err != nil {
				return Outcome{}, Stored{}, err
			}
		}
		t0 := time.Now()
		envs, body, expected, err := lp.decide(s, c)
		sp.Decide += time.Since(t0)
		if err != nil && !caughtUp {
			// Another node sharing the log may have appended what this
			// refusal lacks (the player registered, the round drawn, the
			// seq an If-Match names, this very command): refuse only on a
			// state caught up with the log.
			if cerr := s.CatchUp(ctx); cerr != nil {
				return Outcome{}, Stored{}, cerr
			}
			caughtUp = true
			continue
		}
		if err != nil {
			return Outcome{}, Stored{}, err
		}
		t1 := time.Now()
		ack, err := lp.appendRetrying(ctx, s, expected, body)
		sp.Append += time.Since(t1)
		switch {
		case err == nil && ack.Duplicate:
			// The log's duplicate window knew the key before Find did (a
			// single server checks the expected sequence first, and a
			// conflict leads to Find below; a clustered stream's leader
			// checks the message id first).
			o, err := s.Replay(ctx, ack.StreamSeq)
			return o, Stored{}, err
		case err == nil:
			return Outcome{Seq: envs[len(envs)-1].Seq, Events: envs}, Stored{StreamSeq: ack.StreamSeq, Body: body}, nil
		case !errors.Is(err, events.ErrConflict):
			return Outcome{}, Stored{}, err
		}
		// Someone else appended first. Catch up with the stream's last
		// message, then look for our own key (a retry whose original won)
		// before deciding again.
		if cerr := s.CatchUp(ctx); cerr != nil {
			return Outcome{}, Stored{}, cerr
		}
		caughtUp = true
		if seq, found, ferr := s.Find(ctx); ferr != nil {
			return Outcome{}, Stored{}, ferr
		} else if found {
			o, err := s.Replay(ctx, seq)
			return o, Stored{}, err
		}
		if c.IfMatch != nil {
			return Outcome{}, Stored{}, fmt.Errorf("%w: %s moved on while the command was decided, past If-Match %s", ErrPrecondition, c.Stream, c.IfMatch)
		}
		if attempt >= lp.Retries {
			return Outcome{}, Stored{}, fmt.Errorf("%w: gave up after %d attempts", err, attempt+1)
		}
		attempt++
		lp.Observer.Retried()
	}
}

// decide decides c on s and seals, chains and encodes its events.
func (lp Loop) decide(s Stream, c Command) ([]events.Envelope, []byte, uint64, error) {
	now := lp.Clock().UTC()
	evs, head, expected, err := s.Decide(now)
	if err != nil {
		return nil, nil, 0, err
	}
	envs, body, err := seal(c.Stream, head, now, c.Actor, c.Key, evs)
	return envs, body, expected, err
}

// seal seals evs as the next events of a stream whose log has the given
// head, links them to its last, and encodes them as the commit's body:
// each envelope is encoded once, for its link and its stored line alike.
func seal(stream string, head checkpoint.Head, now time.Time, actor events.Actor, key string, evs []events.Event) ([]events.Envelope, []byte, error) {
	envs, err := events.Seal(stream, head.Size+1, now, actor, key, evs)
	if err != nil {
		return nil, nil, err
	}
	body, err := events.ChainCommit(envs, head.Last)
	return envs, body, err
}

// appendAttempt bounds one append: a reply lost while the NATS connection
// moves to another node must not consume the whole command timeout.
const appendAttempt = 2 * time.Second

// appendRetrying appends, retrying while the log is unavailable (a NATS node
// going away, a leader election) until ctx ends. A retry carries the same
// message id and expectation, so if an earlier attempt was stored the retry
// is deduplicated, or conflicts and Find finds the command.
func (lp Loop) appendRetrying(ctx context.Context, s Stream, expected uint64, body []byte) (events.Appended, error) {
	for attempt := 0; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, appendAttempt)
		start := time.Now()
		ack, err := s.Append(actx, expected, body)
		lp.Observer.Appended(time.Since(start), ack, err)
		cancel()
		if err == nil || !errors.Is(err, events.ErrUnavailable) || ctx.Err() != nil {
			return ack, err
		}
		select {
		case <-ctx.Done():
			return ack, err
		case <-time.After(time.Duration(min(attempt+1, 10)) * 50 * time.Millisecond):
		}
	}
}
