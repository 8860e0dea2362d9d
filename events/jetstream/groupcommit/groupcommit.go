package groupcommit

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"
)

// Committer appends messages with group commit: the appends that arrive
// while one batch is being stored go together in the next, as one atomic
// batch (ADR-50); a lone message is published as usual. It is the
// baseline referto bench measures for what group commit would give the
// ledger, which appends one message at a time, and it measures throughput
// only: one refused message (a duplicate id, a wrong expected sequence)
// fails its whole batch, where the ledger would need each command's own
// answer.
//
// nats-server 2.15.2 commits a batch to a single server's stream with one
// fsync (stream.go, coalesceSync), but first stages it in a file store
// made for that batch (jetstream_batching.go, newBatchStore): two
// synchronous metadata writes, each with a directory fsync, and an fsync
// of the staged messages. At 8 clients, about 4 messages per batch, that
// costs more than the fsyncs the batch saves.
//
// No Append may come during or after Stop.
type Committer struct {
	ctx           context.Context
	nc            *nats.Conn
	js            natsjs.JetStream
	queue         chan *groupedMsg
	done          chan struct{}
	prefix        string // of this committer's batch ids
	batches, msgs atomic.Int64
}

type groupedMsg struct {
	m      *nats.Msg
	seq    uint64
	err    error
	stored chan struct{}
}

// New starts a committer publishing through nc and js until Stop.
func New(ctx context.Context, nc *nats.Conn, js natsjs.JetStream) *Committer {
	// Batch ids are unique among the batches a stream has open, whatever
	// else publishes to it.
	g := &Committer{ctx: ctx, nc: nc, js: js, queue: make(chan *groupedMsg, 1024), done: make(chan struct{}),
		prefix: strconv.FormatInt(time.Now().UnixNano(), 36) + "-"}
	go g.run()
	return g
}

// Stop stops the committer once the appends queued are stored.
func (g *Committer) Stop() { close(g.queue); <-g.done }

// Append stores m and returns its stream sequence.
func (g *Committer) Append(m *nats.Msg) (uint64, error) {
	x := &groupedMsg{m: m, stored: make(chan struct{})}
	g.queue <- x
	<-x.stored
	return x.seq, x.err
}

// maxGroup is a batch's most messages (JetStream allows 1,000).
const maxGroup = 64

func (g *Committer) run() {
	defer close(g.done)
	group := make([]*groupedMsg, 0, maxGroup)
	for x := range g.queue {
		group = append(group[:0], x)
	more:
		for len(group) < maxGroup {
			select {
			case y, ok := <-g.queue:
				if !ok {
					break more
				}
				group = append(group, y)
			default:
				break more
			}
		}
		g.store(group)
		for _, y := range group {
			close(y.stored)
		}
	}
}

// store publishes a group and sets each message's sequence, or the error
// that failed them all.
func (g *Committer) store(group []*groupedMsg) {
	g.batches.Add(1)
	g.msgs.Add(int64(len(group)))
	if len(group) == 1 {
		ack, err := g.js.PublishMsg(g.ctx, group[0].m)
		if err == nil {
			group[0].seq = ack.Sequence
		}
		group[0].err = err
		return
	}
	id := g.prefix + strconv.FormatInt(g.batches.Load(), 10)
	var reply *nats.Msg
	var err error
	for i, x := range group {
		x.m.Header.Set("Nats-Batch-Id", id)
		x.m.Header.Set("Nats-Batch-Sequence", strconv.Itoa(i+1))
		if i < len(group)-1 {
			if err = g.nc.PublishMsg(x.m); err != nil {
				break
			}
			continue
		}
		x.m.Header.Set("Nats-Batch-Commit", "1")
		// The server does not answer a commit whose write failed.
		ctx, cancel := context.WithTimeout(g.ctx, 10*time.Second)
		reply, err = g.nc.RequestMsgWithContext(ctx, x.m)
		cancel()
	}
	var ack struct {
		Seq   uint64           `json:"seq"`
		Count int              `json:"count"`
		Error *natsjs.APIError `json:"error"`
	}
	switch {
	case err != nil:
	case json.Unmarshal(reply.Data, &ack) != nil:
		err = fmt.Errorf("batch %s: bad ack %q", id, reply.Data)
	case ack.Error != nil:
		err = fmt.Errorf("batch %s: %w", id, ack.Error)
	case ack.Count != len(group) || ack.Seq < uint64(len(group)):
		err = fmt.Errorf("batch %s of %d: ack %q", id, len(group), reply.Data)
	}
	for i, x := range group {
		if x.err = err; err == nil {
			x.seq = ack.Seq - uint64(len(group)-1-i)
		}
	}
}

// Stats returns how many publishes the committer made and how many
// messages they stored, single ones included.
func (g *Committer) Stats() (batches, msgs int64) { return g.batches.Load(), g.msgs.Load() }
