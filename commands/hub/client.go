package hub

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"golang.org/x/mod/sumdb/note"

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
	Logger   *slog.Logger

	// cosigned is, per tournament, the size the hub last cosigned (as the
	// hub says: a 409 answer names it) and that cosigned checkpoint.
	cosigned map[string]cosignedAt
	// refused is the hub's last refusal per tournament, logged once.
	refused map[string]string
	// Cosigned, when set, keeps every checkpoint the hub cosigned, for
	// the venue's API to serve.
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
	mu sync.Mutex
	m  map[string]cosignedAt
}

func (c *Cosignatures) set(t string, size uint64, note string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]cosignedAt{}
	}
	c.m[t] = cosignedAt{size: size, note: note}
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
	c.cosigned, c.refused = map[string]cosignedAt{}, map[string]string{}
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
	if ref.Last == prev.size && prev.note != "" {
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
	status, _ := strconv.Atoi(resp.Header.Get(StatusHeader))
	switch status {
	case 200:
		n := signed + string(resp.Data)
		c.cosigned[t] = cosignedAt{size: ref.Last, note: n}
		if c.Cosigned != nil {
			c.Cosigned.set(t, ref.Last, n)
		}
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
