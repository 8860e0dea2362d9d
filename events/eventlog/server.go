package eventlog

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// ServerOptions configures an embedded nats-server with JetStream.
type ServerOptions struct {
	// StoreDir is where JetStream keeps its files. Required.
	StoreDir string
	// Name is the server name; the default is "referto".
	Name string
	// Listen makes the server accept client connections on Host:Port. The
	// default is no listener at all: referto connects in-process.
	Listen bool
	// Host is the listen address; the default is 127.0.0.1.
	Host string
	// Port is the client port; -1 (the default when Listen) picks a free one.
	Port int
	// SyncInterval relaxes durability: 0 (the default) fsyncs every write
	// before acknowledging it; a positive interval lets JetStream sync
	// periodically, so an acknowledged write can be lost on power failure.
	SyncInterval time.Duration
	// MaxPayload is the largest commit the server accepts, in bytes; the
	// default is DefaultMaxPayload.
	MaxPayload int32
	// Cluster joins the server to a JetStream cluster when non-nil.
	Cluster *ClusterOptions
	// Domain is the server's JetStream domain; the default is none. A venue
	// and the hub each have their own: across a leaf link each server
	// answers only its own JetStream API ($JS.<domain>.API), and the hub
	// sources a venue's stream through the venue's.
	Domain string
	// LeafListen, when set, accepts leaf node connections (the hub's
	// venues).
	LeafListen *LeafListenOptions
	// LeafRemote, when set, makes the server a leaf node of a hub: it
	// connects when it can and keeps trying while the link is down.
	LeafRemote *LeafRemoteOptions
}

// LeafListenOptions is where and how a hub accepts its venues' leaf nodes.
type LeafListenOptions struct {
	Host string // listen host; the default is 127.0.0.1
	Port int    // listen port; -1 picks a free one
	// Venues, when set, admits a leaf node only as a venue: it presents
	// the venue's name as its user and a password Venues accepts for that
	// venue (the hub's administrator issued it), and its link then serves
	// that venue's JetStream domain and requests (VenueSubjects) and
	// nothing of another venue's or of the hub's own JetStream. The
	// default (nil) admits any leaf node: tests of the link only.
	Venues func(venue, password string) bool
	// TLSCert and TLSKey are files of the certificate the hub presents; with
	// TLSCA too, a leaf node must present a certificate that CA signed.
	TLSCert, TLSKey, TLSCA string
}

// LeafRemoteOptions names the hub a venue's server is a leaf node of.
type LeafRemoteOptions struct {
	// URL is the hub's leaf node listener: nats://[user:password@]host:port
	// (tls:// for TLS).
	URL string
	// Credentials is a NATS credentials file (user JWT and seed) to
	// present; optional.
	Credentials string
	// TLSCA is a file of the CA the hub's certificate must chain to;
	// TLSCert and TLSKey, the venue's client certificate. All optional.
	TLSCA, TLSCert, TLSKey string
}

// TournamentSubjects is every subject of the log: what a venue's leaf link
// never carries in either direction (LeafRemoteOptions). The hub's copy
// of a venue's stream arrives on JetStream's own delivery subjects, and
// without the deny a venue's stream would also store what another venue
// publishes under the same subject (and the other way round).
const TournamentSubjects = "referto.t.>"

// DefaultMaxPayload is 31 MiB rather than NATS's 1 MiB: a draw records its
// inputs (every entrant and every game so far) so that it can be re-run
// from the event alone, and in a tournament of thousands of players over
// many rounds that one event outgrows 1 MiB (about 30 bytes a player a
// round). JetStream's file store refuses records over 32 MiB, so this is
// the most a commit can be. An external NATS server serving referto needs
// max_payload raised alike.
const DefaultMaxPayload = 31 << 20

// ClusterOptions configures the cluster listener and routes.
type ClusterOptions struct {
	Name   string   // cluster name, the same on every node
	Host   string   // route listen host; default 127.0.0.1
	Port   int      // route listen port; -1 picks a free one
	Routes []string // nats-route://host:port of the other nodes
}

// EnsureDefaults fills unset fields with their documented defaults.
func (o *ServerOptions) EnsureDefaults() {
	if o.Name == "" {
		o.Name = "referto"
	}
	if o.Host == "" {
		o.Host = "127.0.0.1"
	}
	if o.Listen && o.Port == 0 {
		o.Port = -1
	}
	if o.Cluster != nil && o.Cluster.Host == "" {
		o.Cluster.Host = "127.0.0.1"
	}
	if o.LeafListen != nil && o.LeafListen.Host == "" {
		o.LeafListen.Host = "127.0.0.1"
	}
	if o.MaxPayload == 0 {
		o.MaxPayload = DefaultMaxPayload
	}
}

// Validate reports every problem at once.
func (o *ServerOptions) Validate() error {
	var errs []error
	if o.StoreDir == "" {
		errs = append(errs, errors.New("jetstream: StoreDir is required"))
	}
	if o.MaxPayload < 0 || o.MaxPayload > DefaultMaxPayload {
		errs = append(errs, errors.New("jetstream: MaxPayload must be between 1 byte and 31 MiB (JetStream stores no larger record)"))
	}
	if o.SyncInterval < 0 {
		errs = append(errs, errors.New("jetstream: SyncInterval must not be negative"))
	}
	if o.Cluster != nil && o.Cluster.Name == "" {
		errs = append(errs, errors.New("jetstream: Cluster.Name is required"))
	}
	if o.Cluster != nil && !o.Listen {
		// nats-server opens the route listener only once the client
		// listener is open: without one it would never join the cluster.
		errs = append(errs, errors.New("jetstream: a clustered server needs Listen"))
	}
	if o.Domain != "" && strings.ContainsAny(o.Domain, ". *>$") {
		errs = append(errs, fmt.Errorf("jetstream: bad domain %q", o.Domain))
	}
	if o.LeafRemote != nil {
		if u, err := url.Parse(o.LeafRemote.URL); err != nil || u.Host == "" {
			errs = append(errs, fmt.Errorf("jetstream: bad hub URL %q", o.LeafRemote.URL))
		}
		if o.Domain == "" {
			errs = append(errs, errors.New("jetstream: a leaf node needs a Domain of its own"))
		}
	}
	if o.LeafListen != nil && o.Domain == "" {
		errs = append(errs, errors.New("jetstream: a hub needs a Domain of its own"))
	}
	if o.LeafListen != nil && o.LeafListen.Venues != nil && (o.Listen || o.Cluster != nil) {
		errs = append(errs, errors.New("jetstream: a hub that admits venues by their credentials takes no client or route connection but its own, in process"))
	}
	return errors.Join(errs...)
}

// StartServer starts an embedded nats-server with JetStream file storage and
// waits until it accepts connections.
func StartServer(o ServerOptions) (*server.Server, error) {
	o.EnsureDefaults()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	opts := &server.Options{
		ServerName: o.Name,
		JetStream:  true,
		StoreDir:   o.StoreDir,
		NoSigs:     true,
		NoLog:      true,
		Host:       o.Host,
		Port:       o.Port,
		DontListen: !o.Listen,
		MaxPayload: o.MaxPayload,
	}
	if o.SyncInterval == 0 {
		opts.SyncAlways = true
	} else {
		opts.SyncInterval = o.SyncInterval
	}
	if c := o.Cluster; c != nil {
		opts.Cluster = server.ClusterOpts{Name: c.Name, Host: c.Host, Port: c.Port}
		for _, r := range c.Routes {
			u, err := parseRoute(r)
			if err != nil {
				return nil, err
			}
			opts.Routes = append(opts.Routes, u)
		}
	}
	opts.JetStreamDomain = o.Domain
	if err := leafOptions(o, opts); err != nil {
		return nil, err
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("jetstream: start server: %w", err)
	}
	fatal := &fatalLog{errs: make(chan error, 1)}
	ns.SetLoggerV2(fatal, false, false, false)
	go ns.Start()
	// A listener that cannot bind (a port in use) or JetStream that cannot
	// start does not make the server fail: it logs a fatal error and never
	// becomes ready. Waiting in short steps returns that error at once
	// instead of a bare timeout after 30 s.
	deadline := time.Now().Add(30 * time.Second)
	for !ns.ReadyForConnections(50 * time.Millisecond) {
		select {
		case err := <-fatal.errs:
			ns.Shutdown()
			return nil, fmt.Errorf("jetstream: start server %s: %w", o.Name, err)
		default:
		}
		if time.Now().After(deadline) {
			ns.Shutdown()
			return nil, fmt.Errorf("jetstream: embedded server %s not ready after 30s", o.Name)
		}
	}
	return ns, nil
}

// fatalLog is the embedded server's logger: it keeps the first fatal error
// for StartServer and drops everything else, as NoLog does.
type fatalLog struct{ errs chan error }

func (l *fatalLog) Fatalf(format string, v ...any) {
	select {
	case l.errs <- fmt.Errorf(format, v...):
	default:
	}
}

func (*fatalLog) Noticef(string, ...any) {}
func (*fatalLog) Warnf(string, ...any)   {}
func (*fatalLog) Errorf(string, ...any)  {}
func (*fatalLog) Debugf(string, ...any)  {}
func (*fatalLog) Tracef(string, ...any)  {}
