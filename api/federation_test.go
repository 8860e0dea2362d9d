package api_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/referto/referto/api"
	"github.com/referto/referto/api/client"
	"github.com/referto/referto/api/hub"
	"github.com/referto/referto/api/node"
	"github.com/referto/referto/cmd/referto/demo"
	"github.com/referto/referto/events/eventlog"
)

// federation is a national hub and one venue ("v1") of it, in process:
// each a whole node (embedded NATS, Pebble, runner, ledger) with its API
// behind a loopback server, the venue's server a leaf node of the hub's,
// admitted by the password the hub issued it, and the venue's witness
// client submitting its checkpoints.
type federation struct {
	hub                *hub.Running
	hubSrv, venueSrv   *httptest.Server
	venue              *node.Node
	hubAPI, venueAdmin *client.Client
}

func newFederation(t *testing.T) *federation {
	t.Helper()
	ctx := context.Background()
	logger := slog.New(slog.NewTextHandler(testLog{t}, &slog.HandlerOptions{Level: slog.LevelError}))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	base := t.TempDir()
	h, err := hub.Start(ctx, hub.StartOptions{Data: filepath.Join(base, "hub"), Leaf: eventlog.LeafListenOptions{Port: port}, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	ha, err := api.New(api.Options{Node: h.Node, Hub: h.Hub, AdminTokenSHA256: api.TokenHash(adminToken), Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	f := &federation{hub: h, hubSrv: httptest.NewServer(ha.Handler())}
	t.Cleanup(f.hubSrv.Close)
	password, _, err := h.Hub.IssueLink("v1", "")
	if err != nil {
		t.Fatal(err)
	}
	cosigned := &hub.Cosignatures{Path: filepath.Join(base, "venue", "cosigned.json")}
	n, va, err := api.Start(ctx, node.NodeOptions{Data: filepath.Join(base, "venue"), Logger: logger, Domain: "v1",
		LeafRemote: &eventlog.LeafRemoteOptions{URL: fmt.Sprintf("nats://v1:%s@127.0.0.1:%d", password, port)}},
		api.Options{AdminTokenSHA256: api.TokenHash(adminToken), Cosigned: cosigned.Cosigned})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Close)
	if err := n.Runner.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	f.venue, f.venueSrv = n, httptest.NewServer(va.Handler())
	t.Cleanup(f.venueSrv.Close)
	wc := &hub.Client{Venue: "v1", Conn: n.Conn, Store: n.Store, Signer: n.Keys.Signer, Interval: 100 * time.Millisecond, Cosigned: cosigned, Logger: logger}
	t.Cleanup(wc.Start(ctx))
	if err := h.Hub.Register("v1", n.Keys.VerifierKey); err != nil {
		t.Fatal(err)
	}
	f.hubAPI = &client.Client{Base: f.hubSrv.URL, Token: adminToken}
	f.venueAdmin = &client.Client{Base: f.venueSrv.URL, Token: adminToken}
	return f
}

// cosigned waits until the hub has cosigned tournament t as far as the
// venue holds it, and returns that size.
func (f *federation) cosigned(t *testing.T, tour string) uint64 {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		s, err := f.venueAdmin.Tournament(context.Background(), tour)
		if err != nil {
			t.Fatal(err)
		}
		if _, n, ok := f.hub.Hub.Cosigned(tour); ok && n == s.Seq {
			return n
		}
		if time.Now().After(deadline) {
			vs, ts := f.hub.Hub.Venues()
			t.Fatalf("the hub did not cosign %s at %d events: %+v %+v", tour, s.Seq, vs, ts)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// consumersBack waits until lg's stream has want consumers again.
func consumersBack(t *testing.T, what string, lg *eventlog.Log, want int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		n, err := lg.Consumers(context.Background())
		if err == nil && n == want {
			t.Logf("%s: %d consumers, as before", what, n)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d consumers (%v), want %d as before", what, n, err, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestPastStatesCannotExhaustTheLog: 10,000 anonymous past states
// (standings?at=), 32 at a time, at a hub leave it serving exports and
// pages and witnessing its venue's next checkpoint, each answered 200 or
// 503 with Retry-After, never an error; then an auditor's 2,000 exports
// one after the other all arrive whole; and the hub's and the venue's
// streams are left with the consumers they had before.
func TestPastStatesCannotExhaustTheLog(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 requests and 2,000 exports over a hub and its venue")
	}
	ctx := context.Background()
	f := newFederation(t)
	if _, err := demo.Play(ctx, f.venueAdmin, demo.Options{Players: 16, Seed: 3, Out: io.Discard, Tournament: "ta"}); err != nil {
		t.Fatal(err)
	}
	size := f.cosigned(t, "ta")
	hubBefore, err := f.hub.Node.Log.Consumers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	venueBefore, err := f.venue.Log.Consumers(ctx)
	if err != nil {
		t.Fatal(err)
	}

	var next atomic.Int64
	var ok, busy atomic.Int64
	var bad sync.Map // status → one body
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= 10_000; i = next.Add(1) {
				res, err := http.Get(fmt.Sprintf("%s/v1/tournaments/ta/standings?at=%d", f.hubSrv.URL, 1+uint64(i)%size))
				if err != nil {
					bad.Store("transport", err.Error())
					continue
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				switch {
				case res.StatusCode == 200:
					ok.Add(1)
				case res.StatusCode == 503 && res.Header.Get("Retry-After") != "":
					busy.Add(1)
				default:
					bad.Store(res.StatusCode, string(body))
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("10,000 past states at the hub: %d answered, %d told to retry", ok.Load(), busy.Load())
	bad.Range(func(k, v any) bool {
		t.Errorf("a past state answered %v: %.300s", k, v)
		return true
	})
	if ok.Load() == 0 {
		t.Error("no past state was answered")
	}

	// The witness: the venue's next tournament is sourced, verified and
	// cosigned.
	if _, err := f.venueAdmin.CreateTournament(ctx, "", client.NewTournament{ID: "tb", Name: "Torneo B", Ruleset: "rtu"}); err != nil {
		t.Fatal(err)
	}
	f.cosigned(t, "tb")
	// Pages, and exports: an auditor's season of them.
	for _, page := range []string{"/ui/t/ta/standings", "/ui/t/ta/at/5", "/ui/t/ta/"} {
		res, err := http.Get(f.hubSrv.URL + page)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("the hub's page %s: %d", page, res.StatusCode)
		}
	}
	auditor := &client.Client{Base: f.hubSrv.URL, Token: adminToken, RetryUnavailable: 20}
	for i := range 2_000 {
		e, err := hubExportWhole(ctx, auditor, "ta")
		if err != nil {
			t.Fatalf("export %d of 2,000 at the hub: %v", i+1, err)
		}
		if e == 0 {
			t.Fatalf("export %d: empty", i+1)
		}
	}
	consumersBack(t, "the hub's stream", f.hub.Node.Log, hubBefore)
	consumersBack(t, "the venue's stream", f.venue.Log, venueBefore)
}

// hubExportWhole reads a whole export, and how many bytes it held.
func hubExportWhole(ctx context.Context, c *client.Client, tour string) (int64, error) {
	e, err := c.Export(ctx, tour)
	if err != nil {
		return 0, err
	}
	defer e.Body.Close()
	n, err := io.Copy(io.Discard, e.Body)
	if err == nil && n == 0 {
		err = errors.New("no events")
	}
	return n, err
}
