package draw

// The requests TestDrawGolden draws (genPrepRequest) and the outcomes it compares with
// draw_golden_test.go. With -tags drawref, TestPrepareMatchesRef compares the same requests
// with the frozen pre-rewrite copies of prepare and metBefore.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// mix is a splitmix64 generator: the request generator below must give the same requests on
// every Go version, since the golden results in draw_golden_test.go were recorded from them.
type mix struct{ s uint64 }

func (m *mix) next() uint64 {
	m.s += 0x9e3779b97f4a7c15
	z := m.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (m *mix) intn(n int) int { return int(m.next() % uint64(n)) }

// pct is true with probability p/1000.
func (m *mix) pm(p int) bool { return m.intn(1000) < p }

func (m *mix) perm(n int) []int {
	p := identity(n)
	for i := n - 1; i > 0; i-- {
		j := m.intn(i + 1)
		p[i], p[j] = p[j], p[i]
	}
	return p
}

func (m *mix) shufflePast(ps []Past) {
	for i := len(ps) - 1; i > 0; i-- {
		j := m.intn(i + 1)
		ps[i], ps[j] = ps[j], ps[i]
	}
}

// genPrepRequest draws request number i: sizes from 1 to 3,000 entrants, up to 20 earlier
// rounds played at tables of 3 to 5 (some of them at a sparse or huge round or table number),
// past games in round order, shuffled or by table, unknown players and table 0, every
// algorithm, and, with small probabilities, each kind of malformed input prepare and
// metBefore reject: duplicate or empty player ids, negative ranks, a player with two games in
// a round, a past round at or after the current one, a negative place, an over-full table.
func genPrepRequest(i int) (req Request) {
	m := &mix{s: uint64(i)*0x51ed27 + 7}
	var n int
	switch {
	case i%40 == 0:
		n = 1000 + m.intn(2001)
	case i%8 == 0:
		n = 200 + m.intn(800)
	case i%50 == 1:
		n = 1 + m.intn(12)
	default:
		n = 6 + m.intn(150)
	}
	es := make([]Entrant, n)
	clubs, regions := 1+m.intn(n/5+1), 1+m.intn(12)
	for k := range es {
		es[k].Player = fmt.Sprintf("p%d", 3*k+m.intn(3)) // numeric and string order differ
		if !m.pm(100) {
			es[k].Club = fmt.Sprintf("c%d", m.intn(clubs))
		}
		if !m.pm(150) {
			es[k].Region = fmt.Sprintf("r%d", m.intn(regions))
		}
		if m.pm(400) {
			es[k].Rank = 1 + m.intn(n)
		}
	}
	for k, j := range m.perm(n) { // entrants in any order
		es[k], es[j] = es[j], es[k]
	}
	switch {
	case m.pm(15):
		es[m.intn(n)].Player = ""
	case m.pm(15) && n > 1:
		es[m.intn(n)].Player = es[m.intn(n)].Player
	case m.pm(15):
		es[m.intn(n)].Rank = -1 - m.intn(3)
	case m.pm(8):
		defer func() { req.Entrants = nil }() // a draw without entrants
	}
	algs := []string{AlgRandom, AlgRURGame1, AlgRURGame2, AlgRURGame2, AlgSeeded2003, AlgSeeded2003, AlgRandom, AlgManual, AlgBands, AlgGroups}
	req = Request{Algorithm: algs[m.intn(len(algs))], Entrants: es, Seed: fmt.Sprintf("seed-%d", i)}
	if m.pm(10) {
		req.Algorithm = "nonesuch"
	}
	sizes := [][]int{{4}, {4, 5}, {3, 4}, {4, 5}, {5}, {4, 3}, {4, 5}, {4, 3}, {5, 4}, {3, 4, 5}}
	req.Sizes = sizes[m.intn(len(sizes))]
	if m.pm(300) {
		req.SmallTableMax = 11
	}
	switch {
	case m.pm(10):
		req.Sizes = nil
	case m.pm(10):
		req.Sizes = []int{4, 4}
	}

	// Earlier rounds.
	rounds := m.intn(21)
	req.Round = rounds + 1
	roundNumbers := identity(rounds)
	for k := range roundNumbers {
		roundNumbers[k]++
	}
	switch {
	case m.pm(80): // gaps: some rounds have no games
		req.Round += m.intn(5)
		for k := range roundNumbers {
			roundNumbers[k] = 1 + m.intn(req.Round-1)
		}
		roundNumbers = slices.Compact(slices.Sorted(slices.Values(roundNumbers)))
	case m.pm(40): // far rounds, beyond 64
		req.Round = 100 + m.intn(1_000_000)
		for k := range roundNumbers {
			roundNumbers[k] = 1 + m.intn(req.Round-1)
		}
		roundNumbers = slices.Compact(slices.Sorted(slices.Values(roundNumbers)))
	}
	if m.pm(10) {
		req.Round = 0
	}
	tableStep, tableBase := 1, 1
	switch {
	case m.pm(40):
		tableStep = 1 + m.intn(1000)
	case m.pm(20):
		tableBase = 1_000_000_000
	}
	byTable := m.pm(200)
	var past []Past
	for _, round := range roundNumbers {
		size := 3 + m.intn(3)
		var roundPast []Past
		for k, p := range m.perm(n) {
			if m.pm(50) {
				continue // not played
			}
			g := Past{Player: es[p].Player, Round: round, Table: tableBase + (k/size)*tableStep, Place: k%size + 1, Score: int64(m.intn(20000)) - 5000}
			if m.pm(20) {
				g.Table = 0
			}
			if m.pm(20) {
				g.Place = 0
			}
			roundPast = append(roundPast, g)
		}
		for range m.intn(6) { // players who are not entrants, sometimes many at one table
			roundPast = append(roundPast, Past{Player: fmt.Sprintf("x%d", m.intn(40)), Round: round, Table: 1 + m.intn(3), Place: 1 + m.intn(4), Score: int64(m.intn(9000))})
		}
		if byTable {
			slices.SortStableFunc(roundPast, func(a, b Past) int { return a.Table - b.Table })
		}
		past = append(past, roundPast...)
	}
	// Drop the unknown players' duplicates the generator made: they are added on purpose below.
	seen := map[string]bool{}
	past = slices.DeleteFunc(past, func(p Past) bool {
		k := fmt.Sprint(p.Player, "/", p.Round)
		if seen[k] {
			return true
		}
		seen[k] = true
		return false
	})
	switch m.intn(6) {
	case 0:
		m.shufflePast(past)
	case 1:
		slices.Reverse(past)
	}
	if len(past) > 0 {
		at := func() int { return m.intn(len(past)) }
		if m.pm(40) { // a player with two games in a round
			p := past[at()]
			p.Table++
			past = slices.Insert(past, at(), p)
		}
		if m.pm(15) { // an unknown player with two games in a round
			p := past[at()]
			p.Player = "x-twice"
			past = slices.Insert(past, at(), p, p)
		}
		if m.pm(30) { // a past round at or after the current one
			past[at()].Round = req.Round + m.intn(2)
		}
		if m.pm(15) {
			past[at()].Round = -m.intn(2)
		}
		if m.pm(15) {
			past[at()].Place = -1
		}
		if m.pm(15) {
			past[at()].Player = ""
		}
		if m.pm(60) { // an over-full table: every game of one round at one table
			r, t := past[at()].Round, past[at()].Table
			for k := range past {
				if past[k].Round == r && (m.pm(900) || t == 0) {
					past[k].Table = t
				}
			}
		}
	}
	req.Past = past

	// Bands, groups and manual tables.
	order := m.perm(n)
	switch req.Algorithm {
	case AlgBands:
		width := (n + 3) / 4
		for k, p := range order {
			if k%width == 0 {
				req.Bands = append(req.Bands, nil)
			}
			req.Bands[len(req.Bands)-1] = append(req.Bands[len(req.Bands)-1], es[p].Player)
		}
	case AlgGroups:
		for k, p := range order {
			if k%4 == 0 {
				req.Bands = append(req.Bands, nil)
			}
			req.Bands[len(req.Bands)-1] = append(req.Bands[len(req.Bands)-1], es[p].Player)
		}
	case AlgManual:
		plan, err := Plan(n, req.Sizes, req.SmallTableMax)
		if err != nil || m.pm(100) {
			plan = nil
			for k := 0; k < n; k += 4 {
				plan = append(plan, min(4, n-k))
			}
		}
		for _, size := range plan {
			tb := Table{Table: len(req.Tables) + 1}
			for _, p := range order[:size] {
				tb.Players = append(tb.Players, es[p].Player)
			}
			order = order[size:]
			req.Tables = append(req.Tables, tb)
		}
		as := []string{"", "", AlgRURGame2, AlgRURGame1, AlgSeeded2003}
		req.ManualAs = as[m.intn(len(as))]
		if m.pm(30) {
			req.ManualAs = "nonesuch"
		}
	}
	return req
}

// prepCases is how many generated requests the tests compare (fewer under -short).
func prepCases() int {
	if testing.Short() {
		return 200
	}
	return 1200
}

// drawOutcome is what Draw returned for a request: the error with its class, or the SHA-256
// of the result's JSON (tables, unmet, algorithm, version, seed).
func drawOutcome(req Request) string {
	res, err := Draw(req)
	if err != nil {
		class := "other"
		for name, sentinel := range map[string]error{"input": ErrInput, "sizes": ErrSizes, "algorithm": ErrUnknownAlgorithm, "version": ErrUnknownVersion} {
			if errors.Is(err, sentinel) {
				class = name
			}
		}
		return "error " + class + ": " + err.Error()
	}
	b, err := json.Marshal(res)
	if err != nil {
		panic(err)
	}
	sum := sha256.Sum256(b)
	return "ok " + hex.EncodeToString(sum[:])
}

// TestDrawGolden runs Draw on the generated requests and requires the outcomes recorded in
// draw_golden_test.go, recorded with the code before prepare and metBefore were rewritten.
// REFERTO_DRAW_GOLDEN=path rewrites that file from the current code instead.
func TestDrawGolden(t *testing.T) {
	n := len(drawGolden)
	if out := os.Getenv("REFERTO_DRAW_GOLDEN"); out != "" {
		n = prepCases()
		var b strings.Builder
		b.WriteString("package draw\n\n// Code generated by TestDrawGolden with REFERTO_DRAW_GOLDEN set; DO NOT EDIT.\n\n")
		b.WriteString("// drawGolden[i] is drawOutcome(genPrepRequest(i)) as the draw code gave it before\n// prepare and metBefore were rewritten around index arrays.\n")
		b.WriteString("var drawGolden = []string{\n")
		for i := range n {
			fmt.Fprintf(&b, "\t%q,\n", drawOutcome(genPrepRequest(i)))
		}
		b.WriteString("}\n")
		if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if testing.Short() {
		n = min(n, prepCases())
	}
	var ok int
	for i := range n {
		got := drawOutcome(genPrepRequest(i))
		if got != drawGolden[i] {
			t.Errorf("case %d: Draw gave %s, recorded %s", i, got, drawGolden[i])
		}
		if strings.HasPrefix(got, "ok ") {
			ok++
		}
	}
	t.Logf("%d draws, %d without error", n, ok)
}
