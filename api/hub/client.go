package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"golang.org/x/mod/sumdb/note"

	"github.com/referto/referto/events/atomicfile"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/projections"
)

// ClientStore is what a venue's Client reads of its projections: its
// tournaments, their heads and Merkle nodes.
type ClientStore interface {
	Tournaments() ([]string, error)
	LastCommit(t string) (projections.CommitRef, bool, error)
	NodeGetter(t string) checkpoint.NodeGetter
}

// Client is a venue's side of the witness: it submits each new checkpoint
// of its tournaments to the hub, over the leaf link, with the consistency
// proof from the last one the hub cosigned.
type Client struct {
	Venue  string
	Conn   *nats.Conn
	Store  ClientStore
	Signer note.Signer
	// Interval is how often it looks for new checkpoints; the default is
	// one second.
	Interval time.Duration
	// Reoffer is how often a checkpoint the hub cosigned is offered again
	// while the tournament does not change: the hub answers at once when
	// it still holds it verified, and verifies its copy again when it
	// does not (restored from an older backup, or after its
	// administrator lifted a quarantine). The default is 10 seconds.
	Reoffer time.Duration
	Logger  *slog.Logger
	// Clock is the default time.Now.
	Clock func() time.Time

	// cosigned is, per tournament, the size the hub last cosigned (as the
	// hub says: a 409 answer names it) and that cosigned checkpoint.
	cosigned map[string]cosignedAt
	// refused is the hub's last refusal per tournament, logged once;
	// offered when each was last offered.
	refused map[string]string
	offered map[string]time.Time
	// Cosigned keeps every checkpoint the hub cosigned, for the venue's
	// API to serve and for the hub to learn back (CosignedSubject); with
	// its Path set they outlive the venue's restarts. The default keeps
	// them in memory.
	Cosigned *Cosignatures
	// Hold, when set, names the tournaments whose checkpoints are not
	// offered: a damaged log's (its verified prefix, shorter than what the
	// hub may have cosigned, would read as a rewritten log).
	Hold func(t string) bool
}

// Cosignatures are, at a venue, the last checkpoint of each tournament
// the hub cosigned: the venue's signed note with the hub's cosignature.
// Safe for concurrent use.
type Cosignatures struct {
	// Path, when set, is the file that keeps them (Load reads it): each
	// is written there, and synced, before the venue takes it as
	// cosigned. A hub restored from an older backup learns its last
	// cosignatures back from them.
	Path string

	mu sync.Mutex
	m  map[string]cosignedAt
}

// Load reads the cosignatures kept in Path (none when the file is not
// there).
func (c *Cosignatures) Load() error {
	if c.Path == "" {
		return nil
	}
	b, err := os.ReadFile(c.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var kept map[string]keptCosignature
	if err := json.Unmarshal(b, &kept); err != nil {
		return fmt.Errorf("hub: %s: %w", c.Path, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = map[string]cosignedAt{}
	for t, k := range kept {
		c.m[t] = cosignedAt{size: k.Size, note: k.Note}
	}
	return nil
}

// keptCosignature is one tournament's in Path.
type keptCosignature struct {
	Size uint64 `json:"size"`
	Note string `json:"note"`
}

func (c *Cosignatures) set(t string, size uint64, note string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]cosignedAt{}
	}
	prev, had := c.m[t]
	c.m[t] = cosignedAt{size: size, note: note}
	if c.Path == "" {
		return nil
	}
	kept := make(map[string]keptCosignature, len(c.m))
	for t, a := range c.m {
		kept[t] = keptCosignature{Size: a.size, Note: a.note}
	}
	b, err := json.MarshalIndent(kept, "", "  ")
	if err == nil {
		err = atomicfile.Write(c.Path, b, 0o600)
	}
	if err != nil {
		if had {
			c.m[t] = prev
		} else {
			delete(c.m, t)
		}
		return fmt.Errorf("hub: keep the cosignature of %s: %w", t, err)
	}
	return nil
}

// all is every cosignature kept, by tournament.
func (c *Cosignatures) all() map[string]cosignedAt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.m)
}

// Cosigned returns the last checkpoint of t the hub cosigned.
func (c *Cosignatures) Cosigned(t string) (signed string, size uint64, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.m[t]
	return a.note, a.size, ok
}

type cosignedAt struct {
	size uint64
	note string
}

// Run submits checkpoints until ctx is done. While the link is down the
// requests find no responder and are tried again.
func (c *Client) Run(ctx context.Context) error {
	if c.Interval == 0 {
		c.Interval = time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Reoffer == 0 {
		c.Reoffer = 10 * time.Second
	}
	if c.Clock == nil {
		c.Clock = time.Now
	}
	c.offered = map[string]time.Time{}
	if c.Cosigned == nil {
		c.Cosigned = &Cosignatures{}
	}
	// What the hub cosigned before: offers go on from there.
	c.cosigned, c.refused = c.Cosigned.all(), map[string]string{}
	if c.cosigned == nil {
		c.cosigned = map[string]cosignedAt{}
	}
	// The hub asks, before it cosigns again, what it cosigned last.
	sub, err := c.Conn.Subscribe(CosignedSubject(c.Venue), func(m *nats.Msg) {
		note, _, _ := c.Cosigned.Cosigned(string(m.Data))
		_ = m.Respond([]byte(note))
	})
	if err != nil {
		return fmt.Errorf("hub: answer the hub: %w", err)
	}
	defer sub.Unsubscribe()
	t := time.NewTicker(c.Interval)
	defer t.Stop()
	for {
		c.round(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

func (c *Client) round(ctx context.Context) {
	ts, err := c.Store.Tournaments()
	if err != nil {
		return
	}
	for _, t := range ts {
		if ctx.Err() != nil {
			return
		}
		if c.Hold != nil && c.Hold(t) {
			continue
		}
		if err := c.submit(ctx, t); err != nil && !errors.Is(err, nats.ErrNoResponders) && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, nats.ErrTimeout) {
			c.Logger.Debug("witness", "tournament", t, "err", err)
		}
	}
}

func (c *Client) submit(ctx context.Context, t string) error {
	ref, ok, err := c.Store.LastCommit(t)
	if err != nil || !ok {
		return err
	}
	prev := c.cosigned[t]
	if ref.Last == prev.size && prev.note != "" && c.Clock().Sub(c.offered[t]) < c.Reoffer {
		return nil
	}
	get := c.Store.NodeGetter(t)
	root, err := checkpoint.RootAt(ref.Last, get)
	if err != nil {
		return err
	}
	signed, err := checkpoint.Sign(checkpoint.Checkpoint{Origin: checkpoint.Origin(t), Size: ref.Last, Root: root}, c.Signer)
	if err != nil {
		return err
	}
	var proof [][]byte
	if prev.size > 0 && prev.size <= ref.Last {
		if proof, err = checkpoint.ConsistencyProof(prev.size, ref.Last, get); err != nil {
			return err
		}
	}
	m := nats.NewMsg(AddCheckpointSubject)
	m.Header.Set(VenueHeader, c.Venue)
	m.Data = formatAddCheckpoint(prev.size, proof, []byte(signed))
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	resp, err := c.Conn.RequestMsgWithContext(rctx, m)
	if err != nil {
		return err
	}
	c.offered[t] = c.Clock()
	status, _ := strconv.Atoi(resp.Header.Get(StatusHeader))
	switch status {
	case 200:
		n := signed + string(resp.Data)
		if n == prev.note {
			return nil
		}
		if err := c.Cosigned.set(t, ref.Last, n); err != nil {
			c.Logger.Error("hub cosigned, not kept", "tournament", t, "size", ref.Last, "err", err)
			return err
		}
		c.cosigned[t] = cosignedAt{size: ref.Last, note: n}
		c.Logger.Info("hub cosigned", "tournament", t, "size", ref.Last)
	case 409:
		size, err := strconv.ParseUint(strings.TrimSpace(string(resp.Data)), 10, 64)
		if err == nil {
			c.cosigned[t] = cosignedAt{size: size}
		}
	case 503:
		c.Logger.Debug("hub syncing", "tournament", t, "answer", string(resp.Data))
	default:
		// Said once per answer, not every round: the venue keeps
		// offering its checkpoint, the hub keeps its reasons.
		if a := fmt.Sprintf("%d %s", status, resp.Data); c.refused[t] != a {
			c.refused[t] = a
			c.Logger.Warn("hub refused checkpoint", "tournament", t, "size", ref.Last, "status", status, "answer", string(resp.Data))
		}
	}
	return nil
}
