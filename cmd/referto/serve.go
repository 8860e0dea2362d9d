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
	"net/url"
	"os"

	"golang.org/x/term"

	"github.com/referto/referto/api"
	"github.com/referto/referto/api/hub"
	"github.com/referto/referto/api/node"
)

// parseServe reads serve's flags, each defaulting to the environment
// variable named beside it, and checks them all at once
// (ServeConfig.Validate).
func parseServe(args []string, getenv func(string) string, stderr io.Writer) (ServeConfig, error) {
	env := envOr(getenv)
	var c ServeConfig
	fs := newFlags("serve", stderr)
	fs.StringVar(&c.Data, "data", env("REFERTO_DATA", "referto-data"), "data directory: nats/ (embedded JetStream), projections/ (Pebble), keys/ [REFERTO_DATA]")
	fs.StringVar(&c.Addr, "addr", env("REFERTO_ADDR", "127.0.0.1:8080"), "HTTP listen address; port 0 picks a free port [REFERTO_ADDR]")
	fs.StringVar(&c.NATS, "nats", env("REFERTO_NATS", ""), "URL of an existing NATS cluster to use instead of the embedded server [REFERTO_NATS]")
	c.Replicas = env("REFERTO_REPLICAS", "1")
	fs.Func("replicas", "stream replicas (1, 3 or 5 on a cluster) [REFERTO_REPLICAS] (default 1)", func(s string) error {
		c.Replicas = s
		return nil
	})
	fs.StringVar(&c.Sync, "sync", env("REFERTO_SYNC", "always"), "embedded JetStream fsync policy: 'always' (every write is on disk before it is acknowledged) or an interval such as 2m (faster; acknowledged writes can be lost on power failure) [REFERTO_SYNC]")
	fs.StringVar(&c.LogLevel, "log-level", env("REFERTO_LOG_LEVEL", "info"), "debug, info, warn or error [REFERTO_LOG_LEVEL]")
	c.DiskReserve = env("REFERTO_DISK_RESERVE", "")
	fs.Func("disk-reserve", fmt.Sprintf("free space on the data disk below which commands are refused, e.g. 128MiB; a reserve below the default gets the projections smaller memtables, to fit [REFERTO_DISK_RESERVE] (default %dMiB)", node.DefaultDiskReserve>>20), func(s string) error {
		c.DiskReserve = s
		return nil
	})
	fs.StringVar(&c.Hub, "hub", env("REFERTO_HUB", ""), "the national hub's leaf node URL, nats://HOST:PORT (tls:// for TLS): this venue syncs to it whenever the link is up [REFERTO_HUB]")
	fs.StringVar(&c.Venue, "venue", env("REFERTO_VENUE", ""), "this venue's name at the hub (required with --hub) [REFERTO_VENUE]")
	fs.StringVar(&c.HubCreds, "hub-creds", env("REFERTO_HUB_CREDS", ""), "NATS credentials file for the hub link [REFERTO_HUB_CREDS]")
	fs.StringVar(&c.HubCA, "hub-ca", env("REFERTO_HUB_CA", ""), "CA file the hub's TLS certificate must chain to [REFERTO_HUB_CA]")
	fs.StringVar(&c.HubCert, "hub-cert", env("REFERTO_HUB_CERT", ""), "this venue's TLS client certificate for the hub link [REFERTO_HUB_CERT]")
	fs.StringVar(&c.HubKey, "hub-key", env("REFERTO_HUB_KEY", ""), "its key [REFERTO_HUB_KEY]")
	fs.StringVar(&c.PublicURL, "public-url", env("REFERTO_PUBLIC_URL", ""), "the address players' phones open this server at, printed in the slips' QR codes, e.g. http://192.168.1.20:8080 (default: the first address it listens on that is not loopback) [REFERTO_PUBLIC_URL]")
	fs.StringVar(&c.Streams, "streams", env("REFERTO_STREAMS", ""), fmt.Sprintf("the most live pages (streams) served at once [REFERTO_STREAMS] (default %d)", api.DefaultMaxStreams))
	fs.StringVar(&c.StreamsPerTournament, "streams-per-tournament", env("REFERTO_STREAMS_PER_TOURNAMENT", ""), fmt.Sprintf("the most live pages of one tournament served at once [REFERTO_STREAMS_PER_TOURNAMENT] (default %d)", api.DefaultMaxStreamsPerTournament))
	if err := parseFlags(fs, args); err != nil {
		return c, err
	}
	return c, invalid(stderr, c.Validate())
}

func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	c, err := parseServe(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	logger := newLogger(stderr, c.Level())

	layout := node.Layout{Dir: c.Data}
	// The directory is this process's before anything in it is written:
	// a second serve on it stops here, the first one's token untouched.
	lock, err := layout.Lock()
	if err != nil {
		return err
	}
	defer lock.Unlock()
	adminHash, err := adminToken(layout, getenv, stdout)
	if err != nil {
		return err
	}
	// Listen first: the players' links are printed with the address the
	// server answers at (--public-url, or the first one not loopback).
	ln, err := listen(c.Addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	public := PublicURL(c.PublicURL, ln.Addr(), net.InterfaceAddrs)
	ao := api.Options{AdminTokenSHA256: adminHash, PublicURL: public}
	ao.MaxStreams, ao.MaxStreamsPerTournament = c.StreamLimits()
	cosigned := &hub.Cosignatures{Path: layout.Cosigned()}
	if c.Hub != "" {
		if err := cosigned.Load(); err != nil {
			return err
		}
		ao.Cosigned = cosigned.Cosigned
	}
	no := c.NodeOptions(logger)
	no.Locked = true
	n, a, err := api.Start(ctx, no, ao)
	if err != nil {
		return err
	}
	defer n.Close()
	if c.Hub != "" {
		wc := &hub.Client{Venue: c.Venue, Conn: n.Conn, Store: n.Store, Signer: n.Keys.Signer, Logger: logger, Cosigned: cosigned,
			Hold: func(t string) bool { _, damaged := n.Damages.Of(t); return damaged }}
		defer wc.Start(ctx)()
		hubURL := c.Hub
		if u, err := url.Parse(c.Hub); err == nil {
			hubURL = u.Redacted() // no password in the log
		}
		logger.Info("venue of a hub", "venue", c.Venue, "hub", hubURL)
	}

	// Say where this server answers, for `referto backup --data`.
	if removeInfo, err := layout.Announce(ln.Addr()); err != nil {
		logger.Warn("cannot write "+layout.ServeInfo(), "err", err)
	} else {
		defer removeInfo()
	}
	fmt.Fprintf(stdout, "referto listening on http://%s (data %s)\n", ln.Addr(), c.Data)
	if public != "" {
		fmt.Fprintf(stdout, "players' phones open it at %s\n", public)
	} else {
		fmt.Fprintf(stdout, "listening on loopback only: players' phones cannot open their links (--addr 0.0.0.0:8080, or --public-url)\n")
	}
	logger.Info("listening", "addr", ln.Addr().String(), "data", c.Data, "nats", cmp.Or(c.NATS, "embedded"))
	// Shut down within 5 s: stop accepting and drain requests (api.Serve),
	// stop the runner, flush Pebble, drain NATS, stop the embedded server
	// (node.Close).
	return api.Serve(ctx, ln, a.Handler(), n, logger)
}

// listen binds the HTTP API's address.
func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", addr, err)
	}
	return ln, nil
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
func adminToken(layout node.Layout, getenv func(string) string, stdout io.Writer) (string, error) {
	if t := getenv("REFERTO_ADMIN_TOKEN"); t != "" {
		return api.TokenHash(t), nil
	}
	hash, token, err := layout.AdminTokenHash(nil)
	if token != "" {
		fmt.Fprintf(stdout, "admin token (shown once, only its hash is kept in %s): %s\n", layout.AdminToken(), token)
	}
	return hash, err
}
