package main

import (
	"net"
	"strings"
	"testing"
	"time"
)

// A valid serve configuration: referto serve's defaults.
func validServe() ServeConfig {
	return ServeConfig{Data: "d", Addr: "127.0.0.1:8080", Replicas: "1", Sync: "always", LogLevel: "info"}
}

func TestServeConfigReportsEveryProblemAtOnce(t *testing.T) {
	c := validServe()
	if err := c.Validate(); err != nil {
		t.Fatalf("the defaults: %v", err)
	}
	c = ServeConfig{Replicas: "9", Sync: "sometimes", Addr: "nope", LogLevel: "loud", DiskReserve: "10MiB", Venue: "a.b",
		Streams: "0", StreamsPerTournament: "many"}
	err := c.Validate()
	if err == nil {
		t.Fatal("an invalid configuration validated")
	}
	for _, want := range []string{"--hub and --venue go together", `--venue "a.b"`, `--replicas "9"`, "--replicas > 1 needs --nats",
		`--sync "sometimes"`, "--data must not be empty", `--addr "nope"`, `--log-level "loud"`, `--disk-reserve "10MiB"`,
		`--streams "0": must be a positive integer`, `--streams-per-tournament "many": must be a positive integer`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the problems do not include %q:\n%v", want, err)
		}
	}
	c = validServe()
	c.Hub, c.Venue, c.NATS = "nats://hub:7422", "v1", "nats://cluster:4222"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "--hub needs the embedded server") {
		t.Errorf("--hub with --nats: %v", err)
	}
}

// TestServeConfigStreamLimits: --streams and --streams-per-tournament
// bound the live pages; left out, the server's defaults hold.
func TestServeConfigStreamLimits(t *testing.T) {
	c := validServe()
	if all, per := c.StreamLimits(); all != 0 || per != 0 {
		t.Errorf("left out: %d, %d, want 0, 0 (the defaults)", all, per)
	}
	c.Streams, c.StreamsPerTournament = "20000", "6000"
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if all, per := c.StreamLimits(); all != 20000 || per != 6000 {
		t.Errorf("StreamLimits = %d, %d, want 20000, 6000", all, per)
	}
}

func TestServeConfigNodeOptions(t *testing.T) {
	c := validServe()
	c.Replicas, c.NATS, c.Sync, c.DiskReserve = "3", "nats://cluster:4222", "2m", "1GiB"
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	o := c.NodeOptions(nil)
	if o.Data != "d" || o.NATS != c.NATS || o.Replicas != 3 || o.SyncInterval != 2*time.Minute || o.DiskReserve != 1<<30 || o.LeafRemote != nil {
		t.Errorf("NodeOptions = %+v", o)
	}
	c = validServe()
	c.Hub, c.Venue, c.HubCreds = "tls://hub:7422", "v1", "creds"
	o = c.NodeOptions(nil)
	if o.Domain != "v1" || o.LeafRemote == nil || o.LeafRemote.URL != c.Hub || o.LeafRemote.Credentials != "creds" || o.SyncInterval != 0 || o.DiskReserve != 0 {
		t.Errorf("at a venue of a hub: NodeOptions = %+v, leaf %+v", o, o.LeafRemote)
	}
}

func TestHubConfig(t *testing.T) {
	c := HubConfig{Data: "d", Addr: "127.0.0.1:8090", Leaf: "0.0.0.0:7422", LeafCA: "ca.pem", LogLevel: "warn"}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if o := c.StartOptions(nil, nil); o.Data != "d" || o.Leaf.Host != "0.0.0.0" || o.Leaf.Port != 7422 || o.Leaf.TLSCA != "ca.pem" {
		t.Errorf("StartOptions = %+v", o)
	}
	err := HubConfig{Data: "d", Addr: "x", Leaf: "7422", LogLevel: "loud"}.Validate()
	for _, want := range []string{`--leaf "7422"`, `--addr "x"`, `--log-level "loud"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("the problems do not include %q: %v", want, err)
		}
	}
}

// TestPublicURL: the address phones open is --public-url when given, else
// the first address the server listens on that is not loopback: its own,
// or, on every interface, the first interface's that is neither loopback
// nor link-local, IPv4 first; none on loopback.
func TestPublicURL(t *testing.T) {
	ifaces := func() ([]net.Addr, error) {
		return []net.Addr{
			&net.IPNet{IP: net.ParseIP("127.0.0.1"), Mask: net.CIDRMask(8, 32)},
			&net.IPNet{IP: net.ParseIP("fe80::1"), Mask: net.CIDRMask(64, 128)},
			&net.IPNet{IP: net.ParseIP("2001:db8::5"), Mask: net.CIDRMask(64, 128)},
			&net.IPNet{IP: net.ParseIP("192.168.1.20"), Mask: net.CIDRMask(24, 32)},
		}, nil
	}
	onlyV6 := func() ([]net.Addr, error) {
		return []net.Addr{&net.IPNet{IP: net.ParseIP("2001:db8::5"), Mask: net.CIDRMask(64, 128)}}, nil
	}
	tcp := func(ip string) net.Addr { return &net.TCPAddr{IP: net.ParseIP(ip), Port: 8080} }
	for _, c := range []struct {
		public string
		ln     net.Addr
		ifaces func() ([]net.Addr, error)
		want   string
	}{
		{"http://torneo.local:8080/", tcp("127.0.0.1"), ifaces, "http://torneo.local:8080"},
		{"", tcp("127.0.0.1"), ifaces, ""},
		{"", tcp("::1"), ifaces, ""},
		{"", tcp("10.0.0.7"), ifaces, "http://10.0.0.7:8080"},
		{"", tcp("0.0.0.0"), ifaces, "http://192.168.1.20:8080"},
		{"", tcp("::"), ifaces, "http://192.168.1.20:8080"},
		{"", tcp("::"), onlyV6, "http://[2001:db8::5]:8080"},
		{"", tcp("0.0.0.0"), onlyV6, ""},
	} {
		if got := PublicURL(c.public, c.ln, c.ifaces); got != c.want {
			t.Errorf("PublicURL(%q, %v) = %q, want %q", c.public, c.ln, got, c.want)
		}
	}
	for _, bad := range []string{"192.168.1.20:8080", "ftp://x", "http://", "http://x/?a=1", "http://u:p@x"} {
		c := validServe()
		c.PublicURL = bad
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "--public-url") {
			t.Errorf("--public-url %q: %v", bad, err)
		}
	}
	c := validServe()
	c.PublicURL = "https://torneo.example.org"
	if err := c.Validate(); err != nil {
		t.Errorf("--public-url https://torneo.example.org: %v", err)
	}
}
