package main

import (
	"context"
	"fmt"
	"io"

	"github.com/referto/referto/api"
	"github.com/referto/referto/api/hub"
	"github.com/referto/referto/api/hub/registry"
	"github.com/referto/referto/api/node"
)

// hubCmd runs a national hub (hub.Start): its embedded NATS server accepts
// venues' leaf nodes, its JetStream sources their tournaments, and the
// HTTP API serves, read-only, those it verified, and the season registry.
func hubCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	env := envOr(getenv)
	fs := newFlags("hub", stderr)
	var c HubConfig
	fs.StringVar(&c.Data, "data", env("REFERTO_DATA", "referto-hub"), "data directory [REFERTO_DATA]")
	fs.StringVar(&c.Addr, "addr", env("REFERTO_ADDR", "127.0.0.1:8090"), "HTTP listen address [REFERTO_ADDR]")
	fs.StringVar(&c.Leaf, "leaf", env("REFERTO_LEAF", "127.0.0.1:7422"), "where venues' leaf nodes connect, HOST:PORT [REFERTO_LEAF]")
	fs.StringVar(&c.LeafCert, "leaf-cert", env("REFERTO_LEAF_CERT", ""), "TLS certificate the leaf listener presents [REFERTO_LEAF_CERT]")
	fs.StringVar(&c.LeafKey, "leaf-key", env("REFERTO_LEAF_KEY", ""), "its key [REFERTO_LEAF_KEY]")
	fs.StringVar(&c.LeafCA, "leaf-ca", env("REFERTO_LEAF_CA", ""), "CA venues' client certificates must chain to [REFERTO_LEAF_CA]")
	fs.StringVar(&c.LogLevel, "log-level", env("REFERTO_LOG_LEVEL", "info"), "debug, info, warn or error [REFERTO_LOG_LEVEL]")
	if err := parseFlags(fs, args); err != nil {
		return flagErr(err)
	}
	if err := invalid(stderr, c.Validate()); err != nil {
		return err
	}
	logger := newLogger(stderr, c.Level())
	layout := node.Layout{Dir: c.Data}
	lock, err := layout.Lock() // before anything in the directory is written
	if err != nil {
		return err
	}
	defer lock.Unlock()
	adminHash, err := adminToken(layout, getenv, stdout)
	if err != nil {
		return err
	}
	metrics := api.NewMetrics()
	so := c.StartOptions(logger, metrics)
	so.Locked = true
	h, err := hub.Start(ctx, so)
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
	ln, err := listen(c.Addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "referto hub listening on http://%s (leaf nodes on nats://%s, data %s)\n", ln.Addr(), c.Leaf, c.Data)
	logger.Info("hub listening", "addr", ln.Addr().String(), "leaf", c.Leaf, "witness", h.Witness.VerifierKey)
	return api.Serve(ctx, ln, a.Handler(), h.Node, logger)
}
