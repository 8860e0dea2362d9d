package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/referto/referto/cmd/referto/bench"
)

// benchCmd measures referto against the storage underneath it (package
// bench) and prints the figures as they come and the table at the end.
func benchCmd(ctx context.Context, args []string, _ func(string) string, stdout, stderr io.Writer) error {
	o, err := parseBench(args, stderr)
	if err != nil {
		return flagErr(err)
	}
	o.Out = stdout
	o.Progress = func(max int64, desc string) bench.Progress { return newProgress(stderr, max, desc, false) }
	fmt.Fprintf(stdout, "referto bench: %d rounds per pair, interleaved; medians\n\n", o.Rounds)
	rows, err := bench.Run(ctx, o)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	return bench.PrintTable(stdout, rows)
}

func parseBench(args []string, stderr io.Writer) (bench.Options, error) {
	var o bench.Options
	fs := newFlags("bench", stderr)
	fs.IntVar(&o.Rounds, "rounds", 3, "rounds of each pair")
	fs.IntVar(&o.Ingest, "ingest", 2000, "commands (and raw publishes) per ingest round")
	fs.IntVar(&o.Clients, "clients", 8, "concurrent clients, each on its own tournament")
	fs.IntVar(&o.Events, "events", 100_000, "events of the log rebuilt and verified; --scale measures a tenth and a hundredth too")
	fs.BoolVar(&o.Scale, "scale", false, "also rebuild and verify logs of a tenth and a hundredth of --events (the scale curve)")
	fs.IntVar(&o.Players, "players", 1000, "players of the tournament whose standings are read")
	fs.IntVar(&o.Rate, "rate", 1000, "standings requests per second")
	fs.DurationVar(&o.ReadFor, "read-for", 30*time.Second, "how long to read at --rate")
	short := fs.Bool("short", false, "seconds, not minutes: small sizes, so that CI keeps the benchmarks from rotting (figures meaningless)")
	fs.StringVar(&o.Dir, "dir", "", "where to keep the generated logs between runs (default: a temporary directory, removed)")
	only := fs.String("only", strings.Join(bench.Pairs, ","), "the pairs to run, comma-separated")
	fs.StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile of the whole run to this file (go tool pprof)")
	fs.StringVar(&o.MemProfile, "memprofile", "", "write an allocation profile of the whole run to this file (go tool pprof -sample_index=alloc_space)")
	if err := parseFlags(fs, args); err != nil {
		return o, err
	}
	if *short {
		o.Short()
	}
	if o.Rounds < 1 || o.Ingest < 10 || o.Clients < 1 || o.Events < 1000 || o.Players < 16 || o.Rate < 1 || o.ReadFor <= 0 {
		return o, usagef(stderr, "bench needs --rounds ≥ 1, --ingest ≥ 10, --clients ≥ 1, --events ≥ 1000, --players ≥ 16, --rate ≥ 1, --read-for > 0")
	}
	for _, pair := range strings.Split(*only, ",") {
		if pair = strings.TrimSpace(pair); !slices.Contains(bench.Pairs, pair) {
			return o, usagef(stderr, "bench: --only: unknown pair %q (%s)", pair, strings.Join(bench.Pairs, ", "))
		}
		o.Only = append(o.Only, pair)
	}
	return o, nil
}
