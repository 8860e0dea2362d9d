package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/referto/referto/api"
	"github.com/referto/referto/api/client"
	"github.com/referto/referto/cmd/referto/demo"
	"github.com/referto/referto/commands/ledger"
)

// demoConfig is the configuration of `referto demo`.
type demoConfig struct {
	players int
	seed    uint64
	data    string
	addr    string
}

func parseDemo(args []string, stderr io.Writer) (demoConfig, error) {
	var c demoConfig
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&c.players, "players", 140, "players registered (more than 130 who play game 1 bring the quarterfinals)")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of every random choice: the same seed gives the same tournament and the same output")
	fs.StringVar(&c.data, "data", "", "data directory (default: a new temporary directory, kept afterwards)")
	fs.StringVar(&c.addr, "addr", "127.0.0.1:0", "HTTP listen address of the API the demo plays through; port 0 picks a free port")
	if err := parseFlags(fs, args); err != nil {
		return c, err
	}
	if c.players < 16 || c.players > 5000 {
		fmt.Fprintln(stderr, "--players must be between 16 and 5000")
		return c, errUsage
	}
	if _, _, err := net.SplitHostPort(c.addr); err != nil {
		fmt.Fprintf(stderr, "--addr %q: %v\n", c.addr, err)
		return c, errUsage
	}
	return c, nil
}

// demoCmd simulates a whole Raduno (package demo) through the real stack:
// embedded NATS JetStream, Pebble and the HTTP API on a loopback port.
// Progress and the final classification go to stdout, identical for the
// same seed; the data directory and timings go to stderr.
func demoCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseDemo(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	start := time.Now()
	dir := c.data
	if dir == "" {
		if dir, err = os.MkdirTemp("", "referto-demo-"); err != nil {
			return err
		}
	}
	tok := make([]byte, 32)
	if _, err := rand.Read(tok); err != nil {
		return err
	}
	admin := hex.EncodeToString(tok)
	node, a, err := api.Start(ctx, ledger.NodeOptions{Data: dir, Logger: slog.New(slog.DiscardHandler)}, api.Options{AdminTokenSHA256: api.TokenHash(admin)})
	if err != nil {
		return err
	}
	defer node.Close()
	if err := node.Runner.WaitReady(ctx); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %w", c.addr, err)
	}
	srv := api.HTTPServer(a.Handler())
	go func() { _ = srv.Serve(ln) }()
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	fmt.Fprintf(stderr, "demo: data directory %s (kept), API on http://%s\n", dir, ln.Addr())

	cl := &client.Client{Base: "http://" + ln.Addr().String(), Token: admin, RetryUnavailable: 20,
		HTTP: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 4}}}
	n, err := demo.Play(ctx, cl, demo.Options{Players: c.players, Seed: c.seed, Out: stdout})
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "demo: %d commands in %s\n", n, time.Since(start).Round(time.Millisecond))
	return nil
}
