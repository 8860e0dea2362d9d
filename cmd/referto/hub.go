package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"strconv"

	"github.com/referto/referto/api"
	"github.com/referto/referto/commands/hub"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/commands/registry"
	"github.com/referto/referto/events/jetstream"
)

// hubCmd runs a national hub (hub.Start): its embedded NATS server accepts
// venues' leaf nodes, its JetStream sources their tournaments, and the
// HTTP API serves, read-only, those it verified, and the season registry.
func hubCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	env := envOr(getenv)
	fs := flag.NewFlagSet("hub", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", env("REFERTO_DATA", "referto-hub"), "data directory [REFERTO_DATA]")
	addr := fs.String("addr", env("REFERTO_ADDR", "127.0.0.1:8090"), "HTTP listen address [REFERTO_ADDR]")
	leaf := fs.String("leaf", env("REFERTO_LEAF", "127.0.0.1:7422"), "where venues' leaf nodes connect, HOST:PORT [REFERTO_LEAF]")
	user := fs.String("leaf-user", env("REFERTO_LEAF_USER", ""), "user a venue's link must present (with --leaf-password) [REFERTO_LEAF_USER]")
	pass := fs.String("leaf-password", env("REFERTO_LEAF_PASSWORD", ""), "its password [REFERTO_LEAF_PASSWORD]")
	cert := fs.String("leaf-cert", env("REFERTO_LEAF_CERT", ""), "TLS certificate the leaf listener presents [REFERTO_LEAF_CERT]")
	key := fs.String("leaf-key", env("REFERTO_LEAF_KEY", ""), "its key [REFERTO_LEAF_KEY]")
	ca := fs.String("leaf-ca", env("REFERTO_LEAF_CA", ""), "CA venues' client certificates must chain to [REFERTO_LEAF_CA]")
	level := fs.String("log-level", env("REFERTO_LOG_LEVEL", "info"), "debug, info, warn or error [REFERTO_LOG_LEVEL]")
	if err := parseFlags(fs, args); err != nil {
		return flagErr(err)
	}
	var errs []error
	lhost, lport, err := net.SplitHostPort(*leaf)
	port, perr := strconv.Atoi(lport)
	if err != nil || perr != nil || port < 0 {
		errs = append(errs, fmt.Errorf("--leaf %q: want HOST:PORT", *leaf))
	}
	if _, _, err := net.SplitHostPort(*addr); err != nil {
		errs = append(errs, fmt.Errorf("--addr %q: %v", *addr, err))
	}
	lv, err := parseLevel(*level)
	if err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		err := errors.Join(errs...)
		fmt.Fprintf(stderr, "invalid configuration:\n%v\n", err)
		return err
	}
	logger := newLogger(stderr, lv)
	adminHash, err := adminToken(ledger.Layout{Dir: *data}, getenv, stdout)
	if err != nil {
		return err
	}
	metrics := api.NewMetrics()
	h, err := hub.Start(ctx, hub.StartOptions{Data: *data, Logger: logger, Observer: metrics,
		Leaf: jetstream.LeafListenOptions{Host: lhost, Port: port, Username: *user, Password: *pass, TLSCert: *cert, TLSKey: *key, TLSCA: *ca}})
	if err != nil {
		return err
	}
	defer h.Close()
	// The season registry: the hub's own log, beside the venues'.
	reg, err := registry.Open(ctx, registry.Options{Conn: h.Node.Conn, Keys: h.Node.Keys,
		Roster: registry.NewRoster(h.Node.Store, h.Node.Runner), Logger: logger})
	if err != nil {
		return err
	}
	a, err := api.New(api.Options{Node: h.Node, AdminTokenSHA256: adminHash, Logger: logger, Metrics: metrics, Hub: h.Hub, Registry: reg})
	if err != nil {
		return err
	}
	ln, err := listen(*addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "referto hub listening on http://%s (leaf nodes on nats://%s, data %s)\n", ln.Addr(), *leaf, *data)
	logger.Info("hub listening", "addr", ln.Addr().String(), "leaf", *leaf, "witness", h.Witness.VerifierKey)
	return serveUntil(ctx, ln, a.Handler(), h.Node, logger)
}
