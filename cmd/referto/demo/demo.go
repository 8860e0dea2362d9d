// Package demo plays a whole simulated Raduno (rur-2015) through referto's
// HTTP API, as an outside client would (api/client): registrations and
// reserves, check-ins, draws, sanctions, a withdrawal, a renunciation and
// its repechage, tie-break rolls, the knockout phases and the published
// classification, which it checks against a fold of the log read back.
// The same seed gives the same tournament and the same output. Serve
// starts the real stack it plays through.
package demo

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"strings"

	"github.com/referto/referto/api/client"
	"github.com/referto/referto/cmd/referto/sim"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/fault"
)

// Options configures Play.
type Options struct {
	// Players is how many register (16..5000; more than 130 who play game
	// 1 bring the quarterfinals).
	Players int
	// Seed seeds every random choice.
	Seed uint64
	// Out receives the progress and the final classification.
	Out io.Writer
	// Tournament is the id of the tournament created; the default is
	// the constant Tournament.
	Tournament string
}

// Tournament is the id of the tournament Play creates.
const Tournament = "raduno-demo"

// Play simulates the tournament through the API admin reaches, with the
// administrator's token, and returns how many commands it sent.
func Play(ctx context.Context, admin *client.Client, o Options) (int, error) {
	s, err := sim.New(sim.Options{})
	if err != nil {
		return 0, err
	}
	d := &raduno{ctx: ctx, out: o.Out, rng: mrand.New(mrand.NewPCG(o.Seed, 0x5eed)), seed: o.Seed, sim: s, admin: admin, t: cmp.Or(o.Tournament, Tournament)}
	err = d.run(o.Players)
	return d.keys, err
}

// raduno drives one simulated tournament.
type raduno struct {
	ctx   context.Context
	out   io.Writer
	rng   *mrand.Rand
	seed  uint64
	sim   *sim.Simulator
	admin *client.Client
	arb   *client.Client
	t     string
	keys  int
}

func (d *raduno) printf(format string, args ...any) { fmt.Fprintf(d.out, format, args...) }

// cmd sends a command with a deterministic idempotency key.
func (d *raduno) cmd(c commands.Command) (client.Outcome, error) {
	d.keys++
	return d.arb.Command(d.ctx, d.t, fmt.Sprintf("demo-%d-%d", d.seed, d.keys), c)
}

func (d *raduno) must(c commands.Command) client.Outcome {
	o, err := d.cmd(c)
	if err != nil {
		panic(failure{fmt.Errorf("%s %+v: %w", c.CommandType(), c, err)})
	}
	return o
}

// failure carries an unexpected API refusal out of the demo's steps.
type failure struct{ err error }

// refused reports whether err is the API's refusal and, if so, which.
func refused(err error) (*client.Problem, bool) {
	var p *client.Problem
	return p, errors.As(err, &p)
}

func (d *raduno) run(n int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(failure)
			if !ok {
				panic(r)
			}
			err = f.err
		}
	}()
	if _, err := d.admin.CreateTournament(d.ctx, "", client.NewTournament{ID: d.t, Name: "Raduno dimostrativo", Ruleset: string(events.PresetRUR2015)}); err != nil {
		return err
	}
	off, err := d.admin.AppointOfficial(d.ctx, d.t, client.Official{Name: "Arbitro capo", Role: events.RoleArbiter})
	if err != nil {
		return err
	}
	d.arb = d.admin.As(off.Token)
	d.printf("Raduno dimostrativo (rur-2015), seed %d\n", d.seed)
	players, reserves := d.register(n)
	withdrawn := ""
	for round := 1; ; round++ {
		if round <= 2 {
			if err := d.checkIn(round, append(append([]string{}, players...), reserves...), withdrawn); err != nil {
				return err
			}
		}
		drawn, err := d.draw(round)
		if p, ok := refused(err); ok && p.Code == fault.RuleViolation && strings.Contains(p.Detail, "last phase") {
			break
		}
		if err != nil {
			return err
		}
		if err := d.playRound(round, drawn); err != nil {
			return err
		}
		if round == 1 {
			withdrawn = players[len(players)/2]
			d.must(&commands.Withdraw{Player: withdrawn, Scope: "tournament", Reason: events.WithdrawalForceMajeure, Detail: "called home"})
			d.printf("  %s withdraws from the tournament (force majeure)\n", withdrawn)
		}
	}
	if err := d.publish(); err != nil {
		return err
	}
	return d.report()
}

// register registers n players and the reserves that make the field a
// multiple of four, and closes the registration.
func (d *raduno) register(n int) (players, reserves []string) {
	clubs := 1 + n/6
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("p%03d", i)
		city := sim.Cities[(i*7+d.rng.IntN(3))%len(sim.Cities)]
		club := fmt.Sprintf("%s %d", city.Town, 1+d.rng.IntN(max(1, clubs/len(sim.Cities)+1)))
		reg := &commands.RegisterPlayer{Player: id, Club: club, Region: city.Region,
			Name: sim.FirstNames[d.rng.IntN(len(sim.FirstNames))] + " " + sim.LastNames[d.rng.IntN(len(sim.LastNames))]}
		if i == 7 {
			reg.Minor, reg.Waiver = true, "signed by the organizing club, parent present"
		}
		d.must(reg)
		players = append(players, id)
	}
	count := (4-n%4)%4 + 1
	for i := 1; i <= count; i++ {
		id := fmt.Sprintf("r%02d", i)
		reserves = append(reserves, id)
		d.must(&commands.DesignateReserve{Player: id, Name: "Riserva " + sim.LastNames[d.rng.IntN(len(sim.LastNames))], Club: "Riserve"})
	}
	d.must(&commands.CloseRegistration{})
	d.printf("registration: %d players, %d reserves\n", n, count)
	return players, reserves
}

// checkIn checks everyone but the withdrawn in for a qualifying round, a
// few of them late in round 1.
func (d *raduno) checkIn(round int, everyone []string, withdrawn string) error {
	late := 0
	for _, p := range everyone {
		if p == withdrawn {
			continue
		}
		minutes := 0
		if round == 1 && d.rng.IntN(40) == 0 {
			minutes = 5 + d.rng.IntN(20)
			late++
		}
		if _, err := d.cmd(&commands.CheckIn{Round: round, Player: p, MinutesLate: minutes}); err != nil {
			if p, ok := refused(err); !ok || p.Status != 422 {
				return err // a reserve seated earlier is a player now; anything else is a bug
			}
		}
	}
	if late > 0 {
		d.printf("round %d: check-in, %d late arrivals recorded\n", round, late)
	}
	return nil
}

// playRound prints a drawn round, imposes the sanctions of round 1, has a
// semifinalist renounce, and records every table.
func (d *raduno) playRound(round int, drawn drawOutcome) error {
	if _, err := d.arb.Tournament(d.ctx, d.t); err != nil {
		return err
	}
	d.printf("round %d (%s): %s, %s draw", round, drawn.Phase, plural(len(drawn.Tables), "table"), drawn.Algorithm)
	if len(drawn.ReservesSeated) > 0 {
		d.printf(", reserves seated: %s", strings.Join(drawn.ReservesSeated, " "))
	}
	if len(drawn.Unmet) > 0 {
		d.printf(", %s unmet", plural(len(drawn.Unmet), "constraint"))
	}
	d.printf("\n")
	for _, r := range drawn.repechages {
		d.printf("  repechage for the %s: %s replaces %s (%d candidates considered)\n", r.Phase, r.Player, r.Replaces, len(r.Candidates))
	}
	if round == 1 {
		// rur-2015 art. 33 at table 1: a reminder, then the card loss the
		// second offence carries. The offence field, not the article,
		// puts them on the ladder.
		p := drawn.Tables[0].Players[0]
		d.must(&commands.ImposeSanction{Player: p, Round: 1, Table: 1, Kind: events.SanctionReminder, Offence: "rur-2015 art. 33", Reason: "advice to a neighbour"})
		d.must(&commands.ImposeSanction{Player: p, Round: 1, Table: 1, Kind: events.SanctionCardLoss, Offence: "rur-2015 art. 33", Reason: "advice again"})
		d.printf("  sanctions: %s reminded, then a card loss (rur-2015 art. 33, second offence)\n", p)
	}
	if drawn.Phase == events.PhaseSemifinal {
		d.renounce(drawn.Tables[1].Players[1])
	}
	return d.play(round)
}

// renounce has a semifinalist renounce before playing: a repechage. With
// nobody left to take his place (a small Raduno) the renunciation is
// refused, and he keeps his seat (docs/rules.md#92-pinned-a-renunciation-nobody-can-fill-is-refused).
func (d *raduno) renounce(p string) {
	c := &commands.Renounce{Player: p, Phase: events.PhaseSemifinal, Reason: "train home"}
	o, err := d.cmd(c)
	if pr, ok := refused(err); ok && pr.Code == fault.RuleViolation {
		d.printf("  %s would renounce the semifinal: refused, nobody is left to take the seat (%s); he plays\n", p, pr.Rule)
		return
	} else if err != nil {
		panic(failure{fmt.Errorf("%s %+v: %w", c.CommandType(), c, err)})
	}
	envs, _ := o.Envelopes()
	for _, env := range envs {
		if env.Type == events.TypeRepechaged {
			var r events.Repechaged
			_ = json.Unmarshal(env.Data, &r)
			d.printf("  %s renounces the semifinal: %s takes the seat (%s)\n", p, r.Player, r.Candidates[len(r.Candidates)-1].From)
		}
	}
}

// drawOutcome is a TablesDrawn event as the demo reads it, with the
// repechages the draw performed.
type drawOutcome struct {
	events.TablesDrawn
	repechages []events.Repechaged
}

// draw draws a round; when a die roll owed in the standings or the
// classification blocks it, the arbiters roll and draw again.
func (d *raduno) draw(round int) (drawOutcome, error) {
	for attempt := 0; ; attempt++ {
		o, err := d.cmd(&commands.DrawTables{Round: round, Seed: fmt.Sprintf("demo-%d-round-%d", d.seed, round)})
		if p, ok := refused(err); ok && p.Rule == "rur-2015 art. 1" && attempt < 10 {
			// A tie at a cut shows in the standings; one among the quarter
			// winners (seeded by their three games) in the classification.
			for _, classification := range []bool{false, true} {
				if err := d.rollTies(classification); err != nil {
					return drawOutcome{}, err
				}
			}
			continue
		}
		if err != nil {
			return drawOutcome{}, err
		}
		var out drawOutcome
		envs, err := o.Envelopes()
		for _, env := range envs {
			switch env.Type {
			case events.TypeTablesDrawn:
				_ = json.Unmarshal(env.Data, &out.TablesDrawn)
			case events.TypeRepechaged:
				var r events.Repechaged
				_ = json.Unmarshal(env.Data, &r)
				out.repechages = append(out.repechages, r)
			}
		}
		return out, err
	}
}

// publish publishes the final classification, rolling for the ties that
// hold it up.
func (d *raduno) publish() error {
	for attempt := 0; ; attempt++ {
		_, err := d.cmd(&commands.PublishClassification{Final: true})
		if err == nil {
			return nil
		}
		if p, ok := refused(err); !ok || p.Rule != "rur-2015 art. 1" || attempt > 10 {
			return err
		}
		if err := d.rollTies(true); err != nil {
			return err
		}
	}
}

// rollTies records a die roll for every tie the standings (or the
// classification) show, until none is left.
func (d *raduno) rollTies(classification bool) error {
	for range 30 {
		groups, order, err := d.ties(classification)
		if err != nil {
			return err
		}
		if len(order) == 0 {
			return nil
		}
		for _, g := range order {
			rolls := make([]int, len(groups[g]))
			for i := range rolls {
				rolls[i] = 1 + d.rng.IntN(6)
			}
			d.must(&commands.RecordTieBreakRoll{Players: groups[g], Rolls: rolls})
			d.printf("  tie-break roll: %s rolled %v\n", strings.Join(groups[g], ", "), rolls)
		}
	}
	return errors.New("demo: ties still unresolved after 30 rounds of rolls")
}

// ties reads the tie groups the standings (or the classification) show,
// in the order they first appear.
func (d *raduno) ties(classification bool) (map[int][]string, []int, error) {
	type row struct {
		player string
		group  int
	}
	var rows []row
	if classification {
		cl, err := d.arb.Classification(d.ctx, d.t)
		if err != nil {
			return nil, nil, err
		}
		for _, r := range cl.Rows {
			rows = append(rows, row{r.Player, r.TieGroup})
		}
	} else {
		st, err := d.arb.Standings(d.ctx, d.t, 0)
		if err != nil {
			return nil, nil, err
		}
		for _, r := range st.Rows {
			rows = append(rows, row{r.Player, r.TieGroup})
		}
	}
	groups := map[int][]string{}
	var order []int
	for _, r := range rows {
		if r.group > 0 {
			if groups[r.group] == nil {
				order = append(order, r.group)
			}
			groups[r.group] = append(groups[r.group], r.player)
		}
	}
	return groups, order, nil
}

// play records a simulated report for every table of the round.
func (d *raduno) play(round int) error {
	tables, err := d.arb.Tables(d.ctx, d.t, round)
	if err != nil {
		return err
	}
	rolled := 0
	for _, tb := range tables.Tables {
		rep := d.sim.Report(d.rng, round, tb.Table, tb.Players)
		if _, err := d.cmd(&rep); err != nil {
			if p, ok := refused(err); !ok || p.Field != "rolls" {
				return err
			}
			rep.Rolls = sim.Rolls(d.rng, tb.Players)
			rolled++
			d.must(&rep)
		}
	}
	d.printf("  %s recorded", plural(len(tables.Tables), "result"))
	if rolled > 0 {
		d.printf(" (%d with die rolls at the table)", rolled)
	}
	d.printf("\n")
	return nil
}

// ResultPayload is a table report as the command endpoint takes it
// (commands.Encode's payload): for a client that keeps the payloads it
// sends, to send them again byte for byte.
func ResultPayload(rep commands.RecordResult) json.RawMessage {
	b, err := commands.Encode(&rep)
	if err != nil {
		panic(fmt.Sprintf("demo: a table report does not encode: %v", err)) // every field of RecordResult encodes
	}
	return b
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
