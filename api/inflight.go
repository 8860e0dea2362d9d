package api

import (
	"context"
	"sync"
	"time"

	"github.com/referto/referto/commands/ledger"
)

// DefaultCommandsFirst is how long, at most, a live page's work waits for
// the commands in flight (Options.CommandsFirst).
const DefaultCommandsFirst = 100 * time.Millisecond

// commandsInFlight counts the commands the ledger holds, from when it
// takes them until they are answered, so that a hall's live pages give way
// to them: every result moves hundreds of pages to read themselves again
// at once, and a command that arrives in that burst would wait for a core
// behind each of them.
type commandsInFlight struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n falls back to 0; nil while it is 0
}

// begin counts one command in flight until end is called.
func (c *commandsInFlight) begin() (end func()) {
	c.mu.Lock()
	c.n++
	if c.idle == nil {
		c.idle = make(chan struct{})
	}
	c.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.n--; c.n == 0 {
				close(c.idle)
				c.idle = nil
			}
		})
	}
}

// giveWay returns once no command is in flight, or after most, or when
// ctx ends, whichever comes first; at once when most is not positive.
func (c *commandsInFlight) giveWay(ctx context.Context, most time.Duration) {
	c.mu.Lock()
	idle := c.idle
	c.mu.Unlock()
	if idle == nil || most <= 0 {
		return
	}
	t := time.NewTimer(most)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	case <-ctx.Done():
	}
}

// submitCounted submits sub through the ledger, counted in flight until
// it is answered.
func (s *Server) submitCounted(ctx context.Context, sub ledger.Submission) (ledger.Outcome, error) {
	defer s.inFlight.begin()()
	return s.opts.Ledger.Submit(ctx, sub)
}

// giveWay is what a live page's work waits for before it goes on: the
// commands in flight, at most Options.CommandsFirst.
func (s *Server) giveWay(ctx context.Context) { s.inFlight.giveWay(ctx, s.opts.CommandsFirst) }
