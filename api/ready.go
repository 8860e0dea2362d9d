package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/referto/referto/api/web"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events"
)

// readiness is the /readyz document.
type readiness struct {
	// Ready: the node serves reads that reflect the log and can append to
	// it. NotReady says why not, one reason per failed check.
	Ready    bool     `json:"ready"`
	NotReady []string `json:"not_ready,omitempty"`
	// Applied, Lag and Error repeat Projections', as /readyz gave them
	// before it reported the rest.
	Applied uint64 `json:"applied"`
	Lag     uint64 `json:"lag"`
	Error   string `json:"error,omitempty"`

	// Damage lists the tournaments whose logs are damaged; Halted says
	// why every command is refused, when the stream lost its end.
	Damage []damageState `json:"damage,omitempty"`
	Halted string        `json:"halted,omitempty"`

	NATS        *natsState      `json:"nats,omitempty"`
	Stream      streamState     `json:"stream"`
	Projections projectionState `json:"projections"`
	Disk        *diskState      `json:"disk,omitempty"`
}

type damageState struct {
	ledger.Damage
	Remedy string `json:"remedy"`
}

type natsState struct {
	Connected bool   `json:"connected"`
	Status    string `json:"status"` // CONNECTED, RECONNECTING, CLOSED, …
}

type streamState struct {
	Name     string `json:"name"`
	Exists   bool   `json:"exists"`
	Replicas int    `json:"replicas"`
	LastSeq  uint64 `json:"last_seq"`
	Error    string `json:"error,omitempty"`
}

type projectionState struct {
	// Ready: caught up with the log as it was at start, and running.
	Ready   bool   `json:"ready"`
	Applied uint64 `json:"applied"`
	// Lag is the stream's last sequence minus Applied (against the log as
	// it was at start when the stream cannot be read).
	Lag   uint64 `json:"lag"`
	Error string `json:"error,omitempty"`
}

type diskState struct {
	Free              uint64 `json:"free"`
	Reserve           uint64 `json:"reserve"`
	ReadOnly          bool   `json:"read_only"`
	AcceptingCommands bool   `json:"accepting_commands"`
	Error             string `json:"error,omitempty"`
}

// readyz reports the node's parts and answers 503 unless it is ready: the
// NATS connection is up, the stream can be read, and the projections have
// caught up with the log as it was at start and are running. The disk is
// reported but does not make the node unready: below its reserve, or
// read-only, commands are refused with 503 while reads keep working.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	var rd readiness
	fail := func(format string, args ...any) { rd.NotReady = append(rd.NotReady, fmt.Sprintf(format, args...)) }

	if c := s.opts.Conn; c != nil {
		rd.NATS = &natsState{}
		rd.NATS.Connected, rd.NATS.Status = c.Connected()
		if !rd.NATS.Connected {
			fail("nats: connection %s", rd.NATS.Status)
		}
	}

	rn := s.opts.Runner
	applied := rn.Applied()
	rd.Projections = projectionState{Ready: rn.Ready(), Applied: applied, Lag: rn.Lag()}
	rd.Stream = streamState{Name: s.opts.Log.Stream(), Replicas: s.opts.Log.Replicas()}
	ctx, cancel := context.WithTimeout(r.Context(), scrapeTimeout)
	defer cancel()
	last, err := s.opts.Log.LastSeq(ctx)
	switch {
	case err == nil:
		rd.Stream.Exists, rd.Stream.LastSeq = true, last
		rd.Projections.Lag = lagOf(last, applied)
	case errors.Is(err, events.ErrNoLog):
		rd.Stream.Error = "the stream does not exist"
		fail("stream %s: does not exist", rd.Stream.Name)
	default:
		rd.Stream.Error = err.Error()
		fail("stream %s: cannot be read: %v", rd.Stream.Name, err)
	}

	if err := rn.Err(); err != nil {
		rd.Projections.Error = err.Error()
		fail("projections: stopped: %v", err)
	} else if !rd.Projections.Ready {
		fail("projections: catching up with the log (lag %d)", rn.Lag())
	}

	for _, d := range s.opts.Ledger.Damages() {
		rd.Damage = append(rd.Damage, damageState{Damage: d, Remedy: d.Remedy()})
		fail("%s: %s", d.String(), d.Remedy())
	}
	if why, ok := s.opts.Ledger.Halted(); ok {
		rd.Halted = why
		fail("every command is refused: %s", why)
	}

	if d, ok := s.opts.Ledger.Disk(); ok {
		rd.Disk = &diskState{Free: d.Free, Reserve: d.Reserve, ReadOnly: d.ReadOnly, AcceptingCommands: d.Accepting}
		if d.Err != nil {
			rd.Disk.Error = d.Err.Error()
		}
	}

	rd.Applied, rd.Lag, rd.Error = rd.Projections.Applied, rd.Projections.Lag, rd.Projections.Error
	rd.Ready = len(rd.NotReady) == 0
	status := http.StatusOK
	if !rd.Ready {
		status = http.StatusServiceUnavailable
	}
	writeJSON(w, status, rd)
}

// damageForUI is every damaged log as the web UI's pages show it.
func (s *Server) damageForUI() []web.Damage {
	var out []web.Damage
	for _, d := range s.opts.Ledger.Damages() {
		out = append(out, web.Damage{Tournament: d.Tournament, Seq: d.Seq, Acknowledged: d.Acknowledged, What: d.String(), Repair: d.RepairCommand()})
	}
	if why, ok := s.opts.Ledger.Halted(); ok {
		out = append(out, web.Damage{What: why, Repair: s.opts.Ledger.RepairCommand()})
	}
	return out
}
