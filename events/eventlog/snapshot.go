package eventlog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/referto/referto/events"
)

// The JetStream API subjects of a stream's snapshot and restore, and the
// size of the chunks either is sent in. JetStream (nats-server ≥ 2.15)
// takes the snapshot in its own archive format, S2-compressed: the stream
// state first, then every message (sequence, subject, headers, time,
// payload) up to the last sequence the stream had when asked, then an
// end-of-backup marker the restore insists on.
const (
	apiSnapshotT      = "$JS.API.STREAM.SNAPSHOT.%s"
	apiRestoreT       = "$JS.API.STREAM.RESTORE.%s"
	snapshotChunkSize = 128 << 10
	// snapshotIdle is how long a snapshot or a restore may go without a
	// word from the server before it is given up.
	snapshotIdle = 30 * time.Second
)

// SnapshotInfo is what JetStream reports when it starts a snapshot: the
// stream's configuration and the state the snapshot holds. It is also, as
// JSON, the body of the restore request.
type SnapshotInfo struct {
	Config json.RawMessage `json:"config"`
	State  json.RawMessage `json:"state"`
}

// StreamState is the part of a stream's state a backup is checked by.
type StreamState struct {
	Msgs     uint64 `json:"messages"`
	Bytes    uint64 `json:"bytes"`
	FirstSeq uint64 `json:"first_seq"`
	LastSeq  uint64 `json:"last_seq"`
}

// StreamState decodes the state the snapshot holds.
func (i SnapshotInfo) StreamState() (StreamState, error) {
	var st StreamState
	if err := json.Unmarshal(i.State, &st); err != nil {
		return st, fmt.Errorf("jetstream: snapshot state: %w", err)
	}
	return st, nil
}

// StreamName returns the name in the snapshot's configuration.
func (i SnapshotInfo) StreamName() (string, error) {
	var c struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(i.Config, &c); err != nil || c.Name == "" {
		return "", fmt.Errorf("jetstream: snapshot configuration names no stream (%v)", err)
	}
	return c.Name, nil
}

// SingleNode returns the snapshot with its configuration set for one
// server: a snapshot of an R3 stream restores into an embedded server.
func (i SnapshotInfo) SingleNode() (SnapshotInfo, error) {
	var c map[string]json.RawMessage
	if err := json.Unmarshal(i.Config, &c); err != nil {
		return i, fmt.Errorf("jetstream: snapshot configuration: %w", err)
	}
	c["num_replicas"] = json.RawMessage("1")
	delete(c, "placement")
	b, err := json.Marshal(c)
	if err != nil {
		return i, err
	}
	i.Config = b
	return i, nil
}

// Snapshot takes a JetStream snapshot of the stream, exactly as it is when
// JetStream receives the request: every message up to that moment's last
// sequence and none appended while the snapshot is sent. Appends go on
// meanwhile. begin is called once with what JetStream reported, then chunk
// with each piece of the snapshot, in order. A piece is acknowledged, and
// JetStream sends more, only once chunk has returned: a slow writer slows
// the snapshot down instead of piling it up in memory, but JetStream gives
// up on a snapshot that is not acknowledged for 5 seconds. An error from
// begin or chunk abandons the snapshot and is returned.
func (l *Log) Snapshot(ctx context.Context, begin func(SnapshotInfo) error, chunk func([]byte) error) error {
	inbox := l.nc.NewInbox()
	sub, err := l.nc.SubscribeSync(inbox)
	if err != nil {
		return fmt.Errorf("jetstream: snapshot: %w", err)
	}
	// Leaving early drops the interest: JetStream notices and stops.
	defer sub.Unsubscribe()
	if err := sub.SetPendingLimits(-1, -1); err != nil {
		return fmt.Errorf("jetstream: snapshot: %w", err)
	}
	req, err := json.Marshal(map[string]any{"deliver_subject": inbox, "no_consumers": true, "chunk_size": snapshotChunkSize})
	if err != nil {
		return err
	}
	rctx, cancel := context.WithTimeout(ctx, snapshotIdle)
	res, err := l.nc.RequestWithContext(rctx, fmt.Sprintf(apiSnapshotT, l.opts.Stream), req)
	cancel()
	if err != nil {
		return fmt.Errorf("%w: snapshot of %s: %v", events.ErrUnavailable, l.opts.Stream, err)
	}
	var resp struct {
		Error *jetstream.APIError `json:"error"`
		SnapshotInfo
	}
	if err := json.Unmarshal(res.Data, &resp); err != nil {
		return fmt.Errorf("jetstream: snapshot response: %w", err)
	}
	if resp.Error != nil {
		return fmt.Errorf("jetstream: snapshot of %s refused: %w", l.opts.Stream, resp.Error)
	}
	if len(resp.Config) == 0 || len(resp.State) == 0 {
		return errors.New("jetstream: snapshot response without the stream's configuration and state")
	}
	if err := begin(resp.SnapshotInfo); err != nil {
		return err
	}
	for {
		mctx, cancel := context.WithTimeout(ctx, snapshotIdle)
		m, err := sub.NextMsgWithContext(mctx)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("%w: snapshot of %s interrupted: %v", events.ErrUnavailable, l.opts.Stream, err)
		}
		if len(m.Data) == 0 {
			// The end: status 204 after the last piece, anything else is
			// JetStream saying why it stopped (nats.go puts the status
			// line in these two headers).
			if st := m.Header.Get("Status"); st != "" && st != "204" {
				return fmt.Errorf("jetstream: snapshot of %s failed: %s %s", l.opts.Stream, st, m.Header.Get("Description"))
			}
			return nil
		}
		if err := chunk(m.Data); err != nil {
			return err
		}
		if m.Reply != "" {
			if err := m.Respond(nil); err != nil {
				return fmt.Errorf("%w: snapshot of %s: acknowledge: %v", events.ErrUnavailable, l.opts.Stream, err)
			}
		}
	}
}

// RestoreSnapshot creates a stream from a snapshot taken by Snapshot (info
// and the snapshot's bytes in r) on a JetStream that has no stream of that
// name, and returns the state of the stream it restored: the messages keep
// their sequences, subjects, headers and times. A snapshot without its end
// marker is an error, but JetStream may keep the messages it restored
// before noticing: restore into a store that is thrown away on failure.
func RestoreSnapshot(ctx context.Context, nc *nats.Conn, info SnapshotInfo, r io.Reader) (StreamState, error) {
	name, err := info.StreamName()
	if err != nil {
		return StreamState{}, err
	}
	req, err := json.Marshal(info)
	if err != nil {
		return StreamState{}, err
	}
	res, err := request(ctx, nc, fmt.Sprintf(apiRestoreT, name), req, snapshotIdle)
	if err != nil {
		return StreamState{}, fmt.Errorf("jetstream: restore of %s: %w", name, err)
	}
	var start struct {
		Error          *jetstream.APIError `json:"error"`
		DeliverSubject string              `json:"deliver_subject"`
	}
	if err := json.Unmarshal(res.Data, &start); err != nil {
		return StreamState{}, fmt.Errorf("jetstream: restore response: %w", err)
	}
	if start.Error != nil {
		return StreamState{}, fmt.Errorf("jetstream: restore of %s refused: %w", name, start.Error)
	}
	buf := make([]byte, min(snapshotChunkSize, int(nc.MaxPayload())))
	for {
		n, rerr := fill(r, buf)
		if n > 0 {
			// Each piece is a request: the reply is JetStream's
			// acknowledgement (empty) or why it gave up.
			ack, err := request(ctx, nc, start.DeliverSubject, buf[:n], snapshotIdle)
			if err != nil {
				return StreamState{}, fmt.Errorf("jetstream: restore of %s: %w", name, err)
			}
			if len(ack.Data) > 0 {
				return StreamState{}, fmt.Errorf("jetstream: restore of %s failed: %w", name, restoreError(ack.Data))
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			// JetStream drops a restore that stops sending.
			return StreamState{}, rerr
		}
	}
	// An empty piece ends the transfer; the reply comes once the stream is
	// rebuilt, which takes as long as the stream is large.
	res, err = request(ctx, nc, start.DeliverSubject, nil, time.Hour)
	if err != nil {
		return StreamState{}, fmt.Errorf("jetstream: restore of %s: %w", name, err)
	}
	var done struct {
		Error *jetstream.APIError `json:"error"`
		State StreamState         `json:"state"`
	}
	if err := json.Unmarshal(res.Data, &done); err != nil {
		return StreamState{}, fmt.Errorf("jetstream: restore response: %w", err)
	}
	if done.Error != nil {
		return StreamState{}, fmt.Errorf("jetstream: restore of %s failed: %w", name, done.Error)
	}
	return done.State, nil
}

func restoreError(b []byte) error {
	var e struct {
		Error *jetstream.APIError `json:"error"`
	}
	if json.Unmarshal(b, &e) == nil && e.Error != nil {
		return e.Error
	}
	return errors.New(string(b))
}

func request(ctx context.Context, nc *nats.Conn, subj string, data []byte, timeout time.Duration) (*nats.Msg, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return nc.RequestWithContext(ctx, subj, data)
}

// fill reads into buf until it is full or r ends: io.EOF only at a clean
// end, any other error of r as it is.
func fill(r io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		k, err := r.Read(buf[n:])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
