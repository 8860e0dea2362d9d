package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"os"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/commands/sim"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/jetstream"
	"github.com/referto/referto/projections"
)

// generate writes a synthetic tournament of about --events events straight
// into a data directory's log: registrations, a check-in of every player
// for every round, random draws, simulated table reports and the final
// classification. Every command is decided exactly as the ledger decides it
// (ledger.DecideCommit, the same fold, the same signing key), only without
// its loop and the projections: it is the load for measuring export,
// verify and replay at scale.
// `referto serve --data DIR` then builds the projections from the log.
func generate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("generate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "", "data directory to write into (created if missing; referto serve must not be running on it)")
	target := fs.Int("events", 1_000_000, "about how many events to write")
	rounds := fs.Int("rounds", 20, "qualifying rounds (1..20); players are chosen to reach --events")
	id := fs.String("tournament", "bench", "tournament id")
	seed := fs.Uint64("seed", 1, "seed of every random choice")
	sync := fs.Duration("sync", time.Second, "JetStream fsync interval for this bulk load; 0 fsyncs every commit as serve does")
	if err := parseFlags(fs, args); err != nil {
		return flagErr(err)
	}
	if *data == "" || *rounds < 1 || *rounds > 20 || *target < 100 || events.CheckID("tournament", *id) != nil {
		fmt.Fprintln(stderr, "generate needs --data, --rounds between 1 and 20, --events of at least 100 and a valid --tournament")
		return errUsage
	}
	// Events: one registration, one check-in per round and a quarter of a
	// report per round for each player, plus a few for the tournament.
	players := max(16, int(float64(*target-*rounds-4)/(1+1.25*float64(*rounds))))

	layout := ledger.Layout{Dir: *data}
	if err := os.MkdirAll(layout.NATS(), 0o700); err != nil {
		return err
	}
	keys, err := checkpoint.LoadOrCreateKeys(layout.Keys(), "referto", nil)
	if err != nil {
		return err
	}
	ns, err := jetstream.StartServer(jetstream.ServerOptions{StoreDir: layout.NATS(), SyncInterval: *sync})
	if err != nil {
		return fmt.Errorf("%w (is referto serve running on %s?)", err, *data)
	}
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
	nc, err := nats.Connect("", nats.InProcessServer(ns))
	if err != nil {
		return err
	}
	defer nc.Close()
	lg, err := jetstream.Open(ctx, nc, jetstream.Options{})
	if err != nil {
		return err
	}
	if last, err := lg.LastSubjectSeq(ctx, *id); err != nil {
		return err
	} else if last > 0 {
		return fmt.Errorf("tournament %s is already in %s: choose another --tournament or directory", *id, *data)
	}
	s, err := sim.New(sim.Options{})
	if err != nil {
		return err
	}
	g := &generator{ctx: ctx, lg: lg, t: projections.New(*id), tree: checkpoint.NewTree(), keys: keys,
		rng: mrand.New(mrand.NewPCG(*seed, 0x9e4)), sim: s, seed: *seed,
		now: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC), prog: newProgress(stderr, int64(*target), "generate", false)}
	start := time.Now()
	err = g.run(players, *rounds)
	g.prog.Done()
	if err != nil {
		return err
	}
	el := time.Since(start)
	fmt.Fprintf(stdout, "generated %s: %d players, %d rounds, %d events in %d commits (%s, %.0f events/s); data in %s\n",
		*id, players, *rounds, g.t.Seq, g.commits, el.Round(time.Millisecond), float64(g.t.Seq)/el.Seconds(), *data)
	return nil
}

// generator appends decided commands to the log and folds them.
type generator struct {
	ctx     context.Context
	lg      *jetstream.Log
	t       *projections.Tournament
	tree    *checkpoint.Tree
	keys    *checkpoint.Keys
	rng     *mrand.Rand
	sim     *sim.Simulator
	seed    uint64
	now     time.Time
	prog    progress
	commits int
}

var (
	genAdmin   = events.Actor{ID: "admin", Role: events.RoleAdmin}
	genArbiter = events.Actor{ID: "o1", Role: events.RoleArbiter}
)

// do decides, appends and folds one command. A refusal is returned as it
// is, with nothing appended.
func (g *generator) do(actor events.Actor, cmd commands.Command, seed string) ([]events.Envelope, error) {
	g.now = g.now.Add(time.Second) // a simulated clock: the same seed, the same log
	key := fmt.Sprintf("gen-%d-%d", g.seed, g.commits+1)
	envs, err := ledger.DecideCommit(g.t, g.tree.Head(), cmd, commands.Input{Now: g.now, Actor: actor, Seed: seed}, key, g.keys.Signer)
	if err != nil {
		return nil, err
	}
	body, err := events.EncodeCommit(envs)
	if err != nil {
		return nil, err
	}
	ack, err := g.lg.Append(g.ctx, g.t.ID, g.t.LastStreamSeq, ledger.MsgID(g.t.ID, key), body)
	if err != nil {
		return nil, err
	}
	c, err := events.DecodeCommit(body)
	if err != nil {
		return nil, err
	}
	for i, env := range c.Envelopes {
		ev, err := events.Decode(env)
		if err != nil {
			return nil, err
		}
		if err := g.t.Apply(env, ev, nil); err != nil {
			return nil, err
		}
		if err := g.tree.Append(c.Lines[i], nil); err != nil {
			return nil, err
		}
	}
	g.t.LastStreamSeq = ack.StreamSeq
	g.commits++
	g.prog.Add(len(envs))
	return envs, nil
}

func (g *generator) must(actor events.Actor, cmd commands.Command) error {
	_, err := g.do(actor, cmd, "")
	if err != nil {
		return fmt.Errorf("%s: %w", cmd.CommandType(), err)
	}
	return nil
}

func (g *generator) run(players, rounds int) error {
	params := fmt.Appendf(nil, `{"qualifying_rounds":%d}`, rounds)
	if err := g.must(genAdmin, &commands.CreateTournament{ID: g.t.ID, Name: "Generated load", Ruleset: "rtu", Params: params}); err != nil {
		return err
	}
	if err := g.must(genAdmin, &commands.AppointOfficial{Name: "Arbitro capo", Role: events.RoleArbiter, TokenSHA256: fmt.Sprintf("%064x", g.seed)}); err != nil {
		return err
	}
	ids := make([]string, players)
	for i := range ids {
		ids[i] = fmt.Sprintf("p%06d", i+1)
		city := cities[g.rng.IntN(len(cities))]
		err := g.must(genArbiter, &commands.RegisterPlayer{Player: ids[i], Club: fmt.Sprintf("%s %d", city[0], 1+g.rng.IntN(20)), Region: city[1],
			Name: firstNames[g.rng.IntN(len(firstNames))] + " " + lastNames[g.rng.IntN(len(lastNames))]})
		if err != nil {
			return err
		}
	}
	if err := g.must(genArbiter, &commands.CloseRegistration{}); err != nil {
		return err
	}
	for round := 1; round <= rounds; round++ {
		for _, p := range ids {
			if err := g.must(genArbiter, &commands.CheckIn{Round: round, Player: p}); err != nil {
				return err
			}
		}
		envs, err := g.do(genArbiter, &commands.DrawTables{Round: round}, fmt.Sprintf("gen-%d-round-%d", g.seed, round))
		if err != nil {
			return fmt.Errorf("DrawTables %d: %w", round, err)
		}
		var drawn events.TablesDrawn
		for _, env := range envs {
			if ev, _ := events.Decode(env); ev != nil {
				if d, ok := ev.(events.TablesDrawn); ok {
					drawn = d
				}
			}
		}
		for _, tb := range drawn.Tables {
			rep := g.sim.Report(g.rng, round, tb.Table, tb.Players)
			if _, err := g.do(genArbiter, &rep, ""); err != nil {
				var fe *commands.FieldError
				if !errors.As(err, &fe) || fe.Field != "rolls" {
					return fmt.Errorf("RecordResult round %d table %d: %w", round, tb.Table, err)
				}
				rep.Rolls = sim.Rolls(g.rng, tb.Players)
				if err := g.must(genArbiter, &rep); err != nil {
					return err
				}
			}
		}
	}
	for attempt := 0; ; attempt++ {
		_, err := g.do(genArbiter, &commands.PublishClassification{Final: true}, "")
		if err == nil {
			return nil
		}
		ties := g.t.ClassificationTieGroups()
		if len(ties) == 0 || attempt > 10 {
			return fmt.Errorf("PublishClassification: %w", err)
		}
		// Every tie at once, as the arbiters roll them at one call: one
		// decision instead of one a tie, each ranking tens of thousands of
		// players.
		roll := &commands.RecordTieBreakRoll{}
		for _, group := range ties {
			rolls := make([]int, len(group))
			for i := range rolls {
				rolls[i] = 1 + g.rng.IntN(6)
			}
			roll.Ties = append(roll.Ties, commands.TieRoll{Players: group, Rolls: rolls})
		}
		for len(roll.Ties) > 0 {
			n := min(len(roll.Ties), 1000)
			if err := g.must(genArbiter, &commands.RecordTieBreakRoll{Ties: roll.Ties[:n]}); err != nil {
				return err
			}
			roll.Ties = roll.Ties[n:]
		}
	}
}
