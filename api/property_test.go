package api_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/referto/referto/cmd/referto/sim"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// TestPropertyStandingsEqualFoldOfLog drives random valid tournaments
// (presets, sizes, parameters, lateness, reserves, results) through the HTTP
// API and checks, after every round, that the standings and tables served
// from Pebble equal a pure fold of the events read back from the log.
func TestPropertyStandingsEqualFoldOfLog(t *testing.T) {
	t.Parallel()
	n := 8
	if testing.Short() {
		n = 3
	}
	s := newStack(t)
	sm, err := sim.New(sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// cirki-2001 games end only by the objective (§12).
	cirki, err := sim.New(sim.Options{Risiko: 1})
	if err != nil {
		t.Fatal(err)
	}
	presets := events.Presets()
	formulas := []string{"tp_bonus", "conv150", "conv200", "standard", "faentino", "spartaco", "maialino", "veronese", "triestino", "wins", "medals", "cirki"}
	for k := range n {
		rng := rand.New(rand.NewPCG(uint64(k), 2026))
		tour := fmt.Sprintf("prop-%d", k)
		preset := presets[rng.IntN(len(presets))]
		params := map[string]any{"qualifying_rounds": 2 + rng.IntN(2)}
		if preset == "rtu" {
			params["scoring"] = formulas[rng.IntN(len(formulas))]
			params["discards"] = rng.IntN(2)
		}
		if preset == "rur-2015" {
			params = map[string]any{}
		}
		s.must(201, "POST", "/v1/tournaments", adminToken, map[string]any{"id": tour, "name": tour, "ruleset": preset, "params": params})
		arb := s.appoint(tour, "arbiter")
		cmd := func(v any) resp {
			return s.do("POST", "/v1/tournaments/"+tour+"/commands", arb, v)
		}
		players := 8 + rng.IntN(33)
		for i := range players {
			r := cmd(map[string]any{"type": "RegisterPlayer", "player": fmt.Sprintf("p%03d", i), "name": fmt.Sprintf("P %d", i),
				"club": fmt.Sprintf("club-%d", rng.IntN(6)), "region": fmt.Sprintf("reg-%d", rng.IntN(3)), "rank": rng.IntN(players + 1)})
			if r.status != 201 {
				t.Fatalf("%s: register: %s", tour, r.body)
			}
		}
		cmd(map[string]any{"type": "CloseRegistration"})
		var reserves []string
		for i := range 1 + rng.IntN(3) {
			reserves = append(reserves, fmt.Sprintf("r%d", i))
			cmd(map[string]any{"type": "DesignateReserve", "player": reserves[i], "name": "Riserva", "club": "club-9"})
		}
		var rs struct {
			Ruleset events.Ruleset `json:"ruleset"`
		}
		json.Unmarshal(s.must(200, "GET", "/v1/tournaments/"+tour, "", nil).body, &rs)
		for round := 1; round <= rs.Ruleset.QualifyingRounds; round++ {
			checkIns := rng.IntN(2) == 0
			if checkIns { // some late, reserves too
				for i := range players {
					cmd(map[string]any{"type": "CheckIn", "round": round, "player": fmt.Sprintf("p%03d", i), "minutes_late": rng.IntN(25)})
				}
				for _, r := range reserves {
					cmd(map[string]any{"type": "CheckIn", "round": round, "player": r, "minutes_late": 0})
				}
			}
			var drawn resp
			for attempt := 0; ; attempt++ {
				drawn = cmd(map[string]any{"type": "DrawTables", "round": round})
				if drawn.status == 201 || attempt > 5 {
					break
				}
				// Not seatable: a reserve more, as an arbiter would.
				x := fmt.Sprintf("x%d-%d", round, attempt)
				reserves = append(reserves, x)
				cmd(map[string]any{"type": "DesignateReserve", "player": x, "name": "Riserva"})
				if checkIns {
					cmd(map[string]any{"type": "CheckIn", "round": round, "player": x, "minutes_late": 0})
				}
			}
			if drawn.status != 201 {
				t.Fatalf("%s round %d: draw: %s", tour, round, drawn.body)
			}
			if preset == "cirki-2001" {
				s.playRound(tour, arb, round, cirki, rng)
			} else {
				s.playRound(tour, arb, round, sm, rng)
			}
			checkAgainstFold(t, s, tour, arb, round)
			if rolled := s.rollTies(tour, arb, rng); rolled > 0 {
				checkAgainstFold(t, s, tour, arb, round)
			}
		}
		t.Logf("%s: %s %v, %d players: Pebble equals the fold of the log", tour, preset, params, players)
	}
}

// rollTies records die rolls, as the arbiters would, for every tie the
// standings show until none is left (bounded), and returns how many rolls
// it recorded. Equal rolls leave a smaller tie that rolls again.
func (s *stack) rollTies(tour, token string, rng *rand.Rand) int {
	s.t.Helper()
	return s.rollView(tour, "standings", token, rng)
}

// rollView is rollTies for a view's ties: "standings" or "classification".
func (s *stack) rollView(tour, view, token string, rng *rand.Rand) int {
	s.t.Helper()
	total := 0
	for range 50 {
		n := s.rollOnce(tour, view, token, rng)
		if n == 0 {
			return total
		}
		total += n
	}
	s.t.Fatalf("%s: ties in the %s still unresolved after 50 rounds of rolls", tour, view)
	return total
}

func (s *stack) rollOnce(tour, view, token string, rng *rand.Rand) int {
	var v struct {
		Rows []struct {
			Player   string `json:"player"`
			TieGroup int    `json:"tie_group"`
		} `json:"rows"`
	}
	json.Unmarshal(s.must(200, "GET", "/v1/tournaments/"+tour+"/"+view, "", nil).body, &v)
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
	// One tie as a roll of its own; several at once, as the arbiters roll
	// them at one call.
	var ties []map[string]any
	for _, g := range order {
		rolls := make([]int, len(groups[g]))
		for i := range rolls {
			rolls[i] = 1 + rng.IntN(6)
		}
		ties = append(ties, map[string]any{"players": groups[g], "rolls": rolls})
	}
	switch len(ties) {
	case 0:
	case 1:
		s.must(201, "POST", "/v1/tournaments/"+tour+"/commands", token, map[string]any{"type": "RecordTieBreakRoll", "players": ties[0]["players"], "rolls": ties[0]["rolls"]})
	default:
		s.must(201, "POST", "/v1/tournaments/"+tour+"/commands", token, map[string]any{"type": "RecordTieBreakRoll", "ties": ties})
	}
	return len(order)
}

// checkAgainstFold compares what the API serves with a fold of the log.
func checkAgainstFold(t *testing.T, s *stack, tour, token string, rounds int) {
	t.Helper()
	var envs []events.Envelope
	for from := uint64(1); ; {
		r := s.must(200, "GET", fmt.Sprintf("/v1/tournaments/%s/events?from=%d&limit=1000", tour, from), token, nil, "Accept", "application/x-ndjson")
		sc := bufio.NewScanner(bytes.NewReader(r.body))
		sc.Buffer(nil, 4<<20)
		n := 0
		for sc.Scan() {
			env, err := events.DecodeEnvelope(sc.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			envs = append(envs, env)
			n++
		}
		if n < 1000 {
			break
		}
		from += uint64(n)
	}
	st, err := projections.Fold(tour, envs, 0)
	if err != nil {
		t.Fatalf("%s: fold of the log: %v", tour, err)
	}
	want, _ := json.Marshal(st.Standings())
	got := s.must(200, "GET", "/v1/tournaments/"+tour+"/standings", "", nil).body
	if !jsonEqual(got, want) {
		t.Fatalf("%s: served standings differ from the fold of the log:\n got %s\nwant %s", tour, got, want)
	}
	for r := 1; r <= rounds; r++ {
		var served struct {
			Tables []json.RawMessage `json:"tables"`
		}
		json.Unmarshal(s.must(200, "GET", fmt.Sprintf("/v1/tournaments/%s/rounds/%d/tables", tour, r), "", nil).body, &served)
		for i, raw := range served.Tables {
			v, _ := st.TableView(r, i+1)
			w, _ := json.Marshal(v)
			if !jsonEqual(raw, w) {
				t.Fatalf("%s: round %d table %d differs from the fold:\n got %s\nwant %s", tour, r, i+1, raw, w)
			}
		}
	}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
