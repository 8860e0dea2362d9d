package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/referto/referto/api"
	"github.com/referto/referto/commands/hub"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events/jetstream"
)

// serveConfig is the configuration of `referto serve`. Every flag may also
// come from the environment variable named beside it.
type serveConfig struct {
	Data     string // --data, REFERTO_DATA
	Addr     string // --addr, REFERTO_ADDR
	NATS     string // --nats, REFERTO_NATS
	Replicas int    // --replicas, REFERTO_REPLICAS
	Sync     string // --sync, REFERTO_SYNC
	LogLevel string // --log-level, REFERTO_LOG_LEVEL
	// DiskReserve is --disk-reserve, REFERTO_DISK_RESERVE, parsed (0: the default).
	DiskReserve uint64
	// Hub is --hub, REFERTO_HUB: the hub's leaf node URL; Venue, --venue
	// REFERTO_VENUE, this venue's name there (its JetStream domain).
	Hub, Venue string
	// HubCreds, HubCA, HubCert, HubKey: --hub-creds, --hub-ca,
	// --hub-cert, --hub-key: credentials and TLS files for the link.
	HubCreds, HubCA, HubCert, HubKey string
	syncIvl                          time.Duration // parsed Sync
}

func parseServe(args []string, getenv func(string) string, stderr io.Writer) (serveConfig, error) {
	env := envOr(getenv)
	var c serveConfig
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.Data, "data", env("REFERTO_DATA", "referto-data"), "data directory: nats/ (embedded JetStream), projections/ (Pebble), keys/ [REFERTO_DATA]")
	fs.StringVar(&c.Addr, "addr", env("REFERTO_ADDR", "127.0.0.1:8080"), "HTTP listen address; port 0 picks a free port [REFERTO_ADDR]")
	fs.StringVar(&c.NATS, "nats", env("REFERTO_NATS", ""), "URL of an existing NATS cluster to use instead of the embedded server [REFERTO_NATS]")
	replicas := env("REFERTO_REPLICAS", "1")
	fs.Func("replicas", "stream replicas (1, 3 or 5 on a cluster) [REFERTO_REPLICAS] (default 1)", func(s string) error {
		replicas = s
		return nil
	})
	fs.StringVar(&c.Sync, "sync", env("REFERTO_SYNC", "always"), "embedded JetStream fsync policy: 'always' (every write is on disk before it is acknowledged) or an interval such as 2m (faster; acknowledged writes can be lost on power failure) [REFERTO_SYNC]")
	fs.StringVar(&c.LogLevel, "log-level", env("REFERTO_LOG_LEVEL", "info"), "debug, info, warn or error [REFERTO_LOG_LEVEL]")
	reserve := env("REFERTO_DISK_RESERVE", "")
	fs.Func("disk-reserve", fmt.Sprintf("free space on the data disk below which commands are refused, e.g. 128MiB; a reserve below the default gets the projections smaller memtables, to fit [REFERTO_DISK_RESERVE] (default %dMiB)", ledger.DefaultDiskReserve>>20), func(s string) error {
		reserve = s
		return nil
	})
	fs.StringVar(&c.Hub, "hub", env("REFERTO_HUB", ""), "the national hub's leaf node URL, nats://HOST:PORT (tls:// for TLS): this venue syncs to it whenever the link is up [REFERTO_HUB]")
	fs.StringVar(&c.Venue, "venue", env("REFERTO_VENUE", ""), "this venue's name at the hub (required with --hub) [REFERTO_VENUE]")
	fs.StringVar(&c.HubCreds, "hub-creds", env("REFERTO_HUB_CREDS", ""), "NATS credentials file for the hub link [REFERTO_HUB_CREDS]")
	fs.StringVar(&c.HubCA, "hub-ca", env("REFERTO_HUB_CA", ""), "CA file the hub's TLS certificate must chain to [REFERTO_HUB_CA]")
	fs.StringVar(&c.HubCert, "hub-cert", env("REFERTO_HUB_CERT", ""), "this venue's TLS client certificate for the hub link [REFERTO_HUB_CERT]")
	fs.StringVar(&c.HubKey, "hub-key", env("REFERTO_HUB_KEY", ""), "its key [REFERTO_HUB_KEY]")
	if err := parseFlags(fs, args); err != nil {
		return c, err
	}
	var errs []error
	if (c.Hub == "") != (c.Venue == "") {
		errs = append(errs, errors.New("--hub and --venue go together"))
	}
	if c.Venue != "" && !hub.ValidVenue(c.Venue) {
		errs = append(errs, fmt.Errorf("--venue %q: a name without dots, spaces or wildcards, other than hub", c.Venue))
	}
	if c.Hub != "" && c.NATS != "" {
		errs = append(errs, errors.New("--hub needs the embedded server (no --nats)"))
	}
	n, err := strconv.Atoi(replicas)
	if err != nil || n < 1 || n > 5 {
		errs = append(errs, fmt.Errorf("--replicas %q: must be an integer from 1 to 5", replicas))
	}
	c.Replicas = n
	if c.NATS == "" && n > 1 {
		errs = append(errs, errors.New("--replicas > 1 needs --nats: the embedded server is a single node"))
	}
	if c.Sync != "always" {
		d, err := time.ParseDuration(c.Sync)
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("--sync %q: 'always' or a positive duration", c.Sync))
		}
		c.syncIvl = d
	}
	if c.Data == "" {
		errs = append(errs, errors.New("--data must not be empty"))
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		errs = append(errs, fmt.Errorf("--addr %q: %v", c.Addr, err))
	}
	if _, err := parseLevel(c.LogLevel); err != nil {
		errs = append(errs, err)
	}
	if reserve != "" {
		n, err := parseBytes(reserve)
		if err == nil {
			_, err = ledger.MemTableSizeFor(n)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("--disk-reserve %q: %v", reserve, err))
		}
		c.DiskReserve = n
	}
	if len(errs) > 0 {
		err := errors.Join(errs...)
		fmt.Fprintf(stderr, "invalid configuration:\n%v\n", err)
		return c, err
	}
	return c, nil
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

func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return l, fmt.Errorf("--log-level %q: debug, info, warn or error", s)
	}
	return l, nil
}

func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	c, err := parseServe(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	level, _ := parseLevel(c.LogLevel)
	logger := newLogger(stderr, level)

	layout := ledger.Layout{Dir: c.Data}
	adminHash, err := adminToken(layout, getenv, stdout)
	if err != nil {
		return err
	}
	no := ledger.NodeOptions{Data: c.Data, NATS: c.NATS, Replicas: c.Replicas,
		SyncInterval: c.syncIvl, Logger: logger, DiskReserve: c.DiskReserve}
	if c.Hub != "" {
		no.Domain = c.Venue
		no.LeafRemote = &jetstream.LeafRemoteOptions{URL: c.Hub, Credentials: c.HubCreds, TLSCA: c.HubCA, TLSCert: c.HubCert, TLSKey: c.HubKey}
	}
	ao := api.Options{AdminTokenSHA256: adminHash}
	cosigned := &hub.Cosignatures{}
	if c.Hub != "" {
		ao.Cosigned = cosigned.Cosigned
	}
	node, a, err := api.Start(ctx, no, ao)
	if err != nil {
		return err
	}
	defer node.Close()
	if c.Hub != "" {
		wc := &hub.Client{Venue: c.Venue, Conn: node.Conn, Store: node.Store, Signer: node.Keys.Signer, Logger: logger, Cosigned: cosigned}
		defer wc.Start(ctx)()
		hubURL := c.Hub
		if u, err := url.Parse(c.Hub); err == nil {
			hubURL = u.Redacted() // no password in the log
		}
		logger.Info("venue of a hub", "venue", c.Venue, "hub", hubURL)
	}

	ln, err := listen(c.Addr)
	if err != nil {
		return err
	}
	// Say where this server answers, for `referto backup --data`.
	if removeInfo, err := layout.Announce(ln.Addr()); err != nil {
		logger.Warn("cannot write "+layout.ServeInfo(), "err", err)
	} else {
		defer removeInfo()
	}
	fmt.Fprintf(stdout, "referto listening on http://%s (data %s)\n", ln.Addr(), c.Data)
	logger.Info("listening", "addr", ln.Addr().String(), "data", c.Data, "nats", cmp.Or(c.NATS, "embedded"))
	// Shut down within 5 s: stop accepting and drain requests (serveUntil),
	// stop the runner, flush Pebble, drain NATS, stop the embedded server
	// (node.Close).
	return serveUntil(ctx, ln, a.Handler(), node, logger)
}

// listen binds the HTTP API's address.
func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	return ln, nil
}

// serveUntil serves h on ln until ctx is done, the server fails or node's
// projections stop. When ctx is done it stops accepting and drains the
// requests, for up to 3 s, and returns nil.
func serveUntil(ctx context.Context, ln net.Listener, h http.Handler, node *ledger.Node, logger *slog.Logger) error {
	srv := api.HTTPServer(h)
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err := <-serveErr:
		return fmt.Errorf("http: %w", err)
	case <-node.RunnerDone():
		return fmt.Errorf("projections stopped: %w", node.Runner.Err())
	}
	logger.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	return nil
}

// newLogger logs at level and above to w: text for a person at a terminal,
// JSON lines for anything else (a file, a pipe, a log collector).
func newLogger(w io.Writer, level slog.Level) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

// adminToken returns the hex SHA-256 of the administrator's token: from
// REFERTO_ADMIN_TOKEN, or the hash the layout keeps, or a new token printed
// once to stdout whose hash the layout then keeps.
func adminToken(layout ledger.Layout, getenv func(string) string, stdout io.Writer) (string, error) {
	if t := getenv("REFERTO_ADMIN_TOKEN"); t != "" {
		return api.TokenHash(t), nil
	}
	hash, token, err := layout.AdminTokenHash(nil)
	if token != "" {
		fmt.Fprintf(stdout, "admin token (shown once, only its hash is kept in %s): %s\n", layout.AdminToken(), token)
	}
	return hash, err
}
