package ledger

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/fault"
)

// The codes of the vocabulary (events/fault) that the ledger refines for
// its clients: two refusals an HTTP client must tell from the others.
const (
	// KeyReused refines fault.RuleViolation: an Idempotency-Key sent
	// again with another request.
	KeyReused fault.Code = "idempotency_key_reused"
	// LogDamaged refines fault.Unavailable: no retry helps until the log
	// is repaired.
	LogDamaged fault.Code = "log_damaged"
)

// ErrDamaged refuses a command on a tournament whose log does not hold
// what the ledger acknowledged (a *DamageError says where and what to do).
var ErrDamaged = fault.Mark(errors.New("ledger: log damaged"), LogDamaged)

// Damage is a tournament's log found not to hold what was acknowledged of
// it, or not to hold together: events missing, or stored bytes changed.
type Damage struct {
	Tournament string `json:"tournament"`
	// Seq is the first damaged event: missing, or its stored line not the
	// one written. Every event before it is intact (Verified is Seq-1).
	Seq uint64 `json:"seq"`
	// StreamSeq is the stream sequence of the message holding it; 0 when
	// the event is missing from the log.
	StreamSeq uint64 `json:"stream_seq,omitempty"`
	// Acknowledged is how many of the tournament's events the ledger
	// answered as stored (its record of acknowledged heads); 0 when it has
	// no record of the tournament.
	Acknowledged uint64 `json:"acknowledged,omitempty"`
	// What says what is wrong with event Seq.
	What string `json:"what"`

	// after is the stream sequence of the tournament's last intact
	// commit: whatever is wrong is past it.
	after uint64
	// dir is the data directory, for the remedy.
	dir string
}

// From is the first stream sequence the damage may concern: a store of
// projections that applied it may hold what the log lost.
func (d Damage) From() uint64 {
	if d.StreamSeq > 0 {
		return d.StreamSeq
	}
	return d.after + 1
}

// Verified is how many events of the tournament are intact: the prefix
// reads are served from.
func (d Damage) Verified() uint64 { return d.Seq - 1 }

// Remedy is what the operator does about it.
func (d Damage) Remedy() string {
	return "commands on it are refused until it is repaired: stop the server and run `" + d.RepairCommand() +
		"` (from the national hub's copy) or with --backup FILE (from a backup, with --hub for what came after it)"
}

// RepairCommand is the command that repairs it from the hub's copy.
func (d Damage) RepairCommand() string {
	return "referto repair --data " + cmp.Or(d.dir, "DIR") + " --hub URL"
}

func (d Damage) String() string {
	s := fmt.Sprintf("the log of tournament %s is damaged at event %d", d.Tournament, d.Seq)
	if d.StreamSeq > 0 {
		s += fmt.Sprintf(" (stream sequence %d)", d.StreamSeq)
	}
	s += ": " + d.What
	if d.Acknowledged > 0 {
		s += fmt.Sprintf("; %d events were acknowledged, the first %d are intact", d.Acknowledged, d.Verified())
	}
	return s
}

// DamageError is ErrDamaged for one tournament.
type DamageError struct{ Damage Damage }

func (e *DamageError) Error() string { return e.Damage.String() + ": " + e.Damage.Remedy() }

// Code is LogDamaged.
func (e *DamageError) Code() fault.Code { return LogDamaged }

// Is makes a *DamageError ErrDamaged.
func (e *DamageError) Is(target error) bool { return target == ErrDamaged }

// Damages are the tournaments whose logs are damaged, as found at start
// (CheckLog) or since, by whoever read the log, and whether the stream
// itself lost its tail (Halt). Safe for concurrent use.
type Damages struct {
	// Dir is the data directory, which the remedies name.
	Dir string

	mu     sync.Mutex
	m      map[string]Damage
	halted string
}

// RepairCommand is the command that repairs the log from the hub's copy.
func (ds *Damages) RepairCommand() string {
	if ds == nil {
		return Damage{}.RepairCommand()
	}
	return Damage{dir: ds.Dir}.RepairCommand()
}

// Halt records that the stream lost messages at its end that were
// acknowledged: any new command, of whatever tournament, would be stored
// at a stream sequence a lost message held, and the repair could no
// longer put it back there. Every command is refused until the repair.
func (ds *Damages) Halt(why string) {
	if ds == nil {
		return
	}
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if ds.halted == "" {
		ds.halted = why
	}
}

// Halted says why every command is refused, if it is.
func (ds *Damages) Halted() (string, bool) {
	if ds == nil {
		return "", false
	}
	ds.mu.Lock()
	defer ds.mu.Unlock()
	return ds.halted, ds.halted != ""
}

// Mark records d, unless its tournament is already marked: the first
// damage found stays.
func (ds *Damages) Mark(d Damage) (added bool) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if ds.m == nil {
		ds.m = map[string]Damage{}
	}
	if _, ok := ds.m[d.Tournament]; ok {
		return false
	}
	d.dir = cmp.Or(d.dir, ds.Dir)
	ds.m[d.Tournament] = d
	return true
}

// Of returns the damage of tournament t's log, if any.
func (ds *Damages) Of(t string) (Damage, bool) {
	if ds == nil {
		return Damage{}, false
	}
	ds.mu.Lock()
	defer ds.mu.Unlock()
	d, ok := ds.m[t]
	return d, ok
}

// All returns every damage, by tournament.
func (ds *Damages) All() []Damage {
	if ds == nil {
		return nil
	}
	ds.mu.Lock()
	defer ds.mu.Unlock()
	out := make([]Damage, 0, len(ds.m))
	for _, t := range slices.Sorted(maps.Keys(ds.m)) {
		out = append(out, ds.m[t])
	}
	return out
}

// ScanLog is the log as the integrity check reads it (*eventlog.Log).
type ScanLog interface {
	LastSeq(ctx context.Context) (uint64, error)
	LastSubjectSeq(ctx context.Context, t string) (uint64, error)
	Scan(ctx context.Context, from, until uint64, tournament string, fn func(events.StoredCommit) error) error
}

// CheckOptions configures CheckLog.
type CheckOptions struct {
	// Leaves, when set, gives the leaf hashes a tournament's events had
	// when the projections applied them (store.Store.NodeGetter): a
	// changed line is then named exactly, not by its broken link alone.
	Leaves func(t string) checkpoint.NodeGetter
	// Adopt makes CheckLog return the head of every tournament whose log
	// holds together (its events' seqs and links), for a record of
	// acknowledged heads that has none yet.
	Adopt bool
}

// CheckLog reads the whole log once and checks every tournament's events
// against heads, what was acknowledged of them: the first Size events must
// be there, with that Merkle root and last leaf, their last one in the
// commit at StreamSeq. A log shorter than what was acknowledged, or
// different from it, is damage, located at its first damaged event
// (Locate). With o.Adopt it also returns the head of every tournament found
// intact.
func CheckLog(ctx context.Context, lg ScanLog, heads map[string]AckedHead, o CheckOptions) (adopted map[string]AckedHead, damage []Damage, err error) {
	if len(heads) == 0 && !o.Adopt {
		return nil, nil, nil
	}
	last, err := lg.LastSeq(ctx)
	if err != nil {
		return nil, nil, err
	}
	type tally struct {
		tree    *checkpoint.Tree
		stream  uint64
		checked bool
		bad     bool
		chain   *Chain // with Adopt: the events' seqs and links
	}
	ts := map[string]*tally{}
	err = lg.Scan(ctx, 1, last, "", func(m events.StoredCommit) error {
		h, tracked := heads[m.Tournament]
		if !tracked && !o.Adopt {
			return nil
		}
		tl := ts[m.Tournament]
		if tl == nil {
			tl = &tally{tree: checkpoint.NewTree()}
			if o.Adopt {
				tl.chain = NewChain(m.Tournament, AckedHead{}, nil)
			}
			ts[m.Tournament] = tl
		}
		if tl.bad || tl.checked && !o.Adopt {
			return nil
		}
		if tl.chain != nil && tl.chain.Add(m) != nil {
			tl.bad = true
			return nil
		}
		before := tl.tree.Size()
		if events.CommitLines(m.Data, func(line []byte) error { return tl.tree.Append(line, nil) }) != nil {
			tl.bad = true
			return nil
		}
		tl.stream = m.StreamSeq
		if tracked && !tl.checked && before < h.Size && tl.tree.Size() >= h.Size {
			tl.checked = true
			tl.bad = tl.tree.Size() != h.Size || m.StreamSeq != h.StreamSeq ||
				!bytes.Equal(tl.tree.Root(), h.Root) || !bytes.Equal(tl.tree.Last(), h.Last)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("ledger: checking the log against its acknowledged heads: %w", err)
	}
	var suspects []string
	for t, h := range heads {
		if tl := ts[t]; tl == nil || tl.bad || !tl.checked || h.Size == 0 {
			suspects = append(suspects, t)
		}
	}
	if o.Adopt {
		adopted = map[string]AckedHead{}
		for t, tl := range ts {
			if _, tracked := heads[t]; !tracked && tl.bad {
				suspects = append(suspects, t)
			}
			if !tl.bad && tl.tree.Size() > 0 {
				adopted[t] = AckedHead{Tournament: t, Size: tl.tree.Size(), StreamSeq: tl.stream, Root: tl.tree.Root(), Last: tl.tree.Last()}
			}
		}
	}
	sort.Strings(suspects)
	for _, t := range suspects {
		d, found, err := Locate(ctx, lg, t, heads[t], o.Leaves)
		if err != nil {
			return nil, nil, err
		}
		if found {
			damage = append(damage, d)
		}
	}
	return adopted, damage, nil
}

// Locate reads tournament t's log from its first event and finds its first
// damaged event: one whose stored line does not decode, is not the next
// event, is not linked to the event before it, differs from the leaf the
// projections applied (leaves, when set), or, at the acknowledged head's
// size, does not end the log acknowledged; or the first event missing from
// a log shorter than what was acknowledged. found is false when t's log
// holds together and holds head.
func Locate(ctx context.Context, lg ScanLog, t string, head AckedHead, leaves func(string) checkpoint.NodeGetter) (d Damage, found bool, err error) {
	var get checkpoint.NodeGetter
	if leaves != nil {
		get = leaves(t)
	}
	c := NewChain(t, head, get)
	last, err := lg.LastSubjectSeq(ctx, t)
	if err != nil {
		return Damage{}, false, err
	}
	var damaged *Damage
	err = lg.Scan(ctx, 1, last, t, func(m events.StoredCommit) error {
		if d := c.Add(m); d != nil {
			damaged = d
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return Damage{}, false, fmt.Errorf("ledger: locating the damage of tournament %s: %w", t, err)
	}
	if damaged == nil {
		damaged = c.End()
	}
	if damaged == nil {
		return Damage{}, false, nil
	}
	damaged.Acknowledged = head.Size
	return *damaged, true, nil
}

var errStop = errors.New("stop")

// Chain follows one tournament's commits, fed in stream order, and reports
// its first damaged event as Locate does: it is what Locate and the repair
// of a log check a tournament's commits with, wherever they come from.
type Chain struct {
	t      string
	acked  AckedHead
	leaves checkpoint.NodeGetter
	tree   *checkpoint.Tree
	seq    uint64 // the last event read
	prev   []byte // its leaf hash
	stream uint64 // the stream sequence of its commit
}

// NewChain checks tournament t's commits against acked, what was
// acknowledged of it (the zero AckedHead: nothing), and against the leaves
// the projections applied when leaves is not nil.
func NewChain(t string, acked AckedHead, leaves checkpoint.NodeGetter) *Chain {
	return &Chain{t: t, acked: acked, leaves: leaves, tree: checkpoint.NewTree()}
}

// Head is the head of the commits added so far.
func (c *Chain) Head() AckedHead {
	return AckedHead{Tournament: c.t, Size: c.seq, StreamSeq: c.stream, Root: c.tree.Root(), Last: c.prev}
}

func (c *Chain) damage(seq, stream uint64, format string, args ...any) *Damage {
	return &Damage{Tournament: c.t, Seq: seq, StreamSeq: stream, What: fmt.Sprintf(format, args...), after: c.stream}
}

// stored returns the leaf the projections applied for event seq.
func (c *Chain) stored(seq uint64) ([]byte, bool) {
	if c.leaves == nil || seq == 0 {
		return nil, false
	}
	h, err := c.leaves([]checkpoint.NodeID{checkpoint.LeafID(seq - 1)})
	if err != nil || len(h) != 1 {
		return nil, false
	}
	return h[0], true
}

// Add checks the next commit of the tournament, and reports the first
// damaged event in it or, when an event before it is (its link says so),
// that one; nil when it holds together with what came before.
func (c *Chain) Add(m events.StoredCommit) *Damage {
	var d *Damage
	err := events.CommitLines(m.Data, func(line []byte) error {
		s := c.seq + 1
		env, err := events.DecodeEnvelope(line)
		switch {
		case err != nil:
			d = c.damage(s, m.StreamSeq, "its stored line does not decode: %v", err)
		case env.Tournament != c.t:
			d = c.damage(s, m.StreamSeq, "the message holding it is stored under tournament %s but holds event %s", c.t, env.ID)
		case env.Seq > s && c.seq == 0:
			d = c.damage(s, 0, "it is missing: the log begins at event %d (stream sequence %d)", env.Seq, m.StreamSeq)
		case env.Seq > s:
			d = c.damage(s, 0, "it is missing: the log goes from event %d (stream sequence %d) to event %d (stream sequence %d)", c.seq, c.stream, env.Seq, m.StreamSeq)
		case env.Seq < s:
			d = c.damage(s, m.StreamSeq, "the message holding it holds event %d again", env.Seq)
		}
		if d != nil {
			return errStop
		}
		leaf := checkpoint.LeafHash(line)
		if want, ok := c.stored(s); ok && !bytes.Equal(want, leaf) {
			d = c.damage(s, m.StreamSeq, "its stored line is not the one the projections applied (its leaf hash changed)")
			return errStop
		}
		if s > 1 && env.Prev != "" && env.Prev != events.LinkTo(c.prev) {
			if want, ok := c.stored(s - 1); ok && bytes.Equal(want, c.prev) {
				d = c.damage(s, m.StreamSeq, "its link to event %d was changed", s-1)
			} else {
				d = c.damage(s-1, c.stream, "its stored line no longer hashes to what event %d links to", s)
			}
			return errStop
		}
		if err := c.tree.AppendLeaf(leaf, nil); err != nil {
			return err
		}
		if s == c.acked.Size {
			switch {
			case !bytes.Equal(leaf, c.acked.Last):
				d = c.damage(s, m.StreamSeq, "its stored line is not the one acknowledged")
			case m.StreamSeq != c.acked.StreamSeq:
				d = c.damage(s, m.StreamSeq, "it was acknowledged at stream sequence %d", c.acked.StreamSeq)
			case !bytes.Equal(c.tree.Root(), c.acked.Root):
				// Every line holds together and the last is the one
				// acknowledged: only a log rewritten whole, links and
				// all, has another root.
				d = c.damage(1, 0, "the log's first %d events are not those acknowledged (another Merkle root): it was rewritten", s)
			}
			if d != nil {
				return errStop
			}
		}
		c.seq, c.prev, c.stream = s, leaf, m.StreamSeq
		return nil
	})
	if d == nil && err != nil {
		d = c.damage(c.seq+1, m.StreamSeq, "the message holding it cannot be read: %v", err)
	}
	return d
}

// End reports a log that ended before the acknowledged head.
func (c *Chain) End() *Damage {
	if c.seq < c.acked.Size {
		return c.damage(c.seq+1, 0, "it is missing: the log ends at event %d (stream sequence %d)", c.seq, c.stream)
	}
	return nil
}
