package api_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/referto/referto/cmd/referto/sim"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/proof"
)

// TestSeasonRankingPlayerPageAndProof: a MASTER of the 2024 season played
// through the API is in the season's ranking; a player's page shows his
// result counting and links a proof file that verifies offline with the
// server's key; a player without a national id is listed apart.
func TestSeasonRankingPlayerPageAndProof(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	defer s.stop()
	s.playMaster("master-bo", func(i int) string {
		if i == 24 {
			return "" // the venue does not know it
		}
		return fmt.Sprintf("%06d", 200000+i)
	})

	var rk struct {
		Thresholds  string `json:"thresholds"`
		Tournaments []struct {
			ID     string `json:"id"`
			Tables int    `json:"tables"`
			Counts bool   `json:"counts"`
		} `json:"tournaments"`
		Rows []struct {
			NationalID string  `json:"national_id"`
			Score      float64 `json:"score"`
		} `json:"rows"`
		Unlinked []struct {
			Player string `json:"player"`
			Why    string `json:"why"`
		} `json:"unlinked"`
	}
	json.Unmarshal(s.must(200, "GET", "/v1/seasons/2024/ranking", "", nil).body, &rk)
	if rk.Thresholds != "projections/ranking/seasons/2024.json" || len(rk.Tournaments) != 1 || !rk.Tournaments[0].Counts || rk.Tournaments[0].Tables != 6 {
		t.Fatalf("ranking: %+v", rk)
	}
	if len(rk.Rows) != 23 || len(rk.Unlinked) != 1 || rk.Unlinked[0].Player != "p24" || rk.Unlinked[0].Why != "no national id" {
		t.Fatalf("%d rows, unlinked %+v", len(rk.Rows), rk.Unlinked)
	}
	top := rk.Rows[0].NationalID
	var page struct {
		Rank    int `json:"rank"`
		Results []struct {
			Place  int  `json:"place"`
			Counts bool `json:"counts"`
		} `json:"results"`
		Proofs []string `json:"proofs"`
	}
	json.Unmarshal(s.must(200, "GET", "/v1/seasons/2024/players/"+top, "", nil).body, &page)
	if page.Rank != 1 || len(page.Results) != 1 || !page.Results[0].Counts || len(page.Proofs) != 1 {
		t.Fatalf("page of %s: %+v", top, page)
	}
	// The web page of the player links the proof.
	if html := string(s.must(200, "GET", "/ui/seasons/2024/players/"+top, "", nil).body); !strings.Contains(html, `href="`+page.Proofs[0]+`"`) ||
		!strings.Contains(html, "projections/ranking/seasons/2024.json") {
		t.Errorf("the player's page does not link %s:\n%s", page.Proofs[0], html)
	}
	file := s.must(200, "GET", page.Proofs[0], "", nil).body
	var keys struct {
		Checkpoint string `json:"checkpoint"`
	}
	json.Unmarshal(s.must(200, "GET", "/v1/keys", "", nil).body, &keys)
	key, err := checkpoint.NewVerifier(keys.Checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	res, err := proof.Verify(file, key, nil)
	if err != nil {
		t.Fatalf("the served proof does not verify: %v", err)
	}
	if res.Proof.Row.Rank != page.Results[0].Place {
		t.Errorf("the proof proves rank %d, the page says place %d", res.Proof.Row.Rank, page.Results[0].Place)
	}
	// The classification page's row proof is checked by the same verifier,
	// every changed byte refused.
	var rows struct {
		Rows []struct {
			Player string `json:"player"`
		} `json:"rows"`
	}
	json.Unmarshal(s.must(200, "GET", "/v1/tournaments/master-bo/classification", "", nil).body, &rows)
	row := s.must(200, "GET", "/v1/tournaments/master-bo/classification/rows/"+rows.Rows[0].Player+"/proof", "", nil).body
	if res, err := proof.Verify(row, key, nil); err != nil || res.Proof.Row.Rank != 1 {
		t.Fatalf("the row proof does not verify: %v", err)
	}
	for i := range 2 * len(row) {
		at := i / 2
		changed := append([]byte(nil), row...)
		changed[at] ^= byte(1 + i%2) // the lowest bit, then the next
		if _, err := proof.Verify(changed, key, nil); !errors.Is(err, proof.ErrRefused) {
			t.Fatalf("byte %d (%q) of the row proof changed: %v\n%s", at, row[at], err, row[max(0, at-120):min(len(row), at+40)])
		}
	}
}

// playMaster plays a MASTER of the 2024 season through the API: 24 players
// (p1 … p24, each registered with the national id nid gives, none when
// ""), on six tables, two rounds, the final classification published. It
// returns the arbiter's token.
func (s *stack) playMaster(id string, nid func(i int) string) string {
	s.t.Helper()
	s.must(201, "POST", "/v1/tournaments", adminToken, map[string]any{"id": id, "name": "Master " + id, "ruleset": "rtu",
		"params": map[string]any{"qualifying_rounds": 2}, "season": "2024", "tournament_type": "MASTER"})
	arb := s.appoint(id, "arbiter")
	cmds := "/v1/tournaments/" + id + "/commands"
	for i := 1; i <= 24; i++ {
		national := ""
		if n := nid(i); n != "" {
			national = fmt.Sprintf(`,"national_id":%q`, n)
		}
		s.must(201, "POST", cmds, arb, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%d","name":"Giocatore %d"%s}`, i, i, national))
	}
	s.must(201, "POST", cmds, arb, `{"type":"CloseRegistration"}`)
	rng := rand.New(rand.NewPCG(24, 24))
	sm, err := sim.New(sim.Options{})
	if err != nil {
		s.t.Fatal(err)
	}
	for round := 1; round <= 2; round++ {
		for i := 1; i <= 24; i++ {
			s.must(201, "POST", cmds, arb, fmt.Sprintf(`{"type":"CheckIn","round":%d,"player":"p%d"}`, round, i))
		}
		s.must(201, "POST", cmds, arb, fmt.Sprintf(`{"type":"DrawTables","round":%d,"seed":"s%d"}`, round, round))
		s.playRound(id, arb, round, sm, rng)
	}
	s.rollView(id, "classification", arb, rng)
	s.must(201, "POST", cmds, arb, `{"type":"PublishClassification","final":true}`)
	return arb
}
