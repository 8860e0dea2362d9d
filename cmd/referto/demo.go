package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
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

// demoCmd simulates a whole Raduno (package demo) through the real stack:
// embedded NATS JetStream, Pebble and the HTTP API on a loopback port.
// Progress and the final classification go to stdout, identical for the
// same seed; the data directory and timings go to stderr.
func demoCmd(ctx context.Context, args []string, _ func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	players := fs.Int("players", 140, "players registered (more than 130 who play game 1 bring the quarterfinals)")
	seed := fs.Uint64("seed", 1, "seed of every random choice: the same seed gives the same tournament and the same output")
	dir := fs.String("data", "", "data directory (default: a new temporary directory, kept afterwards)")
	addr := fs.String("addr", "127.0.0.1:0", "HTTP listen address of the API the demo plays through; port 0 picks a free port")
	if err := parseFlags(fs, args); err != nil {
		return flagErr(err)
	}
	if *players < 16 || *players > 5000 {
		fmt.Fprintln(stderr, "--players must be between 16 and 5000")
		return errUsage
	}
	if _, _, err := net.SplitHostPort(*addr); err != nil {
		fmt.Fprintf(stderr, "--addr %q: %v\n", *addr, err)
		return errUsage
	}
	start := time.Now()
	if *dir == "" {
		d, err := os.MkdirTemp("", "referto-demo-")
		if err != nil {
			return err
		}
		*dir = d
	}
	tok := make([]byte, 32)
	if _, err := rand.Read(tok); err != nil {
		return err
	}
	admin := hex.EncodeToString(tok)
	node, a, err := api.Start(ctx, ledger.NodeOptions{Data: *dir, Logger: slog.New(slog.DiscardHandler)}, api.Options{AdminTokenSHA256: api.TokenHash(admin)})
	if err != nil {
		return err
	}
	defer node.Close()
	if err := node.Runner.WaitReady(ctx); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %w", *addr, err)
	}
	srv := api.HTTPServer(a.Handler())
	go func() { _ = srv.Serve(ln) }()
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	fmt.Fprintf(stderr, "demo: data directory %s (kept), API on http://%s\n", *dir, ln.Addr())

	cl := &client.Client{Base: "http://" + ln.Addr().String(), Token: admin, RetryUnavailable: 20,
		HTTP: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 4}}}
	n, err := demo.Play(ctx, cl, demo.Options{Players: *players, Seed: *seed, Out: stdout})
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "demo: %d commands in %s\n", n, time.Since(start).Round(time.Millisecond))
	return nil
}
