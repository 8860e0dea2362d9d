package synth

import (
	"context"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"time"

	"github.com/referto/referto/api/node"
	"github.com/referto/referto/cmd/referto/sim"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/eventlog"
	"github.com/referto/referto/projections"
)

// GenerateOptions configures Generate.
type GenerateOptions struct {
	// Data is the data directory written into (created if missing; no
	// server may run on it). Required.
	Data string
	// Events is about how many events to write (at least 100).
	Events int
	// Rounds is the qualifying rounds (1..20); the players are as many as
	// reach Events.
	Rounds int
	// Tournament is the tournament's id; it must not be in the log yet.
	Tournament string
	// Seed seeds every random choice: the same seed, the same log.
	Seed uint64
	// SyncInterval is JetStream's fsync interval for this bulk load; 0
	// fsyncs every commit as serve does.
	SyncInterval time.Duration
	// Progress, when set, is told of every event written.
	Progress func(events int)
}

// Generated is what Generate wrote.
type Generated struct {
	Players, Rounds int
	Events          uint64
	Commits         int
	Took            time.Duration
}

// Generate writes a synthetic tournament of about o.Events events straight
// into a data directory's log: registrations, a check-in of every player
// for every round, random draws, simulated table reports and the final
// classification. Every command is decided exactly as the ledger decides it
// (ledger.DecideCommit, the same fold, the same signing key), only without
// its loop and the projections: it is the load for measuring export,
// verify and replay at scale. referto serve then builds the projections
// from the log.
func Generate(ctx context.Context, o GenerateOptions) (Generated, error) {
	// Events: one registration, one check-in per round and a quarter of a
	// report per round for each player, plus a few for the tournament.
	players := max(16, int(float64(o.Events-o.Rounds-4)/(1+1.25*float64(o.Rounds))))
	layout := node.Layout{Dir: o.Data}
	lg, closeLog, err := node.OpenLog(ctx, layout, node.LogOptions{Create: true, SyncInterval: o.SyncInterval})
	if err != nil {
		return Generated{}, err
	}
	defer closeLog()
	keys, err := checkpoint.LoadOrCreateKeys(layout.Keys(), "referto", nil)
	if err != nil {
		return Generated{}, err
	}
	if last, err := lg.LastSubjectSeq(ctx, o.Tournament); err != nil {
		return Generated{}, err
	} else if last > 0 {
		return Generated{}, fmt.Errorf("tournament %s is already in %s: choose another --tournament or directory", o.Tournament, o.Data)
	}
	s, err := sim.New(sim.Options{})
	if err != nil {
		return Generated{}, err
	}
	g := &generator{ctx: ctx, lg: lg, t: projections.New(o.Tournament), tree: checkpoint.NewTree(), keys: keys,
		rng: mrand.New(mrand.NewPCG(o.Seed, 0x9e4)), sim: s, seed: o.Seed,
		now: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC), progress: o.Progress}
	start := time.Now()
	if err := g.run(players, o.Rounds); err != nil {
		return Generated{}, err
	}
	return Generated{Players: players, Rounds: o.Rounds, Events: g.t.Seq, Commits: g.commits, Took: time.Since(start)}, nil
}

// generator appends decided commands to the log and folds them.
type generator struct {
	ctx      context.Context
	lg       *eventlog.Log
	t        *projections.Tournament
	tree     *checkpoint.Tree
	keys     *checkpoint.Keys
	rng      *mrand.Rand
	sim      *sim.Simulator
	seed     uint64
	now      time.Time
	progress func(int)
	commits  int
	// doFn, when set, decides and records a command in place of the log
	// (a season's tournaments are written to files: GenerateSeason).
	doFn func(actor events.Actor, cmd commands.Command, seed string) ([]events.Envelope, error)
}

var (
	genAdmin   = events.Actor{ID: "admin", Role: events.RoleAdmin}
	genArbiter = events.Actor{ID: "o1", Role: events.RoleArbiter}
)

// do decides, appends and folds one command. A refusal is returned as it
// is, with nothing appended.
func (g *generator) do(actor events.Actor, cmd commands.Command, seed string) ([]events.Envelope, error) {
	if g.doFn != nil {
		return g.doFn(actor, cmd, seed)
	}
	g.now = g.now.Add(time.Second) // a simulated clock: the same seed, the same log
	key := fmt.Sprintf("gen-%d-%d", g.seed, g.commits+1)
	envs, body, err := ledger.DecideCommit(g.t, g.tree.Head(), cmd, commands.Input{Now: g.now, Actor: actor, Seed: seed}, key, g.keys.Signer)
	if err != nil {
		return nil, err
	}
	ack, err := g.lg.Append(g.ctx, g.t.ID, g.t.LastStreamSeq, ledger.MsgID(g.t.ID, key), body)
	if err != nil {
		return nil, err
	}
	if err := ledger.FoldCommit(g.t, g.tree, body); err != nil {
		return nil, err
	}
	g.t.LastStreamSeq = ack.StreamSeq
	g.commits++
	if g.progress != nil {
		g.progress(len(envs))
	}
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
		city := sim.Cities[g.rng.IntN(len(sim.Cities))]
		err := g.must(genArbiter, &commands.RegisterPlayer{Player: ids[i], Club: fmt.Sprintf("%s %d", city.Town, 1+g.rng.IntN(20)), Region: city.Region,
			Name: sim.FirstNames[g.rng.IntN(len(sim.FirstNames))] + " " + sim.LastNames[g.rng.IntN(len(sim.LastNames))]})
		if err != nil {
			return err
		}
	}
	if err := g.must(genArbiter, &commands.CloseRegistration{}); err != nil {
		return err
	}
	for round := 1; round <= rounds; round++ {
		if err := g.round(round, ids); err != nil {
			return err
		}
	}
	return g.publish()
}

// round checks everyone in, draws the round and records every table.
func (g *generator) round(round int, ids []string) error {
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
	return nil
}

// publish publishes the final classification, rolling the dice for the
// ties that hold it up.
func (g *generator) publish() error {
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
