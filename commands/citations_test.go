package commands_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/referto/referto/cmd/referto/sim"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
)

// citedRuleset matches a citation of a rulebook's article or section
// (docs/rules.md#citations): the ruleset it belongs to, and the citation.
var citedRuleset = regexp.MustCompile(`^(rur-2015|campionato-2003|master|cirki-2001|rtu) (art\. [0-9]+|§[^:,()\]"]+)`)

// regimeArticles are the articles a sanction regime applies, whatever the
// preset that adopts it (docs/rules.md#2-rulesets: rtu's regime is rur's):
// its sanctions and what a withdrawal from a game entails.
var regimeArticles = map[events.Regime][]string{
	events.RegimeRUR:    append(events.Offences(), "rur-2015 art. 31"),
	events.RegimeMaster: {"master §penalità", "master §ritiro dal gioco"},
	events.Regime2003:   {"campionato-2003 §penalità", "campionato-2003 §interruzioni partita"},
}

// foreignCitation returns the first citation among cited that does not
// belong to the ruleset's own rulebook, or "": a tournament cites its
// preset's articles, docs/rules.md where its rulebook is silent, the
// articles of the sanction regime it plays under, and campionato-2003's
// lateness and annulment where its parameters adopt them. A tournament
// recorded under rules edition 3 or earlier drew its knockout by bands
// citing rur-2015 art. 8 whatever its ruleset, and replays so
// (docs/rules.md#22-editions-of-the-reading).
func foreignCitation(rs events.Ruleset, cited []string) string {
	allowed := slices.Clone(regimeArticles[rs.Sanctions])
	if rs.RulesEdition() < 4 {
		allowed = append(allowed, "rur-2015 art. 8")
	}
	if rs.LatePenaltyAfter > 0 || rs.LateRefuseAfter > 0 {
		allowed = append(allowed, "campionato-2003 §ritardi")
	}
	if rs.AnnulmentRule() == events.AnnulNextRound {
		allowed = append(allowed, "campionato-2003 §interruzioni partita")
	}
	for _, c := range cited {
		m := citedRuleset.FindStringSubmatch(c)
		if m == nil || m[1] == string(rs.Preset) || slices.Contains(allowed, strings.TrimSpace(m[0])) {
			continue
		}
		return c
	}
	return ""
}

// citedInText matches a citation written in parentheses into a message or
// a detail: "2 players of club \"c1\" at table 2 (rur-2015 art. 8)".
var citedInText = regexp.MustCompile(`\(((?:rur-2015|campionato-2003|master|cirki-2001|rtu) (?:art\. [0-9]+|§[^)]+))\)`)

// citedAtEnd matches a text that ends with a citation in parentheses.
var citedAtEnd = regexp.MustCompile(`\([^()]+\)$`)

// inText lists the citations written in parentheses into a text.
func inText(text string) []string {
	var out []string
	for _, m := range citedInText.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

// citations lists what a decision cites: the rule of every problem of a
// refusal and the articles its message names, and the rule or article the
// code wrote into each event (a sanction's article only when the ledger
// imposed it: an arbiter's is his own words), the unmet constraints of a
// draw included.
func citations(evs []events.Event, err error) []string {
	var out []string
	for _, e := range leafErrors(err) {
		var re *commands.RuleError
		var fe *commands.FieldError
		switch {
		case errors.As(e, &re):
			out = append(out, re.Rule)
		case errors.As(e, &fe) && fe.Rule != "":
			out = append(out, fe.Rule)
		}
		out = append(out, inText(e.Error())...)
	}
	for _, ev := range evs {
		switch e := ev.(type) {
		case events.TablesDrawn:
			for _, u := range e.Unmet {
				out = append(out, inText(u.Detail)...)
			}
		case events.Repechaged:
			out = append(out, e.Rule)
		case events.ContestationFiled:
			out = append(out, e.Rule)
		case events.ContestationRuled:
			out = append(out, e.Rule)
		case events.PlayerCheckedIn:
			out = append(out, e.Rule)
		case events.SanctionImposed:
			if e.Automatic {
				out = append(out, e.Article)
			}
		case events.ResultProposed:
			for _, p := range e.Problems {
				out = append(out, p.Rule)
			}
		}
	}
	return out
}

// TestEveryPresetCitesItsOwnRulebook plays the same decisions under every
// preset, each refused or recorded with a rule, and holds every citation
// to the tournament's own rulebook (docs/rules.md#citations): "No event
// ever cites another ruleset's article". TestDecide holds every rule file
// to it too.
func TestEveryPresetCitesItsOwnRulebook(t *testing.T) {
	script := []string{
		`{"type":"RegisterPlayer","player":"p08","name":"Minor","minor":true}`,
		`{"type":"RegisterPlayer","player":"p08","name":"Minor","minor":true,"waiver":"with his father"}`,
		`{"type":"RefuseRegistration","player":"x1","name":"Applicant","reason":"threats at the last Raduno"}`,
		`{"type":"DrawTables","round":1,"seed":"early"}`,
		`{"type":"CloseRegistration"}`,
		`{"type":"RegisterPlayer","player":"late","name":"Late"}`,
		`{"type":"DrawTables","round":1,"tables":[{"table":1,"players":["p01","p02","p03","p04"]},{"table":2,"players":["p05","p06","p07","p08"]}]}`,
		`{"type":"AmendRuleset","params":{"bonus":60}}`,
		`{"type":"RefuseRegistration","player":"p08","reason":"late"}`,
		`{"type":"RecordTieBreakRoll","players":["p01","p02"],"rolls":[3,4]}`,
		`{"type":"ImposeSanction","player":"p07","round":1,"table":2,"kind":"disqualification","article":"the arbiters' decision"}`,
		`{"type":"RecordResult","round":1,"table":1,"closed_by":"time","players":[{"player":"p01","turn":1,"table_points":99,"armies":400,"status":"finished"},{"player":"p02","turn":2,"table_points":84,"status":"finished"},{"player":"p03","turn":3,"table_points":81,"status":"withdrawn"},{"player":"p04","turn":4,"table_points":80,"status":"disqualified"}]}`,
		`{"type":"RecordResult","round":1,"table":1,"closed_by":"objective","risiko":true,"winner":"p01","players":[{"player":"p01","turn":1,"objective":1,"territories_held":["alaska"]},{"player":"p02","turn":2,"table_points":10,"status":"finished"},{"player":"p03","turn":3,"table_points":10,"status":"finished"},{"player":"p04","turn":4,"table_points":10,"status":"finished"}]}`,
		`{"type":"Withdraw","player":"p03","scope":"game","round":1,"reason":"ruling_refused"}`,
		`{"type":"RecordResult","round":1,"table":1,"closed_by":"time","players":[{"player":"p01","turn":1,"table_points":40,"status":"finished"},{"player":"p02","turn":2,"table_points":30,"status":"finished"},{"player":"p03","turn":3,"table_points":20,"status":"finished"},{"player":"p04","turn":4,"table_points":10,"status":"finished"}]}`,
		`{"type":"RecordResult","round":1,"table":1,"closed_by":"time","players":[{"player":"p01","turn":1,"table_points":40,"status":"finished"},{"player":"p02","turn":2,"table_points":30,"status":"finished"},{"player":"p03","turn":3,"table_points":20,"status":"withdrawn"},{"player":"p04","turn":4,"table_points":10,"status":"finished"}]}`,
		`{"type":"AnnulGame","round":1,"table":2,"reason":"the board was overturned"}`,
		`{"type":"RecordResult","round":1,"table":2,"closed_by":"time","players":[{"player":"p05","turn":1,"table_points":40,"status":"finished"},{"player":"p06","turn":2,"table_points":30,"status":"finished"},{"player":"p07","turn":3,"table_points":20,"status":"finished"},{"player":"p08","turn":4,"table_points":10,"status":"finished"}]}`,
		`{"type":"FileContestation","against":1,"claim":"p08 still sits at table 2","effect":"expelled_seated"}`,
		`{"type":"RuleContestation","contestation":"c1","upheld":true,"ruling":"admitted"}`,
		`{"type":"CheckIn","round":2,"player":"p01","minutes_late":25}`,
		`{"type":"Repechage","phase":"final","replaces":"p06"}`,
		`{"type":"Renounce","player":"p05","phase":"final"}`,
		`{"type":"DrawTables","round":3,"seed":"none"}`,
		`{"type":"PublishClassification","final":true}`,
	}
	for _, preset := range events.Presets() {
		t.Run(string(preset), func(t *testing.T) {
			h := &harness{t: t}
			if out := h.create(string(preset), `{"qualifying_rounds":1,"knockout":"final4"}`); out != "ok" {
				t.Fatalf("create: %s", out)
			}
			for i := 1; i <= 7; i++ {
				if out := h.do(fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%02d","name":"Player %d"}`, i, i)); out != "" {
					t.Fatalf("register: %s", out)
				}
			}
			cited := 0
			for _, line := range script {
				c, err := commands.Parse([]byte(line))
				if err != nil {
					t.Fatalf("%s: %v", line, err)
				}
				evs, err := h.decide(c)
				cs := citations(evs, err)
				cited += len(cs)
				if f := foreignCitation(h.st.Ruleset, cs); f != "" {
					t.Errorf("%s: %s cites %q, another ruleset's article", preset, line, f)
				}
				if err == nil {
					h.fold(evs)
				}
			}
			if cited < 12 {
				t.Errorf("%s: only %d citations in the script: it no longer reaches the refusals it was written for", preset, cited)
			}
		})
	}
}

// TestEveryPresetsBandDrawCitesItsOwnRulebook draws the semifinals of 16 by
// bands under every preset, by the algorithm and by hand, with players of
// two clubs so that every table breaks the club constraint, and holds what
// the draws cite, in their unmet constraints and their refusals, to the
// tournament's own rulebook (docs/rules.md#citations): a master or rtu
// semifinal is drawn as the Raduno's, and cites its own rulebook all the
// same.
func TestEveryPresetsBandDrawCitesItsOwnRulebook(t *testing.T) {
	for _, preset := range events.Presets() {
		t.Run(string(preset), func(t *testing.T) {
			h := &harness{t: t}
			knockout := `,"knockout":"semis16"` // master's, and rtu's; the Raduno's is its own
			if preset == events.PresetRUR2015 {
				knockout = ""
			}
			if out := h.create(string(preset), `{"qualifying_rounds":1`+knockout+`}`); out != "ok" {
				t.Fatalf("create: %s", out)
			}
			for i := 1; i <= 16; i++ {
				if out := h.do(fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%02d","name":"Player %d","club":"c%d"}`, i, i, i%2+1)); out != "" {
					t.Fatalf("register: %s", out)
				}
			}
			for _, line := range []string{`{"type":"CloseRegistration"}`, `{"type":"DrawTables","round":1,"seed":"qualifying"}`} {
				if out := h.do(line); out != "" {
					t.Fatalf("%s: %s", line, out)
				}
			}
			opts := sim.Options{}
			if preset == events.PresetCirki2001 {
				opts.Risiko, opts.BoardChecked = 1, 1e-12 // cirki reports figures: no objective set
			}
			sm, err := sim.New(opts)
			if err != nil {
				t.Fatal(err)
			}
			if tb, out := h.play(sm, rand.New(rand.NewPCG(16, 1)), 1); out != "ok" {
				t.Fatalf("table %d: %s", tb, out)
			}
			if _, out := h.rollTies(); out != "" {
				t.Fatalf("rolls: %s", out)
			}
			// One of each band at each table, as the standings seed them.
			var order []string
			for _, r := range h.st.StandingRows() {
				order = append(order, r.Player)
			}
			if len(order) != 16 {
				t.Fatalf("%d ranked players, want 16", len(order))
			}
			tables := make([][]string, 4)
			for i, p := range order {
				tables[i%4] = append(tables[i%4], p)
			}
			byHand := func(tables [][]string) string {
				var tbs []string
				for i, tb := range tables {
					players, _ := json.Marshal(tb)
					tbs = append(tbs, fmt.Sprintf(`{"table":%d,"players":%s}`, i+1, players))
				}
				return fmt.Sprintf(`{"type":"DrawTables","round":2,"tables":[%s]}`, strings.Join(tbs, ","))
			}
			short := [][]string{tables[0][:3], append(slices.Clone(tables[1]), tables[0][3]), tables[2], tables[3]}
			for i, line := range []string{`{"type":"DrawTables","round":2,"seed":"semifinals"}`, byHand(tables), byHand(short)} {
				c, err := commands.Parse([]byte(line))
				if err != nil {
					t.Fatalf("%s: %v", line, err)
				}
				evs, err := h.decide(c)
				// What each draw writes cites a rule: the unmet constraints
				// of the first two, the refusal of the third.
				var texts []string
				for _, ev := range evs {
					if d, ok := ev.(events.TablesDrawn); ok {
						for _, u := range d.Unmet {
							texts = append(texts, u.Detail)
						}
					}
				}
				if err != nil {
					texts = append(texts, err.Error())
				}
				if refused := i == 2; (err != nil) != refused || len(texts) == 0 {
					t.Fatalf("%s: %s: refused %v (%v), %d unmet constraints: the draw no longer reaches what it was written for", preset, line, err != nil, err, len(texts))
				}
				for _, text := range texts {
					if !citedAtEnd.MatchString(text) {
						t.Errorf("%s: %q cites no rule", preset, text)
					}
				}
				if f := foreignCitation(h.st.Ruleset, citations(evs, err)); f != "" {
					t.Errorf("%s: %s cites %q, another ruleset's article", preset, line, f)
				}
			}
		})
	}
}
