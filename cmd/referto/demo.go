package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/referto/referto/api"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/commands/sim"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
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

// demo simulates a whole Raduno (rur-2015) through the real stack: embedded
// NATS JetStream, Pebble and the HTTP API on a loopback port. Progress and
// the final classification go to stdout, identical for the same seed; the
// data directory and timings go to stderr.
func demo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
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
	node, handler, err := startNode(ctx, ledger.NodeOptions{Data: dir, Logger: slog.New(slog.DiscardHandler)}, api.TokenHash(admin))
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
	srv := api.HTTPServer(handler)
	go func() { _ = srv.Serve(ln) }()
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	fmt.Fprintf(stderr, "demo: data directory %s (kept), API on http://%s\n", dir, ln.Addr())

	base := "http://" + ln.Addr().String()
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	d := &raduno{ctx: ctx, out: stdout, rng: mrand.New(mrand.NewPCG(c.seed, 0x5eed)), seed: c.seed,
		admin: &client{base: base, token: admin, http: hc}, t: "raduno-demo"}
	if d.sim, err = sim.New(sim.Options{}); err != nil {
		return err
	}
	d.arb = &client{base: base, http: hc}
	if err := d.run(c.players); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "demo: %d commands in %s\n", d.keys, time.Since(start).Round(time.Millisecond))
	return nil
}

// raduno drives one simulated tournament.
type raduno struct {
	ctx   context.Context
	out   io.Writer
	rng   *mrand.Rand
	seed  uint64
	sim   *sim.Simulator
	admin *client
	arb   *client
	t     string
	keys  int
}

func (d *raduno) printf(format string, args ...any) { fmt.Fprintf(d.out, format, args...) }

// cmd sends a command with a deterministic idempotency key.
func (d *raduno) cmd(v any) (commandOutcome, error) {
	d.keys++
	return d.arb.command(d.ctx, d.t, fmt.Sprintf("demo-%d-%d", d.seed, d.keys), v)
}

func (d *raduno) must(v any) commandOutcome {
	o, err := d.cmd(v)
	if err != nil {
		panic(demoFailure{fmt.Errorf("%v: %w", v, err)})
	}
	return o
}

// demoFailure carries an unexpected API refusal out of the demo's steps.
type demoFailure struct{ err error }

var (
	firstNames = []string{"Mario", "Luca", "Giulia", "Marco", "Anna", "Paolo", "Sara", "Andrea", "Elena", "Davide", "Chiara",
		"Matteo", "Francesca", "Stefano", "Laura", "Simone", "Valentina", "Alessandro", "Federica", "Roberto"}
	lastNames = []string{"Rossi", "Bianchi", "Romano", "Colombo", "Ricci", "Marino", "Greco", "Bruno", "Gallo", "Conti",
		"De Luca", "Costa", "Giordano", "Mancini", "Rizzo", "Lombardi", "Moretti", "Barbieri", "Fontana", "Santoro"}
	cities = [][2]string{{"Bologna", "Emilia-Romagna"}, {"Modena", "Emilia-Romagna"}, {"Milano", "Lombardia"},
		{"Bergamo", "Lombardia"}, {"Torino", "Piemonte"}, {"Genova", "Liguria"}, {"Firenze", "Toscana"}, {"Pisa", "Toscana"},
		{"Roma", "Lazio"}, {"Napoli", "Campania"}, {"Bari", "Puglia"}, {"Palermo", "Sicilia"}, {"Cagliari", "Sardegna"},
		{"Venezia", "Veneto"}, {"Verona", "Veneto"}, {"Trieste", "Friuli-Venezia Giulia"}, {"Perugia", "Umbria"},
		{"Ancona", "Marche"}, {"Trento", "Trentino-Alto Adige"}, {"Pescara", "Abruzzo"}}
)

func (d *raduno) run(n int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(demoFailure)
			if !ok {
				panic(r)
			}
			err = f.err
		}
	}()
	var official struct {
		Token string `json:"token"`
	}
	if err := d.admin.do(d.ctx, "POST", "/v1/tournaments", map[string]any{"id": d.t, "name": "Raduno dimostrativo", "ruleset": "rur-2015"}, "", nil); err != nil {
		return err
	}
	if err := d.admin.do(d.ctx, "POST", "/v1/tournaments/"+d.t+"/officials", map[string]any{"name": "Arbitro capo", "role": "arbiter"}, "", &official); err != nil {
		return err
	}
	d.arb.token = official.Token
	d.printf("Raduno dimostrativo (rur-2015), seed %d\n", d.seed)

	clubs := 1 + n/6
	var players []string
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("p%03d", i)
		city := cities[(i*7+d.rng.IntN(3))%len(cities)]
		club := fmt.Sprintf("%s %d", city[0], 1+d.rng.IntN(max(1, clubs/len(cities)+1)))
		reg := map[string]any{"type": "RegisterPlayer", "player": id, "club": club, "region": city[1],
			"name": firstNames[d.rng.IntN(len(firstNames))] + " " + lastNames[d.rng.IntN(len(lastNames))]}
		if i == 7 {
			reg["minor"], reg["waiver"] = true, "signed by the organizing club, parent present"
		}
		d.must(reg)
		players = append(players, id)
	}
	reserves := (4-n%4)%4 + 1
	var reserveIDs []string
	for i := 1; i <= reserves; i++ {
		id := fmt.Sprintf("r%02d", i)
		reserveIDs = append(reserveIDs, id)
		d.must(map[string]any{"type": "DesignateReserve", "player": id, "name": "Riserva " + lastNames[d.rng.IntN(len(lastNames))], "club": "Riserve"})
	}
	d.must(map[string]any{"type": "CloseRegistration"})
	d.printf("registration: %d players, %d reserves\n", n, reserves)

	withdrawn := ""
	for round := 1; ; round++ {
		var sum struct {
			Phase string `json:"phase"`
		}
		qualifying := round <= 2
		if qualifying {
			late := 0
			for _, p := range append(append([]string{}, players...), reserveIDs...) {
				if p == withdrawn {
					continue
				}
				minutes := 0
				if round == 1 && d.rng.IntN(40) == 0 {
					minutes = 5 + d.rng.IntN(20)
					late++
				}
				if _, err := d.cmd(map[string]any{"type": "CheckIn", "round": round, "player": p, "minutes_late": minutes}); err != nil {
					var ae *apiError
					if !errors.As(err, &ae) || ae.Status != 422 {
						return err // a reserve seated earlier is a player now; anything else is a bug
					}
				}
			}
			if late > 0 {
				d.printf("round %d: check-in, %d late arrivals recorded\n", round, late)
			}
		}
		drawn, err := d.draw(round)
		if err != nil {
			var ae *apiError
			if errors.As(err, &ae) && ae.Code == "rule_violation" && strings.Contains(ae.Detail, "last phase") {
				break
			}
			return err
		}
		if err := d.arb.do(d.ctx, "GET", "/v1/tournaments/"+d.t, nil, "", &sum); err != nil {
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
			d.must(map[string]any{"type": "ImposeSanction", "player": p, "round": 1, "table": 1, "kind": events.SanctionReminder, "offence": "rur-2015 art. 33", "reason": "advice to a neighbour"})
			d.must(map[string]any{"type": "ImposeSanction", "player": p, "round": 1, "table": 1, "kind": events.SanctionCardLoss, "offence": "rur-2015 art. 33", "reason": "advice again"})
			d.printf("  sanctions: %s reminded, then a card loss (rur-2015 art. 33, second offence)\n", p)
		}
		if drawn.Phase == events.PhaseSemifinal {
			// A semifinalist renounces before playing: repechage.
			p := drawn.Tables[1].Players[1]
			o := d.must(map[string]any{"type": "Renounce", "player": p, "phase": events.PhaseSemifinal, "reason": "train home"})
			for _, ev := range o.Events {
				if ev.Type == events.TypeRepechaged {
					var r events.Repechaged
					_ = json.Unmarshal(ev.Data, &r)
					d.printf("  %s renounces the semifinal: %s takes the seat (%s)\n", p, r.Player, r.Candidates[len(r.Candidates)-1].From)
				}
			}
		}
		if err := d.play(round); err != nil {
			return err
		}
		if round == 1 {
			withdrawn = players[len(players)/2]
			d.must(map[string]any{"type": "Withdraw", "player": withdrawn, "scope": "tournament", "reason": "force_majeure", "detail": "called home"})
			d.printf("  %s withdraws from the tournament (force majeure)\n", withdrawn)
		}
	}
	for attempt := 0; ; attempt++ {
		_, err := d.cmd(map[string]any{"type": "PublishClassification", "final": true})
		var ae *apiError
		if err == nil {
			break
		}
		if !errors.As(err, &ae) || ae.Rule != "rur-2015 art. 1" || attempt > 10 {
			return err
		}
		if err := d.rollTies("/classification"); err != nil {
			return err
		}
	}
	return d.report()
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
		o, err := d.cmd(map[string]any{"type": "DrawTables", "round": round, "seed": fmt.Sprintf("demo-%d-round-%d", d.seed, round)})
		var ae *apiError
		if err != nil && errors.As(err, &ae) && ae.Rule == "rur-2015 art. 1" && attempt < 10 {
			// A tie at a cut shows in the standings; one among the quarter
			// winners (seeded by their three games) in the classification.
			for _, view := range []string{"/standings", "/classification"} {
				if err := d.rollTies(view); err != nil {
					return drawOutcome{}, err
				}
			}
			continue
		}
		if err != nil {
			return drawOutcome{}, err
		}
		var out drawOutcome
		for _, ev := range o.Events {
			switch ev.Type {
			case events.TypeTablesDrawn:
				_ = json.Unmarshal(ev.Data, &out.TablesDrawn)
			case events.TypeRepechaged:
				var r events.Repechaged
				_ = json.Unmarshal(ev.Data, &r)
				out.repechages = append(out.repechages, r)
			}
		}
		return out, nil
	}
}

// rollTies records a die roll for every tie the view shows, until none is left.
func (d *raduno) rollTies(view string) error {
	for range 30 {
		var v struct {
			Rows []struct {
				Player   string `json:"player"`
				TieGroup int    `json:"tie_group"`
			} `json:"rows"`
		}
		if err := d.arb.do(d.ctx, "GET", "/v1/tournaments/"+d.t+view, nil, "", &v); err != nil {
			return err
		}
		groups := map[int][]string{}
		var order []int
		for _, r := range v.Rows {
			if r.TieGroup > 0 {
				if groups[r.TieGroup] == nil {
					order = append(order, r.TieGroup)
				}
				groups[r.TieGroup] = append(groups[r.TieGroup], r.Player)
			}
		}
		if len(order) == 0 {
			return nil
		}
		for _, g := range order {
			rolls := make([]int, len(groups[g]))
			for i := range rolls {
				rolls[i] = 1 + d.rng.IntN(6)
			}
			d.must(map[string]any{"type": "RecordTieBreakRoll", "players": groups[g], "rolls": rolls})
			d.printf("  tie-break roll: %s rolled %v\n", strings.Join(groups[g], ", "), rolls)
		}
	}
	return errors.New("demo: ties still unresolved after 30 rounds of rolls")
}

// play records a simulated report for every table of the round.
func (d *raduno) play(round int) error {
	var v struct {
		Tables []struct {
			Table   int      `json:"table"`
			Players []string `json:"players"`
		} `json:"tables"`
	}
	if err := d.arb.do(d.ctx, "GET", fmt.Sprintf("/v1/tournaments/%s/rounds/%d/tables", d.t, round), nil, "", &v); err != nil {
		return err
	}
	rolled := 0
	for _, tb := range v.Tables {
		rep := d.sim.Report(d.rng, round, tb.Table, tb.Players)
		if _, err := d.cmd(resultPayload(rep)); err != nil {
			var ae *apiError
			if !errors.As(err, &ae) || ae.Field != "rolls" {
				return err
			}
			rep.Rolls = sim.Rolls(d.rng, tb.Players)
			rolled++
			d.must(resultPayload(rep))
		}
	}
	d.printf("  %s recorded", plural(len(v.Tables), "result"))
	if rolled > 0 {
		d.printf(" (%d with die rolls at the table)", rolled)
	}
	d.printf("\n")
	return nil
}

func resultPayload(rep commands.RecordResult) any {
	return struct {
		Type string `json:"type"`
		commands.RecordResult
	}{"RecordResult", rep}
}

// report prints the classification and checks the projections against a
// fold of the log read back through the API.
func (d *raduno) report() error {
	var cl projections.Classification
	if err := d.arb.do(d.ctx, "GET", "/v1/tournaments/"+d.t+"/classification", nil, "", &cl); err != nil {
		return err
	}
	d.printf("\nFinal classification (published: %v)\n", cl.Final)
	w := tabwriter.NewWriter(d.out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(w, "rank\tplayer\tname\tclub\tphase\ttotal\tstatus")
	for _, r := range cl.Rows {
		if r.Rank > 20 && r.Status == events.StatusActive {
			continue
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Rank, r.Player, r.Name, r.Club, r.Phase, r.Total, r.Status)
	}
	w.Flush()
	d.printf("… %d ranked (the first 20 and everyone not active are shown)", len(cl.Rows))
	if len(cl.Expelled) > 0 {
		d.printf(", expelled: %s", strings.Join(cl.Expelled, " "))
	}
	d.printf("\n")

	// The log read back through the API, folded, gives what Pebble serves.
	var envs []events.Envelope
	for from := 1; ; {
		req, _ := http.NewRequestWithContext(d.ctx, "GET", fmt.Sprintf("%s/v1/tournaments/%s/events?from=%d&limit=1000", d.arb.base, d.t, from), nil)
		req.Header.Set("Authorization", "Bearer "+d.arb.token)
		req.Header.Set("Accept", "application/x-ndjson")
		res, err := d.arb.http.Do(req)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(nil, 8<<20)
		n := 0
		for sc.Scan() {
			env, err := events.DecodeEnvelope(bytes.Clone(sc.Bytes()))
			if err != nil {
				res.Body.Close()
				return err
			}
			envs = append(envs, env)
			n++
		}
		res.Body.Close()
		if n < 1000 {
			break
		}
		from += n
	}
	st, err := projections.Fold(d.t, envs, 0)
	if err != nil {
		return err
	}
	var served json.RawMessage
	if err := d.arb.do(d.ctx, "GET", "/v1/tournaments/"+d.t+"/classification", nil, "", &served); err != nil {
		return err
	}
	want, _ := json.Marshal(st.Classification())
	verdict := "yes"
	if !sameJSON(served, want) {
		verdict = "NO"
	}
	d.printf("log: %d events; the classification served equals a fold of the log: %s\n", len(envs), verdict)
	if verdict != "yes" {
		return errors.New("demo: the projections differ from a fold of the log")
	}
	return nil
}

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
