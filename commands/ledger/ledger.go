package ledger

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/fault"
	"github.com/referto/referto/projections"
)

// Log is the log commands are appended to, as the ledger uses it
// (*eventlog.Log in a node).
type Log interface {
	// AppendRequest appends the commit body of tournament t, expecting
	// t's last stream sequence to be expected, under message id id, with
	// the fingerprint of the request it came from.
	AppendRequest(ctx context.Context, t string, expected uint64, id, request string, body []byte) (events.Appended, error)
	// Get reads the message at stream sequence seq.
	Get(ctx context.Context, seq uint64) (events.StoredCommit, error)
	// LastSubjectSeq is the stream sequence of t's last message (0: none).
	LastSubjectSeq(ctx context.Context, t string) (uint64, error)
}

// States is the state commands are decided on: every tournament's fold,
// kept current from the log (*store.Runner in a node).
type States interface {
	// Ready reports whether the state has caught up with the log as it
	// was at start; Lag is how far behind it is.
	Ready() bool
	Lag() uint64
	// Applied is the last stream sequence the state holds.
	Applied() uint64
	// ReadHead calls fn with tournament t's state and its log's Merkle
	// head, and reports whether t exists.
	ReadHead(t string, fn func(*projections.Tournament, checkpoint.Head)) bool
	// WaitFor waits until the state holds stream sequence seq; it
	// returns projections.ErrNotReady once the state has stopped.
	WaitFor(ctx context.Context, seq uint64) error
}

// Index finds a command's commit by its idempotency key (*store.Store in
// a node). It is current up to State.Applied.
type Index interface {
	// Command finds the commit of tournament t made under key.
	Command(t, key string) (projections.CommitRef, bool, error)
	// Creation finds the commit that created a tournament under key,
	// whichever tournament: a creation's key is not scoped by the id in
	// its body.
	Creation(key string) (projections.CommitRef, bool, error)
}

// HeadRecord keeps what the ledger answered as stored, independently of
// the log (*Heads in a node): a command is answered once its tournament's
// head is recorded there.
type HeadRecord interface {
	// Record puts the head on disk, fsynced, unless one of its tournament
	// at least as long is there.
	Record(AckedHead) error
	// Get returns the longest head of tournament t on disk.
	Get(t string) (AckedHead, bool)
}

// Observer is told what a node does, for its metrics. Its methods must be
// quick and safe for concurrent use.
type Observer interface {
	// Appended: one append to the log took d and came out as ack, err.
	Appended(d time.Duration, ack events.Appended, err error)
	// Retried: a command lost a race for its tournament and is decided again.
	Retried()
	// Applied: the projections applied a commit of n events, whose Merkle
	// tree append took merkle (the node's runner tells it).
	Applied(n int, merkle time.Duration)
	// Split: where the time of an accepted command went, told once the
	// tournament is unlocked (possibly after the command was answered).
	Split(Split)
}

// Options configures a Ledger.
type Options struct {
	// Log is where commands are appended. Required.
	Log Log
	// State is what commands are decided on. Required.
	State States
	// Index finds retried commands by their idempotency key. Required.
	Index Index
	// Signer signs the checkpoint a published classification carries.
	// Required.
	Signer note.Signer
	// Clock is the time stamped on events; the default is time.Now.
	Clock func() time.Time
	// Retries is how many times a command is decided again after losing a
	// race for its tournament; the default is 8.
	Retries int
	// CommandTimeout bounds one command from decision to acknowledgement;
	// the default is 10 seconds. Without a quorum a command is refused with
	// ErrUnavailable when it runs out.
	CommandTimeout time.Duration
	// Disk measures the data directory's filesystem; nil (the default)
	// turns the disk guard off. DiskReserve is the free space below which
	// commands are refused; it is required with Disk (a node's is the
	// worst case of its log and projection store).
	Disk        func() (DiskState, error)
	DiskReserve uint64
	// Logger receives the disk guard's warnings; nil discards.
	Logger *slog.Logger
	// Observer, when set, is told of every append and retry.
	Observer Observer
	// Heads, when set, records every tournament's acknowledged head before
	// a command of it is answered (accepted or replayed). The default is
	// none.
	Heads HeadRecord
	// Damages, when set, are the tournaments whose logs are damaged:
	// their commands are refused with a *DamageError. The default is none.
	Damages *Damages
}

// EnsureDefaults fills unset fields with their documented defaults.
func (o *Options) EnsureDefaults() {
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.Retries == 0 {
		o.Retries = 8
	}
	if o.CommandTimeout == 0 {
		o.CommandTimeout = 10 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Observer == nil {
		o.Observer = nopObserver{}
	}
}

// Validate reports every problem at once.
func (o *Options) Validate() error {
	var errs []error
	if o.Log == nil {
		errs = append(errs, errors.New("ledger: Log is required"))
	}
	if o.State == nil {
		errs = append(errs, errors.New("ledger: State is required"))
	}
	if o.Index == nil {
		errs = append(errs, errors.New("ledger: Index is required"))
	}
	if o.Signer == nil {
		errs = append(errs, errors.New("ledger: Signer is required"))
	}
	if o.Disk != nil && o.DiskReserve == 0 {
		errs = append(errs, errors.New("ledger: DiskReserve is required with Disk"))
	}
	if o.Retries < 0 || o.CommandTimeout < 0 {
		errs = append(errs, errors.New("ledger: Retries and CommandTimeout must not be negative"))
	}
	return errors.Join(errs...)
}

// Split is where one accepted command's time went, for the Observer.
type Split struct {
	// LockWait is the wait for the tournament's lock.
	LockWait time.Duration
	// Decide is deciding (every attempt), sealing and chaining included.
	Decide time.Duration
	// Append is appending until JetStream's acknowledgement (every attempt).
	Append time.Duration
	// AckToUnlock is from the acknowledgement until the tournament is
	// unlocked: the projections applying the commit.
	AckToUnlock time.Duration
	// Record is from the acknowledgement until the tournament's
	// acknowledged head is recorded (its fsync, shared with the heads of
	// commands answered together), the wait for the projections included;
	// a command whose wait is cut short counts it until then, one with nothing
	// to record counts nothing.
	Record time.Duration
}

type nopObserver struct{}

func (nopObserver) Appended(time.Duration, events.Appended, error) {}
func (nopObserver) Retried()                                       {}
func (nopObserver) Applied(int, time.Duration)                     {}
func (nopObserver) Split(Split)                                    {}

// ErrPrecondition refuses a command whose If-Match condition the
// tournament does not meet.
var ErrPrecondition = fault.New(fault.PreconditionFailed, "ledger: precondition failed")

// Submission is one command on its way into the log.
type Submission struct {
	Tournament string
	Command    commands.Command
	Actor      events.Actor
	// Key is the idempotency key: the envelopes' command_id. A retry of a
	// command under its key gets the original outcome.
	Key string
	// Route is the route the command came through (RouteCreate, …) and
	// Request the fingerprint of the request (Fingerprint), bound to Key:
	// another request under the key is refused with ErrKeyReused.
	Route   string
	Request string
	// IfMatch, when set, is the condition on the tournament's seq.
	IfMatch *IfMatch
	// Seed is the randomness a draw records.
	Seed string
}

// Outcome is what an accepted command produced.
type Outcome struct {
	// Seq is the tournament's seq after the command: its last event's.
	Seq uint64
	// Events are the envelopes of the command's commit.
	Events []events.Envelope
	// Replayed is true when the key already stood for this request, whose
	// stored outcome this is: nothing was appended.
	Replayed bool
}

// Ledger is the application service: every command goes through Submit.
// It is safe for concurrent use.
type Ledger struct {
	opts Options

	mu    sync.Mutex
	locks map[string]chan struct{} // per tournament, a slot of one: one decision in flight per process (lock)

	// What this process answered as stored, per tournament and overall:
	// reads wait until the state holds it (AwaitAcked).
	ackMu    sync.Mutex
	acked    map[string]uint64
	ackedMax atomic.Uint64

	diskRefusing atomic.Bool // the disk guard refuses commands (disk.go)
}

// New returns a Ledger.
func New(opts Options) (*Ledger, error) {
	opts.EnsureDefaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	return &Ledger{opts: opts, locks: map[string]chan struct{}{}, acked: map[string]uint64{}}, nil
}

// Submit decides and appends sub's command through the append loop
// (Loop.Append), and returns once the log has stored the commit. The
// tournament stays locked until the projections have applied the commit:
// the next command decides on a state that holds it, and finds its key in
// the index.
//
// A key that already stands for this request is answered with the stored
// outcome (Replayed); one that stands for another request is refused with
// a *KeyReusedError. A condition the tournament does not meet is refused
// with ErrPrecondition; a refusal of the command itself comes from
// commands.Decide. While the state is catching up, the disk is below its
// reserve or the log is unreachable for CommandTimeout, the error is
// events.ErrUnavailable. A command on a tournament whose log is damaged is
// refused with a *DamageError (ErrDamaged).
//
// With a HeadRecord, a command is answered (accepted or replayed) only once
// the head of its tournament's log that holds it is recorded there.
func (l *Ledger) Submit(ctx context.Context, sub Submission) (Outcome, error) {
	ctx, cancel := context.WithTimeout(ctx, l.opts.CommandTimeout)
	defer cancel()
	if d, ok := l.opts.Damages.Of(sub.Tournament); ok {
		return Outcome{}, &DamageError{Damage: d}
	}
	if why, ok := l.opts.Damages.Halted(); ok {
		return Outcome{}, fmt.Errorf("%w: %s: every command is refused until the log is repaired: stop the server and run `%s` (or with --backup FILE)", ErrDamaged, why, l.opts.Damages.RepairCommand())
	}
	if st := l.opts.State; !st.Ready() {
		return Outcome{}, fmt.Errorf("%w: projections are catching up with the log (lag %d)", events.ErrUnavailable, st.Lag())
	}
	start := time.Now()
	unlock, err := l.lock(ctx, sub.Tournament)
	if err != nil {
		return Outcome{}, err
	}
	sp := Split{LockWait: time.Since(start)}
	loop := Loop{Clock: l.opts.Clock, Retries: l.opts.Retries, Observer: l.opts.Observer}
	o, stored, err := loop.Append(ctx, tournamentStream{l: l, sub: sub}, Command{
		Stream: sub.Tournament, Actor: sub.Actor, Key: sub.Key, IfMatch: sub.IfMatch, Check: l.checkDisk,
	}, &sp)
	if stored.StreamSeq == 0 {
		unlock()
		return o, err
	}
	acked := time.Now()
	if l.opts.Heads == nil || l.recorded(sub.Tournament, o.Seq) {
		// Nothing to record: answered now, unlocked once applied.
		go l.unlockWhenApplied(stored.StreamSeq, unlock, acked, sp)
		return o, nil
	}
	// The head is recorded from the state that holds the commit: the
	// command waits for it, and unlocks its tournament on the way.
	if werr := l.waitStored(ctx, sub.Tournament, o.Seq, stored.StreamSeq); werr != nil {
		sp.Record = time.Since(acked)
		go l.unlockWhenApplied(stored.StreamSeq, unlock, acked, sp)
		return o, werr
	}
	unlock()
	sp.AckToUnlock = time.Since(acked)
	err = l.recordHead(sub.Tournament, o.Seq, stored.StreamSeq)
	sp.Record = time.Since(acked)
	l.opts.Observer.Split(sp)
	return o, err
}

// record puts head on the HeadRecord; seq is the seq the command is answered
// with, which it holds. Until it is recorded the command is not answered:
// it is stored, and the same command sent again with its key is answered
// then (replayed), once its head is recorded.
func (l *Ledger) record(head AckedHead, seq uint64) error {
	if l.opts.Heads == nil {
		return nil
	}
	if err := l.opts.Heads.Record(head); err != nil {
		l.opts.Logger.Error("cannot record an acknowledged head", "tournament", head.Tournament, "seq", seq, "err", err)
		return fmt.Errorf("%w: the command is stored at seq %d of %s but its head could not be recorded (%v): send it again with the same Idempotency-Key",
			events.ErrUnavailable, seq, head.Tournament, err)
	}
	return nil
}

// recorded reports whether the record holds a head of tournament t at
// least seq long.
func (l *Ledger) recorded(t string, seq uint64) bool {
	h, ok := l.opts.Heads.Get(t)
	return ok && h.Size >= seq
}

// recordApplied records the head of tournament t as the state holds it
// once it has applied stream sequence streamSeq, a commit of t ending at
// seq: a head at least that long. Nothing is waited for when the record
// has one.
func (l *Ledger) recordApplied(ctx context.Context, t string, seq, streamSeq uint64) error {
	if l.opts.Heads == nil || l.recorded(t, seq) {
		return nil
	}
	if err := l.waitStored(ctx, t, seq, streamSeq); err != nil {
		return err
	}
	return l.recordHead(t, seq, streamSeq)
}

// waitStored waits until the state holds stream sequence streamSeq, a
// stored commit of tournament t ending at seq; one that cannot get there
// before ctx ends is events.ErrUnavailable, telling the client to send the
// command again under its key.
func (l *Ledger) waitStored(ctx context.Context, t string, seq, streamSeq uint64) error {
	if err := l.waitFor(ctx, t, streamSeq); err != nil {
		return fmt.Errorf("%w (the command is stored at seq %d: send it again with the same Idempotency-Key)", err, seq)
	}
	return nil
}

// recordHead records the head of tournament t as the state holds it, which
// has applied stream sequence streamSeq, a commit of t ending at seq.
func (l *Ledger) recordHead(t string, seq, streamSeq uint64) error {
	var head AckedHead
	l.opts.State.ReadHead(t, func(st *projections.Tournament, h checkpoint.Head) {
		head = AckedHead{Tournament: t, Size: h.Size, StreamSeq: st.LastStreamSeq, Root: h.Root, Last: h.Last}
	})
	if head.Size < seq {
		if d, ok := l.opts.Damages.Of(t); ok {
			return &DamageError{Damage: d}
		}
		return fmt.Errorf("%w: the state of %s holds %d events, not the %d of the command at stream sequence %d", events.ErrUnavailable, t, head.Size, seq, streamSeq)
	}
	return l.record(head, seq)
}

// Damaged returns the damage of tournament t's log, if any is known.
func (l *Ledger) Damaged(t string) (Damage, bool) { return l.opts.Damages.Of(t) }

// Damages returns every damaged log known, by tournament.
func (l *Ledger) Damages() []Damage { return l.opts.Damages.All() }

// Halted says why every command is refused, when the stream lost
// acknowledged messages at its end (Damages.Halt).
func (l *Ledger) Halted() (string, bool) { return l.opts.Damages.Halted() }

// RepairCommand is the command that repairs this node's log.
func (l *Ledger) RepairCommand() string { return l.opts.Damages.RepairCommand() }

// lock serializes decide-and-append for one tournament within this process,
// and returns the function that releases it. Without it, concurrent
// commands would race each other through the log's expected-sequence check
// and waste appends; with it, only other processes sharing the log can
// conflict, and the retry loop handles those. The lock is held until the
// projections have applied the last command (unlockWhenApplied): a command
// that cannot have it before ctx is done is refused as unavailable.
func (l *Ledger) lock(ctx context.Context, tournament string) (unlock func(), err error) {
	l.mu.Lock()
	ch := l.locks[tournament]
	if ch == nil {
		ch = make(chan struct{}, 1)
		l.locks[tournament] = ch
	}
	l.mu.Unlock()
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: tournament %s is still applying its previous command: %v", events.ErrUnavailable, tournament, ctx.Err())
	}
}

// acknowledged records that a command of tournament t was answered as
// stored at stream sequence seq, for AwaitAcked.
func (l *Ledger) acknowledged(t string, seq uint64) {
	l.ackMu.Lock()
	l.acked[t] = max(l.acked[t], seq)
	l.ackMu.Unlock()
	for {
		cur := l.ackedMax.Load()
		if cur >= seq || l.ackedMax.CompareAndSwap(cur, seq) {
			return
		}
	}
}

// unlockWhenApplied releases a tournament's lock once the state has
// applied stream sequence seq, or has stopped, or after CommandTimeout:
// the next command of the tournament then decides on (or catches up with)
// a state that holds the last one. It then reports the command's split,
// acknowledged at acked.
func (l *Ledger) unlockWhenApplied(seq uint64, unlock func(), acked time.Time, sp Split) {
	ctx, cancel := context.WithTimeout(context.Background(), l.opts.CommandTimeout)
	_ = l.opts.State.WaitFor(ctx, seq)
	cancel()
	unlock()
	sp.AckToUnlock = time.Since(acked)
	l.opts.Observer.Split(sp)
}

// AwaitAcked waits until the state holds every command of tournament t
// this process has answered as stored (of every tournament when t is ""):
// read-your-writes, a read that follows an accepted command reflects it.
// A state that cannot get there before ctx ends is events.ErrUnavailable.
func (l *Ledger) AwaitAcked(ctx context.Context, t string) error {
	var seq uint64
	if t == "" {
		seq = l.ackedMax.Load()
	} else {
		l.ackMu.Lock()
		seq = l.acked[t]
		l.ackMu.Unlock()
	}
	if seq == 0 || l.opts.State.Applied() >= seq {
		return nil
	}
	if err := l.opts.State.WaitFor(ctx, seq); err != nil {
		return fmt.Errorf("%w: %v", events.ErrUnavailable, err)
	}
	return nil
}

// catchUp waits until the state holds the tournament's last message in the
// log.
func (l *Ledger) catchUp(ctx context.Context, tournament string) error {
	last, err := l.opts.Log.LastSubjectSeq(ctx, tournament)
	if err != nil {
		return err
	}
	return l.waitFor(ctx, tournament, last)
}

// waitFor waits until the state holds stream sequence seq, a commit of
// tournament t; one that cannot get there before ctx ends is
// events.ErrUnavailable, saying how far it got.
func (l *Ledger) waitFor(ctx context.Context, t string, seq uint64) error {
	if err := l.opts.State.WaitFor(ctx, seq); err != nil {
		return fmt.Errorf("%w: waiting for the projections to apply tournament %s's commit at stream sequence %d (they hold %d): %v",
			events.ErrUnavailable, t, seq, l.opts.State.Applied(), err)
	}
	return nil
}

// DecideCommit is the whole command side for one command: it decides cmd
// against t, whose log has the given head, and returns the envelopes of the
// commit to append, sealed under commandID and linked to the head, and the
// commit's body, as the append loop seals and encodes them. A
// classification being published gets the signed checkpoint of the log it
// is derived from. Nothing is appended.
func DecideCommit(t *projections.Tournament, head checkpoint.Head, cmd commands.Command, in commands.Input, commandID string, signer note.Signer) ([]events.Envelope, []byte, error) {
	evs, err := decideEvents(t, head, cmd, in, signer)
	if err != nil {
		return nil, nil, err
	}
	return seal(t.ID, head, in.Now, in.Actor, commandID, evs)
}

// decideEvents decides cmd against t, whose log has the given head; a
// classification being published gets the signed checkpoint of that log.
func decideEvents(t *projections.Tournament, head checkpoint.Head, cmd commands.Command, in commands.Input, signer note.Signer) ([]events.Event, error) {
	if pc, ok := cmd.(*commands.PublishClassification); ok {
		var err error
		if pc.Checkpoint, err = checkpoint.Sign(checkpoint.Checkpoint{Origin: checkpoint.Origin(t.ID), Size: t.Seq, Root: head.Root}, signer); err != nil {
			return nil, err
		}
	}
	return commands.Decide(t, cmd, in)
}

// replayed returns the stored outcome of the commit at streamSeq, which
// sub's idempotency key already stands for (found by the command index or
// by the log's duplicate window): the outcome of an earlier identical
// request, or a *KeyReusedError when that request was another.
func (l *Ledger) replayed(ctx context.Context, streamSeq uint64, sub Submission) (Outcome, error) {
	m, err := l.opts.Log.Get(ctx, streamSeq)
	if err != nil {
		return Outcome{}, err
	}
	c, err := events.DecodeCommit(m.Data)
	if err != nil {
		return Outcome{}, err
	}
	if err := sameRequest(m, c, sub); err != nil {
		return Outcome{}, err
	}
	seq := c.Envelopes[len(c.Envelopes)-1].Seq
	if err := l.recordApplied(ctx, c.Envelopes[0].Tournament, seq, streamSeq); err != nil {
		return Outcome{}, err
	}
	return Outcome{Seq: seq, Events: c.Envelopes, Replayed: true}, nil
}
