package eventlog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/referto/referto/events"
)

// startLog starts an embedded server without a listener and opens the log
// over an in-process connection.
func startLog(t *testing.T) *Log {
	t.Helper()
	ns, err := StartServer(ServerOptions{StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := nats.Connect("", nats.InProcessServer(ns))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	l, err := Open(context.Background(), nc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestAppendOptimisticConcurrency(t *testing.T) {
	ctx := context.Background()
	l := startLog(t)
	a1, err := l.Append(ctx, "t1", 0, "t1/k1", []byte("one\n"))
	if err != nil {
		t.Fatal(err)
	}
	// Another tournament's appends do not move t1's expected sequence.
	b1, err := l.Append(ctx, "t2", 0, "t2/k1", []byte("other\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(ctx, "t1", 0, "t1/k2", []byte("stale\n")); !errors.Is(err, events.ErrConflict) {
		t.Fatalf("append expecting an empty tournament: got %v, want ErrConflict", err)
	}
	if _, err := l.Append(ctx, "t1", b1.StreamSeq, "t1/k2", []byte("wrong\n")); !errors.Is(err, events.ErrConflict) {
		t.Fatalf("append expecting another tournament's sequence: got %v, want ErrConflict", err)
	}
	a2, err := l.Append(ctx, "t1", a1.StreamSeq, "t1/k2", []byte("two\n"))
	if err != nil {
		t.Fatal(err)
	}
	last, err := l.LastSubjectSeq(ctx, "t1")
	if err != nil || last != a2.StreamSeq {
		t.Fatalf("LastSubjectSeq = %d, %v; want %d", last, err, a2.StreamSeq)
	}
	if n, _ := l.LastSubjectSeq(ctx, "nobody"); n != 0 {
		t.Errorf("LastSubjectSeq of an empty tournament = %d", n)
	}
}

func TestAppendDuplicateReturnsOriginalSequence(t *testing.T) {
	ctx := context.Background()
	l := startLog(t)
	a, err := l.Append(ctx, "t1", 0, "t1/k", []byte("x\n"))
	if err != nil {
		t.Fatal(err)
	}
	// Same message id, same expectation: JetStream acknowledges the original.
	// (With a stale expectation the sequence check comes first and answers
	// conflict; the API then finds the command in its index.)
	d, err := l.Append(ctx, "t2", 0, "t1/k", []byte("x\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !d.Duplicate || d.StreamSeq != a.StreamSeq {
		t.Errorf("duplicate ack = %+v, want duplicate of %d", d, a.StreamSeq)
	}
	if n, _ := l.LastSeq(ctx); n != 1 {
		t.Errorf("stream holds %d messages after a duplicate, want 1", n)
	}
}

// TestTheRequestIsStoredWithTheCommit: a commit's request fingerprint is
// read back by Get and Follow, and a duplicate keeps the original's.
func TestTheRequestIsStoredWithTheCommit(t *testing.T) {
	ctx := context.Background()
	l := startLog(t)
	a, err := l.AppendRequest(ctx, "t1", 0, "t1/k", "sha256:one", []byte("x\n"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := l.AppendRequest(ctx, "t1", a.StreamSeq, "t1/k", "sha256:two", []byte("y\n"))
	if err != nil || !d.Duplicate || d.StreamSeq != a.StreamSeq {
		t.Fatalf("duplicate: %+v %v", d, err)
	}
	if _, err := l.Append(ctx, "t1", a.StreamSeq, "t1/old", []byte("z\n")); err != nil {
		t.Fatal(err)
	}
	m, err := l.Get(ctx, a.StreamSeq)
	if err != nil || m.Request != "sha256:one" || m.MsgID != "t1/k" {
		t.Errorf("Get: %+v %v, want the original's request", m, err)
	}
	var got []string
	if err := l.Scan(ctx, 1, 2, "", func(m events.StoredCommit) error { got = append(got, m.Request); return nil }); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[sha256:one ]" {
		t.Errorf("Follow: requests %q, want the first commit's and none", got)
	}
}

// A stream that is not there is events.ErrNoLog, so that readiness tells
// it from a log it cannot read without knowing JetStream's errors.
func TestLastSeqOfAMissingStreamIsNoLog(t *testing.T) {
	ctx := context.Background()
	l := startLog(t)
	if last, err := l.LastSeq(ctx); err != nil || last != 0 {
		t.Fatalf("LastSeq of an empty stream: %d, %v", last, err)
	}
	js, err := jetstream.New(l.nc)
	if err != nil {
		t.Fatal(err)
	}
	if err := js.DeleteStream(ctx, l.opts.Stream); err != nil {
		t.Fatal(err)
	}
	if _, err := l.LastSeq(ctx); !errors.Is(err, events.ErrNoLog) || errors.Is(err, events.ErrUnavailable) {
		t.Errorf("LastSeq of a deleted stream: %v, want events.ErrNoLog", err)
	}
}

func TestAppendRejectsBadTournamentID(t *testing.T) {
	l := startLog(t)
	for _, id := range []string{"x.>", "*", ">", "a.b", ""} {
		if _, err := l.Append(context.Background(), id, 0, "", []byte("x\n")); !errors.Is(err, events.ErrInvalidID) {
			t.Errorf("Append(%q): got %v, want ErrInvalidID", id, err)
		}
	}
}

func TestWrongLastSequenceCodesAreOneConflict(t *testing.T) {
	// The codes as the server sends them (10164 from a clustered stream).
	for _, code := range []jetstream.ErrorCode{10071, 10164} {
		err := classify(fmt.Errorf("nats: %w", &jetstream.APIError{Code: 400, ErrorCode: code, Description: "wrong last sequence"}), "t", 3)
		if !errors.Is(err, events.ErrConflict) {
			t.Errorf("code %d: got %v, want ErrConflict", code, err)
		}
	}
	if err := classify(&jetstream.APIError{Code: 503, ErrorCode: 10008, Description: "unavailable"}, "t", 0); !errors.Is(err, events.ErrUnavailable) {
		t.Errorf("503: got %v, want ErrUnavailable", err)
	}
	if err := classify(context.DeadlineExceeded, "t", 0); !errors.Is(err, events.ErrUnavailable) {
		t.Errorf("timeout: got %v, want ErrUnavailable", err)
	}
	// A clustered leader that proposed a message under the id and has not
	// stored it (or lost it in a leader change): the outcome is unknown, a
	// 503 to retry, not an internal error.
	if err := classify(&jetstream.APIError{Code: 409, ErrorCode: 10158, Description: "duplicate message id is in process"}, "t", 0); !errors.Is(err, events.ErrUnavailable) {
		t.Errorf("10158: got %v, want ErrUnavailable", err)
	}
}

func TestStreamIsAppendOnly(t *testing.T) {
	ctx := context.Background()
	l := startLog(t)
	if _, err := l.Append(ctx, "t1", 0, "", []byte("x\n")); err != nil {
		t.Fatal(err)
	}
	info, err := l.stream.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c := info.Config
	if !c.DenyDelete || !c.DenyPurge || c.AllowRollup || c.MaxAge != 0 || c.MaxMsgs != -1 || c.MaxBytes != -1 || c.PersistMode == jetstream.AsyncPersistMode {
		t.Errorf("stream config is not append-only: %+v", c)
	}
	if err := l.stream.DeleteMsg(ctx, 1); err == nil {
		t.Error("deleting a message succeeded")
	}
	if err := l.stream.Purge(ctx); err == nil {
		t.Error("purging the stream succeeded")
	}
}

func TestOpenRefusesAStreamThatCanLoseEvents(t *testing.T) {
	ns, err := StartServer(ServerOptions{StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
	nc, _ := nats.Connect("", nats.InProcessServer(ns))
	defer nc.Close()
	js, _ := jetstream.New(nc)
	if _, err := js.CreateStream(context.Background(), jetstream.StreamConfig{Name: "REFERTO", Subjects: []string{SubjectPrefix + "*"}, Storage: jetstream.FileStorage, MaxAge: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), nc, Options{}); err == nil {
		t.Fatal("Open adopted a stream with an age limit")
	}
}

func TestFollowAndScan(t *testing.T) {
	ctx := context.Background()
	l := startLog(t)
	var last uint64
	for i := 0; i < 10; i++ {
		tour := []string{"a", "b"}[i%2]
		exp, _ := l.LastSubjectSeq(ctx, tour)
		a, err := l.Append(ctx, tour, exp, "", []byte(fmt.Sprintf("%d\n", i)))
		if err != nil {
			t.Fatal(err)
		}
		last = a.StreamSeq
	}
	var got []string
	if err := l.Scan(ctx, 3, last, "", func(m events.StoredCommit) error {
		got = append(got, fmt.Sprintf("%d:%s:%s", m.StreamSeq, m.Tournament, m.Data))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 8 || got[0] != "3:a:2\n" || got[7] != "10:b:9\n" {
		t.Errorf("Scan(3..10) = %q", got)
	}
	got = nil
	lastB, _ := l.LastSubjectSeq(ctx, "b")
	if err := l.Scan(ctx, 1, lastB, "b", func(m events.StoredCommit) error {
		got = append(got, m.Tournament)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 {
		t.Errorf("Scan of b = %v, want 5 messages", got)
	}

	// Follow delivers messages appended after it started.
	fctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	seen := make(chan uint64, 20)
	go func() {
		_ = l.Follow(fctx, last+1, "", func(m events.StoredCommit) error { seen <- m.StreamSeq; return nil })
	}()
	exp, _ := l.LastSubjectSeq(ctx, "a")
	a, err := l.Append(ctx, "a", exp, "", []byte("late\n"))
	if err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-seen:
		if s != a.StreamSeq {
			t.Errorf("Follow delivered %d, want %d", s, a.StreamSeq)
		}
	case <-fctx.Done():
		t.Fatal("Follow did not deliver a later append")
	}
}

// TestScansLeaveNoConsumerBehind: more scans one after the other than the
// stream takes consumers (1,000 by default), each ended early or read to
// its end, all read the log, and the stream's consumers are back to what
// they were before.
func TestScansLeaveNoConsumerBehind(t *testing.T) {
	ctx := context.Background()
	l := startLog(t)
	var last uint64
	for i := range 3 {
		a, err := l.Append(ctx, "t1", last, fmt.Sprintf("t1/k%d", i), fmt.Appendf(nil, "line %d\n", i))
		if err != nil {
			t.Fatal(err)
		}
		last = a.StreamSeq
	}
	before, err := l.Consumers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("enough")
	for i := range 1_100 {
		n := 0
		err := l.Scan(ctx, 1, last, "t1", func(events.StoredCommit) error {
			n++
			if i%2 == 1 {
				return stop // a reader that leaves early (a client gone)
			}
			return nil
		})
		if i%2 == 1 && errors.Is(err, stop) {
			err = nil
		}
		if err != nil || (i%2 == 0 && n != 3) {
			t.Fatalf("scan %d: %d messages, %v", i+1, n, err)
		}
	}
	after, err := l.Consumers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("consumers after 1,100 scans: %d, want %d as before", after, before)
	}
}

// TestAFollowWhoseConsumerIsGoneFollowsAgain: the consumer a follow reads
// through is deleted under it (as when its server goes away); the follow
// goes on with a new one from the next sequence, delivering every message
// once, in order, and leaves no consumer behind when it returns.
func TestAFollowWhoseConsumerIsGoneFollowsAgain(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	l := startLog(t)
	var last uint64
	appendOne := func(i int) {
		t.Helper()
		a, err := l.Append(ctx, "t1", last, fmt.Sprintf("t1/k%d", i), fmt.Appendf(nil, "line %d\n", i))
		if err != nil {
			t.Fatal(err)
		}
		last = a.StreamSeq
	}
	for i := range 3 {
		appendOne(i)
	}
	fctx, stop := context.WithCancel(ctx)
	seen := make(chan uint64, 100)
	done := make(chan error, 1)
	go func() {
		done <- l.Follow(fctx, 1, "", func(m events.StoredCommit) error { seen <- m.StreamSeq; return nil })
	}()
	var got []uint64
	receive := func(n int) {
		t.Helper()
		for len(got) < n {
			select {
			case s := <-seen:
				got = append(got, s)
			case <-ctx.Done():
				t.Fatalf("the follow delivered %v, want %d messages", got, n)
			}
		}
	}
	receive(3)
	for round := range 3 {
		names := l.stream.ConsumerNames(ctx)
		var deleted int
		for name := range names.Name() {
			if err := l.js.DeleteConsumer(ctx, l.opts.Stream, name); err != nil {
				t.Fatal(err)
			}
			deleted++
		}
		if deleted != 1 {
			t.Fatalf("round %d: %d consumers, want the follow's one", round, deleted)
		}
		appendOne(3 + 2*round)
		appendOne(4 + 2*round)
		receive(5 + 2*round)
	}
	for i, s := range got {
		if s != uint64(i+1) {
			t.Fatalf("the follow delivered %v, want 1..%d once each, in order", got, len(got))
		}
	}
	stop()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Follow returned %v, want context.Canceled", err)
	}
	if n, err := l.Consumers(ctx); err != nil || n != 0 {
		t.Errorf("%d consumers left behind (%v), want none", n, err)
	}
}

// TestAFollowDeliversWhatAReconnectLost: a commit in flight to the follow
// when its connection drops never arrives; after the reconnect the follow
// reads again from it, without waiting for a later commit to show the gap.
func TestAFollowDeliversWhatAReconnectLost(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ns, err := StartServer(ServerOptions{StoreDir: t.TempDir(), Listen: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	p := startMutingProxy(t, ns.Addr().String())
	writer, err := nats.Connect(ns.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	w, err := Open(ctx, writer, Options{})
	if err != nil {
		t.Fatal(err)
	}
	reader, err := nats.Connect("nats://"+p.addr, nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	r, err := Open(ctx, reader, Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := w.Append(ctx, "t1", 0, "k1", []byte("one\n"))
	if err != nil {
		t.Fatal(err)
	}
	seen := make(chan uint64, 10)
	go func() {
		_ = r.Follow(ctx, 1, "", func(m events.StoredCommit) error { seen <- m.StreamSeq; return nil })
	}()
	if s := <-seen; s != 1 {
		t.Fatalf("the follow delivered %d first, want 1", s)
	}
	link := p.mute() // what the server sends the reader is lost from here on
	if _, err := w.Append(ctx, "t1", a.StreamSeq, "k2", []byte("two\n")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the commit is sent, and lost
	link.Close()                       // the reader's connection drops
	select {
	case s := <-seen:
		if s != 2 {
			t.Errorf("after the reconnect the follow delivered %d, want 2", s)
		}
	case <-time.After(15 * time.Second):
		t.Error("the commit lost in the reconnect was not delivered within 15 s")
	}
}

// TestAFollowEndsWhenItsConnectionCloses: a connection closed for good
// ends the follow with an error; it does not ask for consumers forever.
func TestAFollowEndsWhenItsConnectionCloses(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	l := startLog(t)
	if _, err := l.Append(ctx, "t1", 0, "k0", []byte("x\n")); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	got := make(chan struct{}, 10)
	go func() {
		done <- l.Follow(ctx, 1, "", func(events.StoredCommit) error { got <- struct{}{}; return nil })
	}()
	<-got
	l.nc.Close()
	select {
	case err := <-done:
		if err == nil || ctx.Err() != nil {
			t.Errorf("Follow returned %v, want the closed connection's error", err)
		}
	case <-ctx.Done():
		t.Error("the follow went on after its connection closed")
	}
}

// mutingProxy forwards TCP connections to a server; mute makes the last
// one drop what the server sends, and returns the client's side of it.
type mutingProxy struct {
	addr  string
	mu    sync.Mutex
	links []mutedLink
}

type mutedLink struct {
	client net.Conn
	muted  *atomic.Bool
}

func startMutingProxy(t *testing.T, target string) *mutingProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	p := &mutingProxy{addr: ln.Addr().String()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			link := mutedLink{client: c, muted: new(atomic.Bool)}
			p.mu.Lock()
			p.links = append(p.links, link)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(s, c); s.Close() }()
			go func() {
				defer c.Close()
				buf := make([]byte, 32<<10)
				for {
					n, err := s.Read(buf)
					if n > 0 && !link.muted.Load() {
						if _, err := c.Write(buf[:n]); err != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return p
}

func (p *mutingProxy) mute() net.Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	link := p.links[len(p.links)-1]
	link.muted.Store(true)
	return link.client
}
