package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/referto/referto/api/hub"
	"github.com/referto/referto/api/node"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events/eventlog"
)

// ServeConfig is the configuration of a venue's server (referto serve) as
// text, each field as its flag or environment variable gives it, so that
// Validate reports every problem at once, naming the flags. NodeOptions
// turns a valid one into the node's options.
type ServeConfig struct {
	Data string // --data, REFERTO_DATA. Required.
	Addr string // --addr, REFERTO_ADDR: the HTTP API's HOST:PORT. Required.
	// NATS is --nats, REFERTO_NATS: an existing cluster's URL; "" (the
	// default) is the embedded server.
	NATS string
	// Replicas is --replicas, REFERTO_REPLICAS: an integer from 1 to 5,
	// more than 1 only with NATS. Required (the flag's default is 1).
	Replicas string
	// Sync is --sync, REFERTO_SYNC: "always" or a positive interval of the
	// embedded server's fsync. Required (the flag's default is always).
	Sync string
	// LogLevel is --log-level, REFERTO_LOG_LEVEL: debug, info, warn or
	// error. Required (the flag's default is info).
	LogLevel string
	// DiskReserve is --disk-reserve, REFERTO_DISK_RESERVE: bytes, or a
	// number followed by KiB, MiB, GiB or TiB. The default ("") is
	// node.DefaultDiskReserve.
	DiskReserve string
	// Hub is --hub, REFERTO_HUB: the hub's leaf node URL; Venue, --venue,
	// REFERTO_VENUE, this venue's name there (its JetStream domain). Both
	// or neither.
	Hub, Venue string
	// HubCreds, HubCA, HubCert, HubKey: --hub-creds, --hub-ca,
	// --hub-cert, --hub-key: credentials and TLS files for the link.
	HubCreds, HubCA, HubCert, HubKey string
	// PublicURL is --public-url, REFERTO_PUBLIC_URL: the address players'
	// phones open this server at (http://192.168.1.20:8080), printed in
	// the slips' QR codes. The default ("") is the first address the
	// server listens on that is not loopback (PublicURL).
	PublicURL string
	// Streams is --streams, REFERTO_STREAMS: the most live streams (pages
	// following a tournament) served at once; StreamsPerTournament,
	// --streams-per-tournament, REFERTO_STREAMS_PER_TOURNAMENT, the most
	// of one tournament. Positive integers; the defaults ("") are
	// DefaultMaxStreams and DefaultMaxStreamsPerTournament.
	Streams, StreamsPerTournament string
}

// StreamLimits are Options.MaxStreams and MaxStreamsPerTournament as the
// flags give them (0: the default).
func (c ServeConfig) StreamLimits() (all, perTournament int) {
	all, _ = positive("--streams", c.Streams)
	perTournament, _ = positive("--streams-per-tournament", c.StreamsPerTournament)
	return all, perTournament
}

// positive parses a flag's positive integer; "" is 0, the default.
func positive(flag, s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s %q: must be a positive integer", flag, s)
	}
	return n, nil
}

// Validate reports every problem at once.
func (c ServeConfig) Validate() error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if (c.Hub == "") != (c.Venue == "") {
		add(errors.New("--hub and --venue go together"))
	}
	if c.Venue != "" && !hub.ValidVenue(c.Venue) {
		add(fmt.Errorf("--venue %q: a name without dots, spaces or wildcards, other than hub", c.Venue))
	}
	if c.Hub != "" && c.NATS != "" {
		add(errors.New("--hub needs the embedded server (no --nats)"))
	}
	n, err := c.replicas()
	add(err)
	if c.NATS == "" && n > 1 {
		add(errors.New("--replicas > 1 needs --nats: the embedded server is a single node"))
	}
	_, err = c.syncInterval()
	add(err)
	if c.Data == "" {
		add(errors.New("--data must not be empty"))
	}
	add(checkAddr(c.Addr))
	_, err = parseLevel(c.LogLevel)
	add(err)
	_, err = c.diskReserve()
	add(err)
	if c.PublicURL != "" {
		add(checkPublicURL(c.PublicURL))
	}
	_, err = positive("--streams", c.Streams)
	add(err)
	_, err = positive("--streams-per-tournament", c.StreamsPerTournament)
	add(err)
	return errors.Join(errs...)
}

// checkPublicURL checks a --public-url: an absolute http or https URL of a
// host, with no query or fragment.
func checkPublicURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("--public-url %q: the address phones open, such as http://192.168.1.20:8080", s)
	}
	return nil
}

// PublicURL is the base URL the players' personal links are printed
// with: public (--public-url) when given, else http:// and the first
// address ln listens on that is not loopback: its own, or, listening on
// every interface (0.0.0.0, ::), the first non-loopback address of
// interfaces (net.InterfaceAddrs), IPv4 first. "" when the server listens
// on loopback only: the links then follow the address each browser used.
func PublicURL(public string, ln net.Addr, interfaces func() ([]net.Addr, error)) string {
	if public != "" {
		return strings.TrimSuffix(public, "/")
	}
	tcp, ok := ln.(*net.TCPAddr)
	if !ok {
		return ""
	}
	port := strconv.Itoa(tcp.Port)
	if !tcp.IP.IsUnspecified() {
		if tcp.IP.IsLoopback() {
			return ""
		}
		return "http://" + net.JoinHostPort(tcp.IP.String(), port)
	}
	addrs, err := interfaces()
	if err != nil {
		return ""
	}
	var v6 string
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok || n.IP.IsLoopback() || n.IP.IsLinkLocalUnicast() || n.IP.IsUnspecified() {
			continue
		}
		if n.IP.To4() != nil {
			return "http://" + net.JoinHostPort(n.IP.String(), port)
		}
		if v6 == "" && tcp.IP.To4() == nil {
			v6 = "http://" + net.JoinHostPort(n.IP.String(), port)
		}
	}
	return v6
}

// Level is the level to log at (info when LogLevel is not valid).
func (c ServeConfig) Level() slog.Level {
	l, _ := parseLevel(c.LogLevel)
	return l
}

func (c ServeConfig) replicas() (int, error) {
	n, err := strconv.Atoi(c.Replicas)
	if err != nil || n < 1 || n > 5 {
		return n, fmt.Errorf("--replicas %q: must be an integer from 1 to 5", c.Replicas)
	}
	return n, nil
}

// syncInterval is 0 for "always".
func (c ServeConfig) syncInterval() (time.Duration, error) {
	if c.Sync == "always" {
		return 0, nil
	}
	d, err := time.ParseDuration(c.Sync)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("--sync %q: 'always' or a positive duration", c.Sync)
	}
	return d, nil
}

// diskReserve is 0 for the default; a reserve too small for the stores'
// worst case is refused, saying the least that fits.
func (c ServeConfig) diskReserve() (uint64, error) {
	if c.DiskReserve == "" {
		return 0, nil
	}
	n, err := parseBytes(c.DiskReserve)
	if err == nil {
		_, err = node.MemTableSizeFor(n)
	}
	if err != nil {
		return 0, fmt.Errorf("--disk-reserve %q: %v", c.DiskReserve, err)
	}
	return n, nil
}

// HubConfig is the configuration of a national hub (referto hub) as text,
// each field as its flag or environment variable gives it; StartOptions
// (start.go) turns a valid one into the hub's options.
type HubConfig struct {
	Data string // --data, REFERTO_DATA. Required.
	Addr string // --addr, REFERTO_ADDR: the HTTP API's HOST:PORT. Required.
	// Leaf is --leaf, REFERTO_LEAF: where venues' leaf nodes connect,
	// HOST:PORT. Required.
	Leaf string
	// LeafCert and LeafKey (--leaf-cert, --leaf-key) are the TLS
	// certificate the listener presents, and LeafCA (--leaf-ca) what
	// venues' client certificates must chain to. Each venue's link
	// presents its own password, which the administrator issues through
	// the API (POST /v1/venues/{venue}/link).
	LeafCert, LeafKey, LeafCA string
	// LogLevel is --log-level, REFERTO_LOG_LEVEL, as ServeConfig's.
	LogLevel string
}

// Validate reports every problem at once.
func (c HubConfig) Validate() error {
	var errs []error
	if _, _, err := c.leaf(); err != nil {
		errs = append(errs, err)
	}
	if err := checkAddr(c.Addr); err != nil {
		errs = append(errs, err)
	}
	if _, err := parseLevel(c.LogLevel); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Level is the level to log at (info when LogLevel is not valid).
func (c HubConfig) Level() slog.Level {
	l, _ := parseLevel(c.LogLevel)
	return l
}

// leaf splits Leaf into its host and port.
func (c HubConfig) leaf() (string, int, error) {
	host, p, err := net.SplitHostPort(c.Leaf)
	port, perr := strconv.Atoi(p)
	if err != nil || perr != nil || port < 0 {
		return "", 0, fmt.Errorf("--leaf %q: want HOST:PORT", c.Leaf)
	}
	return host, port, nil
}

// checkAddr checks an HTTP listen address (--addr).
func checkAddr(addr string) error {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return fmt.Errorf("--addr %q: %v", addr, err)
	}
	return nil
}

// parseLevel reads a log level (--log-level).
func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return l, fmt.Errorf("--log-level %q: debug, info, warn or error", s)
	}
	return l, nil
}

// parseBytes reads a size: bytes, or a number followed by KiB, MiB, GiB or
// TiB.
func parseBytes(s string) (uint64, error) {
	num := strings.TrimRight(s, "KMGTiBkmgtib ")
	unit := strings.ToLower(strings.TrimSpace(s[len(num):]))
	shift, ok := map[string]uint{"": 0, "b": 0, "kib": 10, "mib": 20, "gib": 30, "tib": 40}[unit]
	n, err := strconv.ParseUint(num, 10, 64)
	if err != nil || !ok || n > (1<<63)>>shift {
		return 0, errors.New("want a size such as 512MiB or 2GiB")
	}
	return n << shift, nil
}

// NodeOptions are the options of the node a valid configuration
// (Validate) runs, logging to logger: at a venue of a hub, its JetStream
// domain is the venue's name and its embedded server a leaf node of the
// hub's.
func (c ServeConfig) NodeOptions(logger *slog.Logger) node.NodeOptions {
	replicas, _ := c.replicas()
	sync, _ := c.syncInterval()
	reserve, _ := c.diskReserve()
	o := node.NodeOptions{Data: c.Data, NATS: c.NATS, Replicas: replicas, SyncInterval: sync, Logger: logger, DiskReserve: reserve}
	if c.Hub != "" {
		o.Domain = c.Venue
		o.LeafRemote = &eventlog.LeafRemoteOptions{URL: c.Hub, Credentials: c.HubCreds, TLSCA: c.HubCA, TLSCert: c.HubCert, TLSKey: c.HubKey}
	}
	return o
}

// StartOptions are the options of the hub a valid configuration
// (Validate) runs, logging to logger, its node's commits observed by
// observer.
func (c HubConfig) StartOptions(logger *slog.Logger, observer ledger.Observer) hub.StartOptions {
	host, port, _ := c.leaf()
	return hub.StartOptions{Data: c.Data, Logger: logger, Observer: observer,
		Leaf: eventlog.LeafListenOptions{Host: host, Port: port, TLSCert: c.LeafCert, TLSKey: c.LeafKey, TLSCA: c.LeafCA}}
}
