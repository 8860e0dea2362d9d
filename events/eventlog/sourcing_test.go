package eventlog

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func freeLeafPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

type fedServer struct {
	ns  *server.Server
	nc  *nats.Conn
	log *Log
}

func startFed(t *testing.T, dir string, o ServerOptions, lo Options) *fedServer {
	t.Helper()
	o.StoreDir = dir
	ns, err := StartServer(o)
	if err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect("", nats.InProcessServer(ns))
	if err != nil {
		t.Fatal(err)
	}
	l, err := Open(context.Background(), nc, lo)
	if err != nil {
		t.Fatal(err)
	}
	f := &fedServer{ns: ns, nc: nc, log: l}
	t.Cleanup(f.stop)
	return f
}

func (f *fedServer) stop() {
	if f.ns == nil {
		return
	}
	f.nc.Close()
	f.ns.Shutdown()
	f.ns.WaitForShutdown()
	f.ns = nil
}

// waitFor polls cond for up to limit.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", limit, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestSourcingAcrossDomains: what the federation relies on from the
// nats-server in go.mod. A venue's appends carry
// Nats-Expected-Last-Subject-Sequence (nats-server #5240/#5865: a sourcing
// stream used to check it against its own store and stall); the hub,
// sourcing each tournament from the venue's domain over a leaf link,
// gets every message in order, byte for byte, without those headers;
// appends made while the link is down arrive after it returns; a
// tournament of one venue never reaches another venue's stream; a hub
// restarted mid-way neither loses nor repeats a message.
func TestSourcingAcrossDomains(t *testing.T) {
	ctx := context.Background()
	port := freeLeafPort(t)
	hubDir := t.TempDir()
	hubOpts := ServerOptions{Name: "hub", Domain: "hub", LeafListen: &LeafListenOptions{Port: port, Venues: venuePasswords}}
	hub := startFed(t, hubDir, hubOpts, Options{Sourced: true})
	a := startFed(t, t.TempDir(), ServerOptions{Name: "va", Domain: "va", LeafRemote: &LeafRemoteOptions{URL: venueURL(port, "va", "pa")}}, Options{})
	b := startFed(t, t.TempDir(), ServerOptions{Name: "vb", Domain: "vb", LeafRemote: &LeafRemoteOptions{URL: venueURL(port, "vb", "pb")}}, Options{})
	waitFor(t, 10*time.Second, "two leaf nodes", func() bool { return hub.ns.NumLeafNodes() == 2 })

	appendN := func(v *fedServer, tour string, n int) {
		t.Helper()
		for i := 0; i < n; i++ {
			last, err := v.log.LastSubjectSeq(ctx, tour)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := v.log.Append(ctx, tour, last, fmt.Sprintf("%s/%d-%d", tour, last, i), []byte(fmt.Sprintf("%s line %d\n", tour, last))); err != nil {
				t.Fatal(err)
			}
		}
	}
	appendN(a, "ta", 3)
	appendN(b, "tb", 2)
	appendN(b, "other", 1) // on B, never sourced
	// The venue stores the header it was given? Either way the hub must not.
	if got, err := hub.log.RemoteTournaments(ctx, "va", ""); err != nil || got["ta"] != 3 {
		t.Fatalf("RemoteTournaments(va) = %v, %v; want ta: 3", got, err)
	}
	if err := hub.log.AddSource(ctx, "va", "", "ta"); err != nil {
		t.Fatal(err)
	}
	if err := hub.log.AddSource(ctx, "vb", "", "tb"); err != nil {
		t.Fatal(err)
	}
	hubCount := func() uint64 { n, _ := hub.log.LastSeq(ctx); return n }
	waitFor(t, 20*time.Second, "5 messages at the hub", func() bool { return hubCount() == 5 })

	// The hub down (both venues' links with it): the venues go on
	// appending; the hub, back on its store, catches up without losing
	// or repeating a message.
	hub.stop()
	appendN(a, "ta", 2)
	appendN(b, "tb", 1)
	restarted := time.Now()
	hub = startFed(t, hubDir, hubOpts, Options{Sourced: true})
	waitFor(t, 10*time.Second, "two leaf nodes again", func() bool { return hub.ns.NumLeafNodes() == 2 })
	for _, d := range []string{"va", "vb"} {
		if err := hub.log.RestartSources(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 20*time.Second, "8 messages at the hub after its restart", func() bool { return hubCount() == 8 })
	t.Logf("the restarted hub caught up in %v", time.Since(restarted).Round(time.Second))
	time.Sleep(time.Second)
	if n := hubCount(); n != 8 {
		t.Fatalf("hub holds %d messages, want 8", n)
	}

	js, _ := jetstream.New(hub.nc)
	s, err := js.Stream(ctx, "REFERTO")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for seq := uint64(1); seq <= 8; seq++ {
		m, err := s.GetMsg(ctx, seq)
		if err != nil {
			t.Fatal(err)
		}
		for k := range m.Header {
			if len(k) > 14 && k[:14] == "Nats-Expected-" {
				t.Errorf("message %d kept header %s", seq, k)
			}
		}
		got = append(got, m.Subject+" "+string(m.Data))
	}
	t.Log(got)
	var ta, tb []string
	for _, g := range got {
		if strings.HasPrefix(g, "referto.t.ta ") {
			ta = append(ta, g)
		}
		if strings.HasPrefix(g, "referto.t.tb ") {
			tb = append(tb, g)
		}
	}
	if len(ta) != 5 || len(tb) != 3 {
		t.Fatalf("hub holds %d messages of ta and %d of tb, want 5 and 3", len(ta), len(tb))
	}
	for i, g := range ta {
		if want := fmt.Sprintf("referto.t.ta ta line %d\n", i); g != want {
			t.Errorf("ta message %d = %q, want %q", i+1, g, want)
		}
	}
	if n, _ := a.log.LastSubjectSeq(ctx, "tb"); n != 0 {
		t.Errorf("venue A's stream holds tb (seq %d): a venue's tournament leaked across the hub", n)
	}
	if _, err := hub.log.Append(ctx, "x", 0, "", []byte("x\n")); err == nil {
		t.Error("appended to the hub's sourced stream")
	}
}

// venuePasswords admits venues va and vb with their passwords.
func venuePasswords(venue, password string) bool {
	return map[string]string{"va": "pa", "vb": "pb"}[venue] == password && password != ""
}

func venueURL(port int, venue, password string) string {
	return fmt.Sprintf("nats://%s:%s@127.0.0.1:%d", venue, password, port)
}

// TestVenueLinksNeedTheirCredentials: a hub that admits venues by their
// credentials takes no leaf node without them, and a leaf node with one
// venue's credentials cannot stand in for another: it serves none of the
// other venue's JetStream domain to the hub, receives none of the hub's
// requests to it, and reaches none of the hub's JetStream API.
func TestVenueLinksNeedTheirCredentials(t *testing.T) {
	ctx := context.Background()
	port := freeLeafPort(t)
	hub := startFed(t, t.TempDir(), ServerOptions{Name: "hub", Domain: "hub",
		LeafListen: &LeafListenOptions{Port: port, Venues: venuePasswords}}, Options{Sourced: true})
	for _, url := range []string{venueURL(port, "va", "wrong"), fmt.Sprintf("nats://127.0.0.1:%d", port), venueURL(port, "vc", "pa")} {
		startFed(t, t.TempDir(), ServerOptions{Name: "va", Domain: "va", LeafRemote: &LeafRemoteOptions{URL: url}}, Options{})
	}
	// An impostor: venue vb's credentials, venue va's domain, a stream
	// holding a tournament of its own.
	impostor := startFed(t, t.TempDir(), ServerOptions{Name: "va", Domain: "va",
		LeafRemote: &LeafRemoteOptions{URL: venueURL(port, "vb", "pb")}}, Options{})
	if _, err := impostor.log.Append(ctx, "ta", 0, "", []byte("forged\n")); err != nil {
		t.Fatal(err)
	}
	asked, err := impostor.nc.SubscribeSync(VenueRequestPrefix + "va.cosigned")
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the impostor's link", func() bool { return hub.ns.NumLeafNodes() == 1 })
	// The link is up and carries what vb may: a request to the hub.
	ping, err := hub.nc.Subscribe("ping", func(m *nats.Msg) { m.Respond([]byte("pong")) })
	if err != nil {
		t.Fatal(err)
	}
	defer ping.Unsubscribe()
	waitFor(t, 10*time.Second, "a request across the link", func() bool {
		_, err := impostor.nc.Request("ping", nil, 200*time.Millisecond)
		return err == nil
	})
	if n := hub.ns.NumLeafNodes(); n != 1 {
		t.Errorf("%d leaf nodes: one without credentials or with another venue's password was taken", n)
	}
	qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	got, err := hub.log.RemoteTournaments(qctx, "va", "")
	cancel()
	if err == nil {
		t.Errorf("the hub read venue va's tournaments %v from a link with vb's credentials", got)
	}
	if _, err := hub.nc.Request(VenueRequestPrefix+"va.cosigned", []byte("ta"), 300*time.Millisecond); err == nil {
		t.Error("a request of the hub to venue va was answered over vb's link")
	}
	if _, err := asked.NextMsg(100 * time.Millisecond); err == nil {
		t.Error("a request of the hub to venue va reached vb's link")
	}
	hubAPI, err := jetstream.NewWithDomain(impostor.nc, "hub")
	if err != nil {
		t.Fatal(err)
	}
	qctx, cancel = context.WithTimeout(ctx, time.Second)
	err = hubAPI.DeleteStream(qctx, "REFERTO")
	cancel()
	if err == nil {
		t.Error("a venue's link deleted the hub's stream")
	}
	if _, err := hub.log.LastSeq(ctx); err != nil {
		t.Errorf("the hub's stream after a venue's link asked to delete it: %v", err)
	}
}

// TestAVenueLinkCarriesNoRegistrySubject: a venue's leaf link does not
// carry the hub's season registry subject: what a venue's client
// publishes there never reaches the hub's registry stream, while the link
// carries other subjects.
func TestAVenueLinkCarriesNoRegistrySubject(t *testing.T) {
	ctx := context.Background()
	port := freeLeafPort(t)
	hub := startFed(t, t.TempDir(), ServerOptions{Name: "hub", Domain: "hub", LeafListen: &LeafListenOptions{Port: port, Venues: venuePasswords}}, Options{Sourced: true})
	reg, err := Open(ctx, hub.nc, Options{Stream: RegistryStream, Prefix: RegistryPrefix})
	if err != nil {
		t.Fatal(err)
	}
	venue := startFed(t, t.TempDir(), ServerOptions{Name: "va", Domain: "va", LeafRemote: &LeafRemoteOptions{URL: venueURL(port, "va", "pa")}}, Options{})
	waitFor(t, 10*time.Second, "the leaf link", func() bool { return hub.ns.NumLeafNodes() == 1 })
	ping, err := hub.nc.SubscribeSync("ping")
	if err != nil {
		t.Fatal(err)
	}
	hub.nc.Flush()
	waitFor(t, 10*time.Second, "a message across the link", func() bool {
		venue.nc.Publish("ping", []byte("x"))
		venue.nc.Publish(RegistryPrefix+"registry", []byte("forged\n"))
		venue.nc.Flush()
		_, err := ping.NextMsg(100 * time.Millisecond)
		return err == nil
	})
	venue.nc.Publish(RegistryPrefix+"registry", []byte("forged\n"))
	venue.nc.Flush()
	time.Sleep(300 * time.Millisecond)
	if n, err := reg.LastSeq(ctx); err != nil || n != 0 {
		t.Errorf("the hub's registry stream holds %d messages (%v): a venue wrote to it", n, err)
	}
	// The hub itself appends to it.
	if _, err := reg.Append(ctx, "registry", 0, "k", []byte("line\n")); err != nil {
		t.Fatal(err)
	}
	if m, err := reg.Get(ctx, 1); err != nil || m.Tournament != "registry" {
		t.Errorf("the hub's own append: %v %+v", err, m)
	}
}
