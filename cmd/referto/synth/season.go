package synth

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/referto/referto/cmd/referto/sim"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/projections"
	"github.com/referto/referto/replay"
)

// SeasonOptions configures GenerateSeason.
type SeasonOptions struct {
	// Dir is the directory the exports are written into (created if
	// missing). Required.
	Dir string
	// Tournaments is how many tournaments; Events about how many events in
	// all (each tournament's players are chosen to reach it).
	Tournaments, Events int
	// Season is the season the tournaments are held in ("2024").
	Season string
	// Venues is how many venues (signing keys) hold the tournaments.
	Venues int
	// Seed seeds every random choice: the same seed, the same season.
	Seed uint64
	// Workers is how many tournaments are generated at once (default:
	// GOMAXPROCS).
	Workers int
	// Progress, when set, is told of every event written.
	Progress func(events int)
}

// SeasonGenerated is what GenerateSeason wrote.
type SeasonGenerated struct {
	Tournaments int
	Events      int64
	Bytes       int64
	Took        time.Duration
}

// KeysFile is the file of a season directory listing the venues' verifier
// keys, one a line: the one verify --season reads (replay.SeasonKeysFile).
const KeysFile = replay.SeasonKeysFile

// seasonPlan is one tournament of a season, decided before any is played so
// that the season does not depend on the order they are generated in.
type seasonPlan struct {
	id      string
	typ     events.TournamentType
	venue   int
	players int
	rounds  int
	seed    uint64
	start   time.Time
	entrant []int // national players, by index in the pool
}

// GenerateSeason writes a synthetic season into o.Dir: o.Tournaments
// tournaments of 8 to 200 players, about o.Events events in all, each an
// export (<id>.ndjson and its signed checkpoint) decided exactly as the
// ledger decides it, held by o.Venues venues, each with its own key; the
// verifier keys in DIR/keys. Players come from one national pool (with
// national ids), so that they meet across tournaments and the season
// ranks them.
func GenerateSeason(ctx context.Context, o SeasonOptions) (SeasonGenerated, error) {
	if o.Tournaments < 1 || o.Events < 20*o.Tournaments || o.Venues < 1 || !events.ValidID(o.Season) {
		return SeasonGenerated{}, errors.New("synth: a season needs tournaments, at least 20 events a tournament, a venue and a season id")
	}
	if o.Workers < 1 {
		o.Workers = max(1, runtime.GOMAXPROCS(0))
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return SeasonGenerated{}, err
	}
	rng := mrand.New(mrand.NewPCG(o.Seed, 0x5ea5))
	signers := make([]note.Signer, o.Venues)
	var keys strings.Builder
	for i := range signers {
		skey, vkey, err := note.GenerateKey(rngReader{rng}, fmt.Sprintf("venue-%02d", i+1))
		if err != nil {
			return SeasonGenerated{}, err
		}
		if signers[i], err = note.NewSigner(skey); err != nil {
			return SeasonGenerated{}, err
		}
		keys.WriteString(vkey + "\n")
	}
	if err := os.WriteFile(filepath.Join(o.Dir, KeysFile), []byte(keys.String()), 0o644); err != nil {
		return SeasonGenerated{}, err
	}
	pool := nationalPool(rng, max(500, o.Events/200))
	plans := planSeason(rng, o, len(pool))

	start := time.Now()
	var total, size atomic.Int64
	var wg sync.WaitGroup
	work := make(chan seasonPlan)
	errs := make(chan error, o.Workers)
	for range o.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := sim.New(sim.Options{})
			if err != nil {
				errs <- err
				return
			}
			for p := range work {
				n, b, err := playSeasonTournament(o, p, pool, signers[p.venue], s)
				if err != nil {
					errs <- fmt.Errorf("%s: %w", p.id, err)
					return
				}
				total.Add(int64(n))
				size.Add(b)
			}
		}()
	}
	var err error
feed:
	for _, p := range plans {
		select {
		case work <- p:
		case err = <-errs:
			break feed
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(work)
	wg.Wait()
	if err == nil {
		select {
		case err = <-errs:
		default:
		}
	}
	return SeasonGenerated{Tournaments: len(plans), Events: total.Load(), Bytes: size.Load(), Took: time.Since(start)}, err
}

// planSeason draws every tournament's type, venue, rounds, players and date.
func planSeason(rng *mrand.Rand, o SeasonOptions, pool int) []seasonPlan {
	types := []struct {
		k      events.TournamentType
		weight int
	}{{events.TypeCampionato, 40}, {events.TypeOpen, 30}, {events.TypeMaster, 15}, {events.TypeInterclub, 12}, {events.TypeRadunoNazionale, 3}}
	year := 2024
	fmt.Sscanf(o.Season, "%d", &year)
	first := time.Date(year, 1, 6, 9, 0, 0, 0, time.UTC)
	plans := make([]seasonPlan, o.Tournaments)
	left := o.Events
	for i := range plans {
		w := rng.IntN(100)
		k := types[0].k
		for _, t := range types {
			if w < t.weight {
				k = t.k
				break
			}
			w -= t.weight
		}
		rounds := map[events.TournamentType]int{events.TypeRadunoNazionale: 5, events.TypeMaster: 4, events.TypeOpen: 3, events.TypeInterclub: 3}[k]
		if k == events.TypeCampionato {
			rounds = 2 + rng.IntN(7)
		}
		// Events of a tournament: one registration, one check-in per round
		// and a quarter of a report per round for each player, and a few.
		budget := float64(left) / float64(o.Tournaments-i)
		players := int(budget / (1 + 1.25*float64(rounds)) * (0.15 + 1.7*rng.Float64()))
		players = min(200, max(8, players))
		if players == 11 {
			players = 12 // tables of 4 and 5 seat every count from 8 but 11
		}
		left -= int(float64(players)*(1+1.25*float64(rounds))) + 6
		p := seasonPlan{id: fmt.Sprintf("%s-%s-%04d", o.Season, strings.ToLower(strings.ReplaceAll(string(k), "_", "")), i+1),
			typ: k, venue: rng.IntN(o.Venues), players: players, rounds: rounds, seed: rng.Uint64(),
			start: first.Add(time.Duration(i) * (350 * 24 * time.Hour) / time.Duration(o.Tournaments))}
		p.entrant = rng.Perm(pool)[:min(players, pool)]
		plans[i] = p
	}
	return plans
}

// nationalPlayer is one player of the national pool.
type nationalPlayer struct{ id, name, club, region string }

func nationalPool(rng *mrand.Rand, n int) []nationalPlayer {
	out := make([]nationalPlayer, n)
	for i := range out {
		city := sim.Cities[rng.IntN(len(sim.Cities))]
		out[i] = nationalPlayer{id: fmt.Sprintf("%06d", 100001+i), club: fmt.Sprintf("%s %d", city.Town, 1+rng.IntN(20)), region: city.Region,
			name: sim.FirstNames[rng.IntN(len(sim.FirstNames))] + " " + sim.LastNames[rng.IntN(len(sim.LastNames))]}
	}
	return out
}

// playSeasonTournament plays one tournament in memory and writes its export
// and signed checkpoint; it returns its events and bytes.
func playSeasonTournament(o SeasonOptions, p seasonPlan, pool []nationalPlayer, signer note.Signer, s *sim.Simulator) (int, int64, error) {
	var buf bytes.Buffer
	g := &seasonGen{t: projections.New(p.id), tree: checkpoint.NewTree(), signer: signer, w: &buf, now: p.start,
		rng: mrand.New(mrand.NewPCG(p.seed, 0x70)), sim: s, progress: o.Progress}
	params := fmt.Appendf(nil, `{"qualifying_rounds":%d}`, p.rounds)
	if err := g.must(genAdmin, &commands.CreateTournament{ID: p.id, Name: fmt.Sprintf("%s %s", p.typ, p.id), Ruleset: "rtu", Params: params, Season: o.Season, Type: p.typ}); err != nil {
		return 0, 0, err
	}
	if err := g.must(genAdmin, &commands.AppointOfficial{Name: "Arbitro capo", Role: events.RoleArbiter, TokenSHA256: fmt.Sprintf("%064x", p.seed)}); err != nil {
		return 0, 0, err
	}
	ids := make([]string, len(p.entrant))
	for i, e := range p.entrant {
		np := pool[e]
		ids[i] = "p" + np.id
		reg := &commands.RegisterPlayer{Player: ids[i], Name: np.name, Club: np.club, Region: np.region}
		// A venue that does not know a player's national id leaves it
		// empty (one in fifty); the registry links it later.
		if g.rng.IntN(50) > 0 {
			reg.NationalID = np.id
		}
		if err := g.must(genArbiter, reg); err != nil {
			return 0, 0, err
		}
	}
	if err := g.must(genArbiter, &commands.CloseRegistration{}); err != nil {
		return 0, 0, err
	}
	bg := &generator{t: g.t, rng: g.rng, sim: s, seed: p.seed}
	bg.doFn = g.do
	for round := 1; round <= p.rounds; round++ {
		if err := bg.round(round, ids); err != nil {
			return 0, 0, err
		}
	}
	if err := bg.publish(); err != nil {
		return 0, 0, err
	}
	note, err := checkpoint.Sign(checkpoint.Checkpoint{Origin: checkpoint.Origin(p.id), Size: g.tree.Size(), Root: g.tree.Root()}, signer)
	if err != nil {
		return 0, 0, err
	}
	log := filepath.Join(o.Dir, p.id+".ndjson")
	if err := os.WriteFile(log, buf.Bytes(), 0o644); err != nil {
		return 0, 0, err
	}
	if err := os.WriteFile(replay.CheckpointFile(log), []byte(note), 0o644); err != nil {
		return 0, 0, err
	}
	return int(g.t.Seq), int64(buf.Len()), nil
}

// seasonGen decides commands against a tournament in memory and writes
// its commits to w, as the log would store them.
type seasonGen struct {
	t        *projections.Tournament
	tree     *checkpoint.Tree
	signer   note.Signer
	w        *bytes.Buffer
	now      time.Time
	rng      *mrand.Rand
	sim      *sim.Simulator
	commits  int
	progress func(int)
}

func (g *seasonGen) do(actor events.Actor, cmd commands.Command, seed string) ([]events.Envelope, error) {
	g.now = g.now.Add(time.Second)
	key := fmt.Sprintf("season-%s-%d", g.t.ID, g.commits+1)
	envs, body, err := ledger.DecideCommit(g.t, g.tree.Head(), cmd, commands.Input{Now: g.now, Actor: actor, Seed: seed}, key, g.signer)
	if err != nil {
		return nil, err
	}
	if err := ledger.FoldCommit(g.t, g.tree, body); err != nil {
		return nil, err
	}
	g.w.Write(body)
	g.commits++
	if g.progress != nil {
		g.progress(len(envs))
	}
	return envs, nil
}

func (g *seasonGen) must(actor events.Actor, cmd commands.Command) error {
	if _, err := g.do(actor, cmd, ""); err != nil {
		return fmt.Errorf("%s: %w", cmd.CommandType(), err)
	}
	return nil
}

// rngReader reads bytes from a math/rand source: the venues' keys of a
// season are its seed's (a benchmark's keys, not secrets).
type rngReader struct{ r *mrand.Rand }

func (r rngReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r.r.Uint32())
	}
	return len(p), nil
}
