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
	// LastStreamSeq is the stream sequence of tournament t's last commit
	// in the state (0: none), read without waiting for t's lock.
	LastStreamSeq(t string) uint64
	// Copy returns a deep copy of tournament t's state and Merkle tree,
	// which the caller owns, and whether t exists.
	Copy(t string) (*projections.Tournament, *checkpoint.Tree, bool, error)
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
	locks map[string]*tournamentLock // per tournament: one decision in flight per process (lock)

	// What this process answered as stored, per tournament and overall:
	// reads wait until the state holds it (AwaitAcked).
	ackMu    sync.Mutex
	acked    map[string]uint64
	ackedMax atomic.Uint64

	diskRefusing atomic.Bool // the disk guard refuses commands (disk.go)

	// creating holds the creations this process appended that the index
	// may not hold yet, by key (see tournamentLock.pending), under mu.
	creating map[string]uint64
}

// New returns a Ledger.
func New(opts Options) (*Ledger, error) {
	opts.EnsureDefaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	return &Ledger{opts: opts, locks: map[string]*tournamentLock{}, acked: map[string]uint64{}, creating: map[string]uint64{}}, nil
}

// Submit decides and appends sub's command, retrying on conflict, and
// returns once the log has stored the commit. The commit is folded at once
// into the tournament's write-through state (writethrough.go) and the
// tournament unlocked: the next command decides on a state that has it,
// while the projections apply it behind. Reads wait for it (AwaitAcked):
// the answer need not.
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
	lk, err := l.lock(ctx, sub.Tournament)
	if err != nil {
		return Outcome{}, err
	}
	sp := Split{LockWait: time.Since(start)}
	o, d, err := l.submit(ctx, lk, sub, &sp)
	if d.appended == 0 {
		lk.unlock()
		return o, err
	}
	acked := time.Now()
	l.acknowledged(sub.Tournament, d.appended)
	l.remember(lk, sub, d.appended)
	if l.writeThrough(lk, sub.Tournament, d) {
		head := lk.wt.head()
		lk.unlock()
		sp.AckToUnlock = time.Since(acked)
		unlocked := time.Now()
		err := l.record(head, o.Seq)
		sp.Record = time.Since(unlocked)
		l.opts.Observer.Split(sp)
		return o, err
	}
	unlocked := make(chan struct{})
	go func() {
		l.unlockWhenApplied(d.appended, lk.unlock)
		sp.AckToUnlock = time.Since(acked)
		close(unlocked)
	}()
	err = l.recordApplied(ctx, sub.Tournament, o.Seq, d.appended)
	record := time.Since(acked)
	go func() {
		<-unlocked
		sp.Record = record
		l.opts.Observer.Split(sp)
	}()
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

// recordApplied records the head of tournament t as the state holds it once
// it has applied stream sequence streamSeq, a commit of t ending at seq: a
// head at least that long. Nothing is waited for when the record has one.
func (l *Ledger) recordApplied(ctx context.Context, t string, seq, streamSeq uint64) error {
	if l.opts.Heads == nil {
		return nil
	}
	if h, ok := l.opts.Heads.Get(t); ok && h.Size >= seq {
		return nil
	}
	if err := l.waitFor(ctx, t, streamSeq); err != nil {
		return fmt.Errorf("%w (the command is stored at seq %d: send it again with the same Idempotency-Key)", err, seq)
	}
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

// decision is what submit stored: the commit's body at stream sequence
// appended (0 when it stored none), decided on a state at stream sequence
// expected.
type decision struct {
	appended, expected uint64
	body               []byte
}

// submit is Submit's loop, under the tournament's lock lk. It adds the
// time spent deciding and appending to sp.
func (l *Ledger) submit(ctx context.Context, lk *tournamentLock, sub Submission, sp *Split) (o Outcome, d decision, err error) {
	// caughtUp: the state decided on has caught up with the log since the
	// command arrived.
	for attempt, caughtUp := 0, false; ; {
		if seq, found, err := l.find(lk, sub); err != nil {
			return Outcome{}, decision{}, err
		} else if found {
			o, err := l.replayed(ctx, seq, sub)
			return o, decision{}, err
		}
		if err := l.checkDisk(); err != nil {
			return Outcome{}, decision{}, err
		}
		t0 := time.Now()
		envs, expected, err := l.decide(lk, sub)
		sp.Decide += time.Since(t0)
		sp.WriteThrough = lk.wt != nil // decide decided on it, if it was still there
		if err != nil && !caughtUp {
			// Another node sharing the log may have appended what this
			// refusal lacks (the player registered, the round drawn, the
			// seq an If-Match names, this very command): refuse only on a
			// state caught up with the log.
			if cerr := l.catchUp(ctx, sub.Tournament); cerr != nil {
				return Outcome{}, decision{}, cerr
			}
			caughtUp = true
			continue
		}
		if err != nil {
			return Outcome{}, decision{}, err
		}
		body, err := events.EncodeCommit(envs)
		if err != nil {
			return Outcome{}, decision{}, err
		}
		t1 := time.Now()
		ack, err := l.appendRetrying(ctx, sub.Tournament, expected, sub.msgID(), sub.Request, body)
		sp.Append += time.Since(t1)
		if err != nil || ack.Duplicate {
			// The log is not where the write-through state expected it
			// (another process appended first, or this command already
			// was), or may hold a commit it was not told of: the next
			// decision refreshes the state from the log.
			lk.drop()
		}
		switch {
		case err == nil && ack.Duplicate:
			// The log's duplicate window knew the key before the command
			// index did (a single server checks the expected sequence
			// first, and a conflict leads to the index below; a clustered
			// stream's leader checks the message id first): the same
			// checks as the index's, then wait until the state holds the
			// commit.
			o, err := l.replayed(ctx, ack.StreamSeq, sub)
			if err == nil {
				err = l.waitFor(ctx, sub.Tournament, ack.StreamSeq)
			}
			if err != nil {
				return Outcome{}, decision{}, err
			}
			return o, decision{}, nil
		case err == nil:
			return Outcome{Seq: envs[len(envs)-1].Seq, Events: envs}, decision{appended: ack.StreamSeq, expected: expected, body: body}, nil
		case !errors.Is(err, events.ErrConflict):
			return Outcome{}, decision{}, err
		}
		// Someone else appended first. Catch up with the tournament's last
		// message, then look for our own key (a retry whose original won)
		// before deciding again.
		if cerr := l.catchUp(ctx, sub.Tournament); cerr != nil {
			return Outcome{}, decision{}, cerr
		}
		caughtUp = true
		if seq, found, ferr := l.find(lk, sub); ferr != nil {
			return Outcome{}, decision{}, ferr
		} else if found {
			o, err := l.replayed(ctx, seq, sub)
			return o, decision{}, err
		}
		if sub.IfMatch != nil {
			return Outcome{}, decision{}, fmt.Errorf("%w: tournament %s moved on while the command was decided, past If-Match %s", ErrPrecondition, sub.Tournament, sub.IfMatch)
		}
		if attempt >= l.opts.Retries {
			return Outcome{}, decision{}, fmt.Errorf("%w: gave up after %d attempts", err, attempt+1)
		}
		attempt++
		l.opts.Observer.Retried()
	}
}

// lock serializes decide-and-append for one tournament within this process.
// Without it, concurrent commands would race each other through the log's
// expected-sequence check and waste appends; with it, only other processes
// sharing the log can conflict, and the retry loop handles those. The lock
// is held until the last command is folded into the write-through state at
// its acknowledgement, or, without one, until the projections have applied
// it (unlockWhenApplied): a command that cannot have it before ctx is done
// is refused as unavailable.
func (l *Ledger) lock(ctx context.Context, tournament string) (*tournamentLock, error) {
	l.mu.Lock()
	lk := l.locks[tournament]
	if lk == nil {
		lk = &tournamentLock{ch: make(chan struct{}, 1), without: copyAfter} // the first commit copies
		l.locks[tournament] = lk
	}
	l.mu.Unlock()
	select {
	case lk.ch <- struct{}{}:
		return lk, nil
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
// a state that holds the last one.
func (l *Ledger) unlockWhenApplied(seq uint64, unlock func()) {
	defer unlock()
	ctx, cancel := context.WithTimeout(context.Background(), l.opts.CommandTimeout)
	defer cancel()
	_ = l.opts.State.WaitFor(ctx, seq)
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

// appendAttempt bounds one append: a reply lost while the NATS connection
// moves to another node must not consume the whole command timeout.
const appendAttempt = 2 * time.Second

// appendRetrying appends, retrying while the log is unavailable (a NATS node
// going away, a leader election) until ctx ends. A retry carries the same
// message id and expectation, so if an earlier attempt was stored the retry
// is deduplicated, or conflicts and the caller finds the command in the index.
// request is the fingerprint stored with the commit.
func (l *Ledger) appendRetrying(ctx context.Context, t string, expected uint64, id, request string, body []byte) (events.Appended, error) {
	for attempt := 0; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, appendAttempt)
		start := time.Now()
		ack, err := l.opts.Log.AppendRequest(actx, t, expected, id, request, body)
		l.opts.Observer.Appended(time.Since(start), ack, err)
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
// The state is the tournament's write-through state when it is current
// (holds every commit the log has of the tournament as far as this process
// can tell), the state folded from the log otherwise.
func (l *Ledger) decide(lk *tournamentLock, sub Submission) ([]events.Envelope, uint64, error) {
	var envs []events.Envelope
	var expected uint64
	var err error
	in := commands.Input{Now: l.opts.Clock().UTC(), Actor: sub.Actor, Seed: sub.Seed}
	run := func(t *projections.Tournament, head checkpoint.Head) {
		if sub.IfMatch != nil && !sub.IfMatch.Matches(t.Seq) {
			err = fmt.Errorf("%w: tournament %s is at seq %d, which If-Match %s does not match", ErrPrecondition, t.ID, t.Seq, sub.IfMatch)
			return
		}
		expected = t.LastStreamSeq
		envs, err = DecideCommit(t, head, sub.Command, in, sub.Key, l.opts.Signer)
	}
	if wt := l.current(lk, sub.Tournament); wt != nil {
		run(wt.t, wt.tree.Head())
	} else if !l.opts.State.ReadHead(sub.Tournament, run) {
		run(projections.New(sub.Tournament), checkpoint.NewTree().Head())
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
