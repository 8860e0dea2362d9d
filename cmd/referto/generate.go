package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/referto/referto/cmd/referto/synth"
	"github.com/referto/referto/events"
)

// generate writes a synthetic tournament into a data directory's log
// (synth.Generate): the load for measuring export, verify and replay at
// scale. `referto serve --data DIR` then builds the projections from it.
func generate(ctx context.Context, args []string, _ func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("generate", stderr)
	var o synth.GenerateOptions
	fs.StringVar(&o.Data, "data", "", "data directory to write into (created if missing; referto serve must not be running on it)")
	fs.IntVar(&o.Events, "events", 1_000_000, "about how many events to write")
	fs.IntVar(&o.Rounds, "rounds", 20, "qualifying rounds (1..20); players are chosen to reach --events")
	fs.StringVar(&o.Tournament, "tournament", "bench", "tournament id")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of every random choice")
	fs.DurationVar(&o.SyncInterval, "sync", time.Second, "JetStream fsync interval for this bulk load; 0 fsyncs every commit as serve does")
	seasonDir := fs.String("season", "", "instead of --data: write a season of exports (and the venues' keys in DIR/keys) into this directory")
	tournaments := fs.Int("tournaments", 2000, "with --season: how many tournaments")
	seasonID := fs.String("season-id", "2024", "with --season: the season the tournaments are held in")
	venues := fs.Int("venues", 20, "with --season: how many venues (signing keys) hold them")
	if err := parseFlags(fs, args); err != nil {
		return flagErr(err)
	}
	if *seasonDir != "" {
		if o.Data != "" {
			return usagef(stderr, "generate takes --data or --season, not both")
		}
		return generateSeason(ctx, synth.SeasonOptions{Dir: *seasonDir, Tournaments: *tournaments, Events: o.Events,
			Season: *seasonID, Venues: *venues, Seed: o.Seed}, stdout, stderr)
	}
	if o.Data == "" || o.Rounds < 1 || o.Rounds > 20 || o.Events < 100 || events.CheckID("tournament", o.Tournament) != nil {
		return usagef(stderr, "generate needs --data, --rounds between 1 and 20, --events of at least 100 and a valid --tournament")
	}
	prog := newProgress(stderr, int64(o.Events), "generate", false)
	o.Progress = prog.Add
	g, err := synth.Generate(ctx, o)
	prog.Done()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "generated %s: %d players, %d rounds, %d events in %d commits (%s, %.0f events/s); data in %s\n",
		o.Tournament, g.Players, g.Rounds, g.Events, g.Commits, g.Took.Round(time.Millisecond), float64(g.Events)/g.Took.Seconds(), o.Data)
	return nil
}

// generateSeason writes a season of exports (synth.GenerateSeason).
func generateSeason(ctx context.Context, o synth.SeasonOptions, stdout, stderr io.Writer) error {
	prog := newProgress(stderr, int64(o.Events), "generate", false)
	o.Progress = prog.Add
	g, err := synth.GenerateSeason(ctx, o)
	prog.Done()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "generated season %s: %d tournaments, %d events, %.0f MB in %s (%s); verifier keys in %s\n",
		o.Season, g.Tournaments, g.Events, float64(g.Bytes)/1e6, o.Dir, g.Took.Round(time.Millisecond), filepath.Join(o.Dir, synth.KeysFile))
	return nil
}
