package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"time"

	"github.com/referto/referto/api"
	"github.com/referto/referto/commands/hub"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/commands/registry"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/jetstream"
)

// hubConfig is referto hub's configuration, from its flags and
// environment.
type hubConfig struct {
	data, addr, leaf string
	leafListen       jetstream.LeafListenOptions
	level            slog.Level
}

// parseHubFlags reads referto hub's flags, reporting every bad one at once.
func parseHubFlags(args []string, getenv func(string) string, stderr io.Writer) (hubConfig, error) {
	env := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
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
		return hubConfig{}, flagErr(err)
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
		return hubConfig{}, err
	}
	return hubConfig{data: *data, addr: *addr, leaf: *leaf, level: lv,
		leafListen: jetstream.LeafListenOptions{Host: lhost, Port: port, Username: *user, Password: *pass, TLSCert: *cert, TLSKey: *key, TLSCA: *ca}}, nil
}

// hubCmd runs a national hub: its embedded NATS server accepts venues'
// leaf nodes, its JetStream sources their tournaments, and the HTTP API
// serves, read-only, those it verified, and the season registry.
func hubCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := parseHubFlags(args, getenv, stderr)
	if err != nil {
		return err
	}
	logger := newLogger(stderr, cfg.level)
	layout := ledger.Layout{Dir: cfg.data}
	adminHash, err := adminToken(layout, getenv, stdout)
	if err != nil {
		return err
	}
	metrics := api.NewMetrics()
	// A venue's tournament the hub's projections cannot apply is set
	// aside and quarantined, not the end of the hub.
	var setAside = make(chan [2]string, 16)
	tolerate := func(t string, _ uint64, err error) bool {
		select {
		case setAside <- [2]string{t, err.Error()}:
		default:
		}
		return true
	}
	node, err := ledger.StartNode(ctx, ledger.NodeOptions{Data: cfg.data, Logger: logger, Observer: metrics, Domain: "hub", Sourced: true, Tolerate: tolerate,
		LeafListen: &cfg.leafListen})
	if err != nil {
		return err
	}
	defer node.Close()
	witness, err := checkpoint.LoadOrCreateWitness(layout.Keys(), "referto-hub", rand.Reader)
	if err != nil {
		return err
	}
	h, err := hub.New(hub.Options{Log: node.Log, Store: node.Store, Conn: node.Conn, Witness: witness,
		StatePath: layout.HubState(), Logger: logger})
	if err != nil {
		return err
	}
	hctx, stopHub := context.WithCancel(ctx)
	hubDone := make(chan struct{})
	go func() { defer close(hubDone); _ = h.Run(hctx) }()
	go func() {
		for {
			select {
			case <-hctx.Done():
				return
			case a := <-setAside:
				h.Quarantine(a[0], 0, "the hub cannot apply its events: "+a[1])
			}
		}
	}()
	defer func() { stopHub(); <-hubDone }()
	// The season registry: the hub's own log, beside the venues'.
	reg, err := registry.Open(ctx, registry.Options{Conn: node.Conn, Keys: node.Keys,
		Roster: registry.NewRoster(node.Store, node.Runner), Logger: logger})
	if err != nil {
		return err
	}
	a, err := api.New(api.Options{Node: node, AdminTokenSHA256: adminHash, Logger: logger, Metrics: metrics, Hub: h, Registry: reg})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", cfg.addr, err)
	}
	srv := api.HTTPServer(a.Handler())
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "referto hub listening on http://%s (leaf nodes on nats://%s, data %s)\n", ln.Addr(), cfg.leaf, cfg.data)
	logger.Info("hub listening", "addr", ln.Addr().String(), "leaf", cfg.leaf, "witness", witness.VerifierKey)
	select {
	case <-ctx.Done():
	case err := <-serveErr:
		return fmt.Errorf("http: %w", err)
	case <-node.RunnerDone():
		return fmt.Errorf("projections stopped: %w", node.Runner.Err())
	}
	sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	return nil
}
