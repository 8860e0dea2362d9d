package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/referto/referto/cmd/referto/demo"
)

// demoCmd simulates a whole Raduno (package demo) through the real stack:
// embedded NATS JetStream, Pebble and the HTTP API on a loopback port.
// Progress and the final classification go to stdout, identical for the
// same seed; the data directory and timings go to stderr.
func demoCmd(ctx context.Context, args []string, _ func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("demo", stderr)
	players := fs.Int("players", 140, "players registered (more than 130 who play game 1 bring the quarterfinals)")
	seed := fs.Uint64("seed", 1, "seed of every random choice: the same seed gives the same tournament and the same output")
	dir := fs.String("data", "", "data directory (default: a new temporary directory, kept afterwards)")
	addr := fs.String("addr", "127.0.0.1:0", "HTTP listen address of the API the demo plays through; port 0 picks a free port")
	if err := parseFlags(fs, args); err != nil {
		return flagErr(err)
	}
	if *players < 16 || *players > 5000 {
		return usagef(stderr, "--players must be between 16 and 5000")
	}
	if _, _, err := net.SplitHostPort(*addr); err != nil {
		return usagef(stderr, "--addr %q: %v", *addr, err)
	}
	start := time.Now()
	if *dir == "" {
		d, err := os.MkdirTemp("", "referto-demo-")
		if err != nil {
			return err
		}
		*dir = d
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %w", *addr, err)
	}
	st, err := demo.Serve(ctx, *dir, ln)
	if err != nil {
		return err
	}
	defer st.Close()
	fmt.Fprintf(stderr, "demo: data directory %s (kept), API on %s\n", *dir, st.URL)
	n, err := demo.Play(ctx, st.Admin, demo.Options{Players: *players, Seed: *seed, Out: stdout})
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "demo: %d commands in %s\n", n, time.Since(start).Round(time.Millisecond))
	return nil
}
