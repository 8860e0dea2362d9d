package api

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/gorilla/mux"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// Live updates: GET /v1/tournaments/{t}/stream is a stream of server-sent
// events (text/event-stream) that says, as soon as the projections have
// applied it, each new seq of the tournament. A page re-reads what it shows
// then (the read waits for the projections, read-your-writes), so the
// stream carries no data of its own and anyone may follow it.

// maxStreams bounds the streams served at once: each holds a connection
// and a goroutine. One more is refused with 503 and Retry-After, and an
// EventSource tries again by itself.
const maxStreams = 256

// streamHeartbeat is how often an idle stream sends a comment, so that
// proxies and phones keep the connection; streamMax is how long a stream
// lasts at most (?max_seconds=), after which the client reconnects.
const (
	streamHeartbeat = 20 * time.Second
	streamMax       = 10 * time.Minute
)

func (s *Server) getStream(w http.ResponseWriter, r *http.Request) {
	t := mux.Vars(r)["t"]
	maxSeconds, err := queryUint(r, "max_seconds", uint64(streamMax/time.Second))
	if err == nil && (maxSeconds < 1 || maxSeconds > uint64(streamMax/time.Second)) {
		err = &commands.FieldError{Field: "max_seconds", Msg: fmt.Sprintf("must be between 1 and %d", streamMax/time.Second)}
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	seq, ok := s.tournamentSeq(t)
	if !ok {
		s.writeError(w, r, fmt.Errorf("%w: tournament %s", errNotFound, t))
		return
	}
	select {
	case s.streams <- struct{}{}:
		defer func() { <-s.streams }()
	default:
		s.writeError(w, r, fmt.Errorf("%w: %d live streams are open; try again", events.ErrUnavailable, maxStreams))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), time.Duration(maxSeconds)*time.Second)
	defer cancel()
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	send := func(text string) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(streamHeartbeat + 10*time.Second))
		if _, err := w.Write([]byte(text)); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	// retry: how long an EventSource waits before reconnecting.
	if !send(fmt.Sprintf("retry: 2000\n\nid: %d\nevent: seq\ndata: %d\n\n", seq, seq)) {
		return
	}
	for {
		applied := s.opts.Runner.Applied()
		if cur, ok := s.tournamentSeq(t); ok && cur != seq {
			seq = cur
			if !send("id: " + strconv.FormatUint(seq, 10) + "\nevent: seq\ndata: " + strconv.FormatUint(seq, 10) + "\n\n") {
				return
			}
			continue
		}
		wait, stop := context.WithTimeout(ctx, streamHeartbeat)
		err := s.opts.Runner.WaitFor(wait, applied+1)
		stop()
		switch {
		case ctx.Err() != nil:
			return
		case err != nil && wait.Err() == nil:
			return // the runner stopped
		case err != nil:
			if !send(": still here\n\n") {
				return
			}
		}
	}
}

// tournamentSeq is the seq of the tournament's state, false when it does
// not exist.
func (s *Server) tournamentSeq(t string) (uint64, bool) {
	var seq uint64
	ok := s.opts.Runner.Read(t, func(st *projections.Tournament) { seq = st.Seq })
	return seq, ok
}
