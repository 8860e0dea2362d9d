package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"
	"golang.org/x/mod/sumdb/note"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/jetstream"
	"github.com/referto/referto/projections"
)

// submission is one command on its way into the log.
type submission struct {
	tournament string
	cmd        commands.Command
	actor      events.Actor
	key        string   // idempotency key: the envelopes' command_id
	route      string   // the route it came through (routeCreate, …)
	request    string   // its fingerprint, bound to key (fingerprint)
	ifMatch    *ifMatch // the If-Match condition on the tournament's seq
	seed       string
}

// outcome is what an accepted command produced.
type outcome struct {
	Seq      uint64            `json:"seq"`
	Events   []events.Envelope `json:"events"`
	replayed bool
}

// msgID scopes the idempotency key to its tournament, so that one key used
// for two tournaments can never deduplicate one command against the other.
func msgID(tournament, key string) string { return tournament + "/" + key }

// submit decides and appends, retrying on conflict, and returns once
// JetStream has stored the commit. The tournament stays locked until the
// projections have applied it (the next command decides on a state that
// has it), and reads wait for them (awaitAcked): the answer need not.
func (s *Server) submit(ctx context.Context, sub submission) (outcome, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.CommandTimeout)
	defer cancel()
	rn, st := s.opts.Runner, s.opts.Store
	if !rn.Ready() {
		return outcome{}, fmt.Errorf("%w: projections are catching up with the log (lag %d)", events.ErrUnavailable, rn.Lag())
	}
	unlock, err := s.lock(ctx, sub.tournament)
	if err != nil {
		return outcome{}, err
	}
	held := true
	defer func() {
		if held {
			unlock()
		}
	}()
	// caughtUp: the state decided on has caught up with the log since the
	// command arrived.
	for attempt, caughtUp := 0, false; ; {
		if ref, found, err := st.Command(sub.tournament, sub.key); err != nil {
			return outcome{}, err
		} else if found {
			return s.replayed(ctx, ref.StreamSeq, sub)
		}
		if err := s.checkDisk(); err != nil {
			return outcome{}, err
		}
		envs, expected, err := s.decide(sub)
		if err != nil && !caughtUp {
			// Another node sharing the log may have appended what this
			// refusal lacks (the player registered, the round drawn, the
			// seq an If-Match names, this very command): refuse only on a
			// state caught up with the log.
			if cerr := s.catchUp(ctx, sub.tournament); cerr != nil {
				return outcome{}, cerr
			}
			caughtUp = true
			continue
		}
		if err != nil {
			return outcome{}, err
		}
		body, err := events.EncodeCommit(envs)
		if err != nil {
			return outcome{}, err
		}
		ack, err := s.appendRetrying(ctx, sub.tournament, expected, msgID(sub.tournament, sub.key), sub.request, body)
		switch {
		case err == nil && ack.Duplicate:
			// JetStream's duplicate window knew the key before the command
			// index did (it answers so only while the expected sequence
			// still holds: it checks that first, and a conflict leads to
			// the index below): the same checks as the index's, then wait
			// until the projections hold the commit.
			o, err := s.replayed(ctx, ack.StreamSeq, sub)
			if err != nil {
				return outcome{}, err
			}
			if err := rn.WaitFor(ctx, ack.StreamSeq); err != nil {
				return outcome{}, err
			}
			return o, nil
		case err == nil:
			s.acknowledged(sub.tournament, ack.StreamSeq)
			held = false
			go s.unlockWhenApplied(ack.StreamSeq, unlock)
			return outcome{Seq: envs[len(envs)-1].Seq, Events: envs}, nil
		case !errors.Is(err, events.ErrConflict):
			return outcome{}, err
		}
		// Someone else appended first. Catch up with the tournament's last
		// message, then look for our own key (a retry whose original won)
		// before deciding again.
		if cerr := s.catchUp(ctx, sub.tournament); cerr != nil {
			return outcome{}, cerr
		}
		caughtUp = true
		if ref, found, ferr := st.Command(sub.tournament, sub.key); ferr != nil {
			return outcome{}, ferr
		} else if found {
			return s.replayed(ctx, ref.StreamSeq, sub)
		}
		if sub.ifMatch != nil {
			return outcome{}, fmt.Errorf("%w: tournament %s moved on while the command was decided, past If-Match %s", errPrecondition, sub.tournament, sub.ifMatch)
		}
		if attempt >= s.opts.Retries {
			return outcome{}, fmt.Errorf("%w: gave up after %d attempts", err, attempt+1)
		}
		attempt++
		s.metrics.conflictRetries.Inc()
	}
}

// acknowledged records that a command of tournament t was answered as
// stored at stream sequence seq, for awaitAcked.
func (s *Server) acknowledged(t string, seq uint64) {
	s.ackMu.Lock()
	s.acked[t] = max(s.acked[t], seq)
	s.ackMu.Unlock()
	for {
		cur := s.ackedMax.Load()
		if cur >= seq || s.ackedMax.CompareAndSwap(cur, seq) {
			return
		}
	}
}

// unlockWhenApplied releases a tournament's lock once the projections have
// applied stream sequence seq, or have stopped, or after CommandTimeout:
// the next command of the tournament then decides on (or catches up with)
// a state that holds the last one.
func (s *Server) unlockWhenApplied(seq uint64, unlock func()) {
	defer unlock()
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.CommandTimeout)
	defer cancel()
	_ = s.opts.Runner.WaitFor(ctx, seq)
}

// awaitAcked waits until the projections hold every command of tournament
// t this process has answered (of every tournament when t is ""): DESIGN's
// read-your-writes, a GET sent after a command's 201 reflects it.
func (s *Server) awaitAcked(ctx context.Context, t string) error {
	var seq uint64
	if t == "" {
		seq = s.ackedMax.Load()
	} else {
		s.ackMu.Lock()
		seq = s.acked[t]
		s.ackMu.Unlock()
	}
	if seq == 0 || s.opts.Runner.Applied() >= seq {
		return nil
	}
	if err := s.opts.Runner.WaitFor(ctx, seq); err != nil {
		return fmt.Errorf("%w: %v", events.ErrUnavailable, err)
	}
	return nil
}

// readYourWrites holds every read of the API that comes from the
// projections (the web UI's included, which come through the router) until
// awaitAcked: of the tournament the path names, or of all. Probes, metrics,
// keys, rulesets and the OpenAPI document do not wait.
func (s *Server) readYourWrites(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if (r.Method == http.MethodGet || r.Method == http.MethodHead) &&
			(strings.HasPrefix(p, "/v1/tournaments") || p == "/v1/me" || strings.HasPrefix(p, "/v1/admin/")) {
			if err := s.awaitAcked(r.Context(), mux.Vars(r)["t"]); err != nil {
				s.writeError(w, r, err)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// catchUp waits until the projections hold the tournament's last message
// in the log.
func (s *Server) catchUp(ctx context.Context, tournament string) error {
	last, err := s.opts.Log.LastSubjectSeq(ctx, tournament)
	if err != nil {
		return err
	}
	return s.opts.Runner.WaitFor(ctx, last)
}

// appendAttempt bounds one append: a reply lost while the NATS connection
// moves to another node must not consume the whole command timeout.
const appendAttempt = 2 * time.Second

// appendRetrying appends, retrying while the log is unavailable (a NATS node
// going away, a leader election) until ctx ends. A retry carries the same
// message id and expectation, so if an earlier attempt was stored the retry
// is deduplicated, or conflicts and the caller finds the command in the index.
// request is the fingerprint stored with the commit.
func (s *Server) appendRetrying(ctx context.Context, t string, expected uint64, id, request string, body []byte) (jetstream.Appended, error) {
	for attempt := 0; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, appendAttempt)
		start := time.Now()
		ack, err := s.opts.Log.AppendRequest(actx, t, expected, id, request, body)
		s.metrics.appendSeconds.WithLabelValues(appendResult(ack, err)).Observe(time.Since(start).Seconds())
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

// decide runs the pure decision against the current state and seals the
// events. It returns the stream sequence the append must expect.
func (s *Server) decide(sub submission) ([]events.Envelope, uint64, error) {
	var envs []events.Envelope
	var expected uint64
	var err error
	in := commands.Input{Now: s.opts.Clock().UTC(), Actor: sub.actor, Seed: sub.seed}
	run := func(t *projections.Tournament, head checkpoint.Head) {
		if sub.ifMatch != nil && !sub.ifMatch.matches(t.Seq) {
			err = fmt.Errorf("%w: tournament %s is at seq %d, which If-Match %s does not match", errPrecondition, t.ID, t.Seq, sub.ifMatch)
			return
		}
		expected = t.LastStreamSeq
		envs, err = DecideCommit(t, head, sub.cmd, in, sub.key, s.opts.Keys.Signer)
	}
	if !s.opts.Runner.ReadHead(sub.tournament, run) {
		run(projections.New(sub.tournament), checkpoint.NewTree().Head())
	}
	return envs, expected, err
}

// DecideCommit is the whole command side for one command: it decides cmd
// against t, whose log has the given head, and returns the envelopes of the
// commit to append, sealed under commandID and linked to the head. A
// classification being published gets the signed checkpoint of the log it
// is derived from. Nothing is appended.
func DecideCommit(t *projections.Tournament, head checkpoint.Head, cmd commands.Command, in commands.Input, commandID string, signer note.Signer) ([]events.Envelope, error) {
	if pc, ok := cmd.(*commands.PublishClassification); ok {
		var err error
		if pc.Checkpoint, err = checkpoint.Sign(checkpoint.Checkpoint{Origin: checkpoint.Origin(t.ID), Size: t.Seq, Root: head.Root}, signer); err != nil {
			return nil, err
		}
	}
	evs, err := commands.Decide(t, cmd, in)
	if err != nil {
		return nil, err
	}
	envs, err := events.Seal(t.ID, t.Seq+1, in.Now, in.Actor, commandID, evs)
	if err != nil {
		return nil, err
	}
	return envs, events.Chain(envs, head.Last)
}

// replayed returns the stored outcome of the commit at streamSeq, which
// sub's idempotency key already stands for (found by the command index or
// by JetStream's duplicate window): the outcome of an earlier identical
// request, or a keyReusedError when that request was another.
func (s *Server) replayed(ctx context.Context, streamSeq uint64, sub submission) (outcome, error) {
	m, err := s.opts.Log.Get(ctx, streamSeq)
	if err != nil {
		return outcome{}, err
	}
	c, err := events.DecodeCommit(m.Data)
	if err != nil {
		return outcome{}, err
	}
	if err := sameRequest(m, c, sub); err != nil {
		return outcome{}, err
	}
	return outcome{Seq: c.Envelopes[len(c.Envelopes)-1].Seq, Events: c.Envelopes, replayed: true}, nil
}

// preconditions reads Idempotency-Key and If-Match, and binds the key to
// the request: its route, actor and body.
func (s *Server) preconditions(r *http.Request, sub *submission, body []byte) error {
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		k, err := s.randomHex(16)
		if err != nil {
			return err
		}
		key = k
	} else if len(key) > 200 || strings.IndexFunc(key, func(c rune) bool { return c < 0x21 || c > 0x7e }) >= 0 {
		return &commands.FieldError{Field: "Idempotency-Key", Msg: "must be 1 to 200 visible ASCII characters"}
	}
	sub.key = key
	var err error
	if sub.request, err = fingerprint(sub.route, sub.tournament, sub.actor, body); err != nil {
		return err
	}
	if lines := r.Header.Values("If-Match"); len(lines) > 0 {
		c, err := parseIfMatch(lines)
		if err != nil {
			return err
		}
		sub.ifMatch = c
	}
	return nil
}

// respond writes a command's outcome: 201 with the events, or the stored
// outcome of the original when the idempotency key was seen before.
func respond(w http.ResponseWriter, o outcome) {
	w.Header().Set("ETag", `"`+strconv.FormatUint(o.Seq, 10)+`"`)
	if o.replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	writeJSON(w, http.StatusCreated, o)
}
