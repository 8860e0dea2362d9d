package api_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi/datamodel/high/base"

	"github.com/referto/referto/commands"
)

// The contract is exact: for every command the API accepts, the smallest
// payload the OpenAPI document allows is one the server takes, and every
// field the document requires is one the server refuses to go without.
//
// The payloads are not written here: each step gives an example with
// every field a real client would send (optional ones included), and the
// test cuts it down to what the document's schema for that command
// requires (its `required`, the `then` of every `if` the example meets,
// the first `anyOf` alternative it meets), recursively into nested objects
// that have required fields of their own (a table report's lines, a
// penalty). Then, in a state where the command applies:
//
//   - each required field left out of the smallest payload, one at a
//     time, must be refused with a problem naming that field (the document
//     requires nothing the server does without);
//   - the smallest payload itself must be accepted (the server requires
//     nothing the document leaves optional); when it is refused, the
//     failure lists the fields the problem names that the payload lacks.
//
// Every request goes through the stack, so the accepted ones are also
// validated against the document when the test ends (openapi_test.go).

// contract sends the commands of one test through the schema.
type contract struct {
	t       *testing.T
	s       *stack
	o       *openAPIDoc
	checked map[string]bool
}

// send checks the command named by schema (a component of the document)
// at method and path, from example, and returns the response to its
// smallest payload, which must have status want.
func (c *contract) send(schema, method, path string, example map[string]any, want int) resp {
	c.t.Helper()
	sp, ok := c.o.model.Components.Schemas.Get(schema)
	if !ok {
		c.t.Fatalf("the document has no schema %s", schema)
	}
	smallest, fields, missing := c.prune(example, sp.Schema(), "")
	if len(missing) > 0 {
		c.t.Fatalf("%s: the example lacks %s, which the document requires: give it a value", schema, strings.Join(missing, ", "))
	}
	minimal := smallest.(map[string]any)
	for _, field := range fields {
		r := c.s.do(method, path, adminToken, without(minimal, field))
		switch named := problemFields(r.body); {
		case r.status/100 == 2:
			c.t.Errorf("%s without %s: accepted (%d), yet the document requires %s", schema, field, r.status, field)
		case !slices.Contains(named, field):
			c.t.Errorf("%s without %s: %d %s\n\twant a refusal naming %s (the document requires it)", schema, field, r.status, r.body, field)
		}
	}
	r := c.s.do(method, path, adminToken, minimal)
	if r.status != want {
		var unsent []string
		for _, f := range problemFields(r.body) {
			if f != "" && !slices.Contains(fields, f) && !slices.Contains(unsent, f) {
				unsent = append(unsent, f)
			}
		}
		hint := ""
		if len(unsent) > 0 {
			hint = fmt.Sprintf("\n\tthe server names %s, which the document does not require", strings.Join(unsent, ", "))
		}
		c.t.Fatalf("%s: the smallest payload the document allows\n\t%s\nanswered %d, want %d: %s%s", schema, js(minimal), r.status, want, r.body, hint)
	}
	c.checked[schema] = true
	return r
}

// prune keeps what s requires of v, recursively. fields lists the fields
// kept as the server names them (players[0].turn), a field of an array's
// objects once, at the first item that has it; missing lists the required
// fields v lacks.
func (c *contract) prune(v any, s *base.Schema, at string) (kept any, fields, missing []string) {
	if s == nil {
		return v, nil, nil
	}
	if len(s.OneOf) > 0 {
		for _, b := range s.OneOf {
			if c.meets(v, b.Schema()) {
				return c.prune(v, b.Schema(), at)
			}
		}
		return v, nil, []string{at + " (no branch of its oneOf)"}
	}
	switch v := v.(type) {
	case map[string]any:
		required := c.required(v, s)
		if len(required) == 0 && at != "" {
			// A free-form object (ruleset parameters, die rolls by
			// player): a value, not a set of fields.
			return v, nil, nil
		}
		out := map[string]any{}
		for _, k := range required {
			val, ok := v[k]
			if !ok {
				missing = append(missing, join(at, k))
				continue
			}
			var ps *base.Schema
			if s.Properties != nil {
				if p, ok := s.Properties.Get(k); ok {
					ps = p.Schema()
				}
			}
			k2, f, m := c.prune(val, ps, join(at, k))
			out[k] = k2
			fields, missing = append(append(fields, join(at, k)), f...), append(missing, m...)
		}
		return out, fields, missing
	case []any:
		if s.Items == nil || s.Items.A == nil {
			return v, nil, nil
		}
		out := make([]any, len(v))
		seen := map[string]bool{}
		for i, item := range v {
			k, f, m := c.prune(item, s.Items.A.Schema(), fmt.Sprintf("%s[%d]", at, i))
			out[i], missing = k, append(missing, m...)
			for _, field := range f {
				if tmpl := indexRE.ReplaceAllString(field, "[]"); !seen[tmpl] {
					seen[tmpl] = true
					fields = append(fields, field)
				}
			}
		}
		return out, fields, missing
	}
	return v, nil, nil
}

// required is what s requires of the object v: its required list, the
// then-required of each if (in s or its allOf) that v meets, and the
// first anyOf alternative v meets.
func (c *contract) required(v map[string]any, s *base.Schema) []string {
	out := slices.Clone(s.Required)
	parts := []*base.Schema{s}
	for _, a := range s.AllOf {
		parts = append(parts, a.Schema())
	}
	for _, p := range parts {
		if p.If != nil && p.Then != nil && c.meets(v, p.If.Schema()) {
			out = append(out, p.Then.Schema().Required...)
		}
		if p != s {
			out = append(out, p.Required...)
		}
		for _, alt := range p.AnyOf {
			if c.meets(v, alt.Schema()) {
				out = append(out, alt.Schema().Required...)
				break
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// meets reports whether v is valid against s.
func (c *contract) meets(v any, s *base.Schema) bool {
	b, _ := json.Marshal(v)
	ok, _ := c.o.schemas.ValidateSchemaBytes(s, b)
	return ok
}

func join(at, k string) string {
	if at == "" {
		return k
	}
	return at + "." + k
}

// without is a copy of v without the field at path.
func without(v map[string]any, path string) map[string]any {
	var cp map[string]any
	b, _ := json.Marshal(v)
	_ = json.Unmarshal(b, &cp)
	var cur any = cp
	parts := strings.Split(path, ".")
	for i, part := range parts {
		name, index := part, -1
		if j := strings.IndexByte(part, '['); j >= 0 {
			name = part[:j]
			fmt.Sscanf(part[j:], "[%d]", &index)
		}
		m := cur.(map[string]any)
		if i == len(parts)-1 && index < 0 {
			delete(m, name)
			break
		}
		cur = m[name]
		if index >= 0 {
			cur = cur.([]any)[index]
		}
	}
	return cp
}

// problemFields lists the fields a problem names.
func problemFields(body []byte) []string {
	var p struct {
		Field  string `json:"field"`
		Errors []struct {
			Field string `json:"field"`
		} `json:"errors"`
	}
	_ = json.Unmarshal(body, &p)
	out := []string{p.Field}
	for _, e := range p.Errors {
		out = append(out, e.Field)
	}
	return out
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestEveryCommandsSmallestPayloadIsExactlyWhatTheServerNeeds plays two
// small tournaments (rtu with a final of four; a campionato-2003 round for
// the annulled game) and checks every command type at a point where it
// applies, as described above. Only Repechage is expected to be refused:
// the repechage is made by the renunciation itself, so the manual one is
// refused for a rule (422), having been read whole.
func TestEveryCommandsSmallestPayloadIsExactlyWhatTheServerNeeds(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	o, err := loadOpenAPI(s.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	c := &contract{t: t, s: s, o: o, checked: map[string]bool{}}
	const tour = "contract"
	base := "/v1/tournaments/" + tour
	cmds := base + "/commands"
	setup := func(body map[string]any) resp {
		t.Helper()
		return s.must(201, "POST", cmds, adminToken, body)
	}
	command := func(example map[string]any) resp {
		t.Helper()
		return c.send(example["type"].(string), "POST", cmds, example, 201)
	}

	c.send("CreateTournament", "POST", "/v1/tournaments", map[string]any{
		"id": tour, "name": "Torneo del contratto", "ruleset": "rtu", "params": map[string]any{"discards": 0}}, 201)
	command(map[string]any{"type": "AmendRuleset", "params": map[string]any{"qualifying_rounds": 1, "knockout": "final4"}, "reason": "one game and a final"})
	c.send("AppointOfficial", "POST", base+"/officials", map[string]any{"type": "AppointOfficial", "name": "Arbitro capo", "role": "arbiter"}, 201)

	command(map[string]any{"type": "RegisterPlayer", "player": "p1", "name": "Mario Rossi", "club": "Bologna – Asinelli", "region": "Emilia-Romagna", "rank": 12})
	for _, p := range []string{"p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9", "r1"} {
		setup(map[string]any{"type": "RegisterPlayer", "player": p, "name": "Giocatore " + p})
	}
	command(map[string]any{"type": "RefuseRegistration", "player": "p9", "name": "Giocatore p9", "reason": "entry fee unpaid"})
	command(map[string]any{"type": "DesignateReserve", "player": "r1", "name": "Giocatore r1", "club": "Modena"})
	command(map[string]any{"type": "CloseRegistration"})

	command(map[string]any{"type": "CheckIn", "round": 1, "player": "p1", "minutes_late": 0, "absent": false})
	for _, p := range []string{"p2", "p3", "p4", "p5", "p6", "p7", "r1"} {
		setup(map[string]any{"type": "CheckIn", "round": 1, "player": p})
	}
	setup(map[string]any{"type": "CheckIn", "round": 1, "player": "p8", "absent": true})
	command(map[string]any{"type": "SubstituteReserve", "round": 1, "absent": "p8", "reserve": "r1"})
	command(map[string]any{"type": "DrawTables", "round": 1, "seed": "contract"})
	var drawn struct {
		Tables []struct {
			Players []string `json:"players"`
		} `json:"tables"`
	}
	if err := json.Unmarshal(s.must(200, "GET", base+"/rounds/1/tables", "", nil).body, &drawn); err != nil || len(drawn.Tables) != 2 {
		t.Fatalf("round 1: %v %+v", err, drawn)
	}
	t1, t2 := drawn.Tables[0].Players, drawn.Tables[1].Players
	command(map[string]any{"type": "SetTurnOrder", "round": 1, "table": 1, "order": t1})
	command(map[string]any{"type": "Withdraw", "player": t1[3], "scope": "game", "reason": "voluntary", "round": 1, "table": 1, "detail": "felt unwell"})
	imposed := command(map[string]any{"type": "ImposeSanction", "player": t1[0], "round": 1, "table": 1, "kind": "reminder",
		"article": "rur-2015 art. 21", "reason": "slow play"})
	command(map[string]any{"type": "ImposeSanction", "player": t1[1], "round": 1, "table": 1, "kind": "table_points", "amount": 5,
		"article": "rur-2015 art. 19", "reason": "a card shown"})
	command(map[string]any{"type": "RevokeSanction", "sanction": firstData(t, imposed, "sanction"), "ruling": "the clock was stopped"})

	seat := func(p string, turn, tp, off, objT, terr, armies, cards int, status string) map[string]any {
		return map[string]any{"player": p, "turn": turn, "table_points": tp, "off_objective_points": off,
			"objective_territories": objT, "territories": terr, "armies": armies, "objective_armies": armies / 2, "cards": cards, "status": status}
	}
	eliminated := seat(t1[2], 3, 0, 0, 0, 0, 0, 0, "eliminated")
	eliminated["eliminated_order"] = 1
	// The players' own links: table 2's report proposed, disputed,
	// proposed again, confirmed, and recorded by the arbiter in one action.
	c.send("IssuePlayerTokens", "POST", base+"/player-tokens", map[string]any{"type": "IssuePlayerTokens", "players": append(slices.Clone(t1), t2...)}, 201)
	command(map[string]any{"type": "RevokePlayerToken", "player": t2[3], "reason": "the slip was lost"})
	proposal := func(tp int) map[string]any {
		return map[string]any{"type": "ProposeResult", "player": t2[0], "round": 1, "table": 2, "closed_by": "time", "winner": t2[0], "risiko": false,
			"players": []any{seat(t2[0], 1, 50, 2, 9, 14, 40, 2, "finished"), seat(t2[1], 2, 40, 3, 8, 12, 35, 1, "finished"),
				seat(t2[2], 3, 30, 2, 6, 9, 20, 0, "finished"), seat(t2[3], 4, tp, 1, 6, 7, 30, 3, "finished")}, "rolls": map[string]any{}}
	}
	disputed := command(proposal(31))
	command(map[string]any{"type": "DisputeProposal", "player": t2[3], "proposal": firstData(t, disputed, "proposal"), "reason": "I had 30 table points"})
	proposed := setup(proposal(30))
	for _, p := range t2[1:3] {
		setup(map[string]any{"type": "ConfirmProposal", "player": p, "proposal": firstData(t, proposed, "proposal")})
	}
	command(map[string]any{"type": "ConfirmProposal", "player": t2[3], "proposal": firstData(t, proposed, "proposal")})
	recorded2 := command(map[string]any{"type": "RecordResult", "round": 1, "table": 2, "proposal": firstData(t, proposed, "proposal")})

	command(map[string]any{"type": "RecordResult", "round": 1, "table": 1, "closed_by": "time", "winner": t1[0], "risiko": false,
		"players": []any{seat(t1[0], 1, 50, 2, 9, 14, 40, 2, "finished"), seat(t1[1], 2, 40, 3, 8, 12, 35, 1, "finished"),
			eliminated, seat(t1[3], 4, 30, 1, 6, 10, 30, 3, "withdrawn")}})
	result2 := recorded2

	// The two winners scored alike, and so did the two seconds: the
	// standings owe die rolls.
	var standings struct {
		Rows []struct {
			Player   string `json:"player"`
			TieGroup int    `json:"tie_group"`
		} `json:"rows"`
	}
	json.Unmarshal(s.must(200, "GET", base+"/standings", "", nil).body, &standings)
	var tied []string
	for _, r := range standings.Rows {
		if r.TieGroup == 1 {
			tied = append(tied, r.Player)
		}
	}
	if len(tied) != 2 {
		t.Fatalf("want a tie of two in the standings, got %+v", standings.Rows)
	}
	command(map[string]any{"type": "RecordTieBreakRoll", "players": tied, "rolls": []int{6, 2}})
	s.rollTies(tour, adminToken, rand.New(rand.NewPCG(1, 2)))

	filed := command(map[string]any{"type": "FileContestation", "against": firstSeq(t, result2), "claim": "the fourth had 32 table points",
		"effect": "classification_differs", "by": t2[3]})
	command(map[string]any{"type": "RuleContestation", "contestation": firstData(t, filed, "contestation"), "upheld": false,
		"ruling": "the slip says 30", "corrections": []any{}})

	command(map[string]any{"type": "Renounce", "player": t2[1], "phase": "final", "reason": "a train to catch"})
	c.send("Repechage", "POST", cmds, map[string]any{"type": "Repechage", "phase": "final", "replaces": t2[1]}, 422)
	final := setup(map[string]any{"type": "DrawTables", "round": 2, "seed": "final"})
	var players []string
	if err := json.Unmarshal(firstField(t, final, "tables"), &drawn.Tables); err != nil || len(drawn.Tables) != 1 {
		t.Fatalf("final: %v %s", err, final.body)
	}
	players = drawn.Tables[0].Players
	var lines []any
	for i, p := range players {
		lines = append(lines, seat(p, i+1, 50-10*i, 1, 8-i, 12-i, 30, 1, "finished"))
	}
	setup(map[string]any{"type": "RecordResult", "round": 2, "table": 1, "closed_by": "closing_roll", "players": lines})
	s.rollTies(tour, adminToken, rand.New(rand.NewPCG(3, 4)))
	command(map[string]any{"type": "PublishClassification", "final": true})
	setup(map[string]any{"type": "PublishClassification", "final": true})
	command(map[string]any{"type": "CloseTournament", "reason": "done"})

	// An annulled game, under the ruleset whose remedy it is.
	const t2003 = "contract-2003"
	s.must(201, "POST", "/v1/tournaments", adminToken, map[string]any{"id": t2003, "name": "Selezione 2003", "ruleset": "campionato-2003"})
	for i := 1; i <= 8; i++ {
		s.must(201, "POST", "/v1/tournaments/"+t2003+"/commands", adminToken, map[string]any{"type": "RegisterPlayer", "player": fmt.Sprintf("g%d", i), "name": fmt.Sprintf("Giocatore %d", i), "rank": i})
	}
	s.must(201, "POST", "/v1/tournaments/"+t2003+"/commands", adminToken, map[string]any{"type": "CloseRegistration"})
	s.must(201, "POST", "/v1/tournaments/"+t2003+"/commands", adminToken, map[string]any{"type": "DrawTables", "round": 1})
	json.Unmarshal(s.must(200, "GET", "/v1/tournaments/"+t2003+"/rounds/1/tables", "", nil).body, &drawn)
	c.send("ImposeSanction", "POST", "/v1/tournaments/"+t2003+"/commands", map[string]any{"type": "ImposeSanction", "player": drawn.Tables[1].Players[0],
		"round": 1, "table": 2, "kind": "disqualification", "article": "campionato-2003 §squalifica", "reason": "threats"}, 201)
	c.send("AnnulGame", "POST", "/v1/tournaments/"+t2003+"/commands", map[string]any{"type": "AnnulGame", "round": 1, "table": 1,
		"culprit": drawn.Tables[0].Players[0], "reason": "the board was knocked over"}, 201)

	// The organizer and a workbook's import record, in a tournament of
	// their own (a whole tournament's import comes before any player).
	const twb = "contract-workbook"
	s.must(201, "POST", "/v1/tournaments", adminToken, map[string]any{"id": twb, "name": "Torneo dal file", "ruleset": "rtu"})
	c.send("AmendOrganizer", "POST", "/v1/tournaments/"+twb+"/commands", map[string]any{"type": "AmendOrganizer",
		"organizer": "ROMA [Il Gufo]", "venue": "Circolo Il Gufo", "reason": "the club's own hall"}, 201)
	c.send("RecordWorkbookImport", "POST", "/v1/tournaments/"+twb+"/commands", map[string]any{"type": "RecordWorkbookImport",
		"file_name": "torneo.xlsx", "sha256": strings.Repeat("0a", 32), "scope": "tournament",
		"players":   []any{map[string]any{"id": 1, "player": "p1", "first_name": "Mario", "last_name": "Rossi"}},
		"type_text": "Torneo Open", "rounds": 2, "notes": "", "round_dates": []any{"2025-03-15"},
		"scores": []any{map[string]any{"round": 1, "table": 1, "player": "p1", "score": "44.1"}}}, 201)

	for _, typ := range append(commands.Types(), "CreateTournament", "AppointOfficial") {
		if !c.checked[typ] {
			t.Errorf("%s: not checked against the document", typ)
		}
	}
}

// firstField is the named field of the first event's data in a command's answer.
func firstField(t *testing.T, r resp, name string) json.RawMessage {
	t.Helper()
	var a struct {
		Events []struct {
			Data map[string]json.RawMessage `json:"data"`
		} `json:"events"`
	}
	if err := json.Unmarshal(r.body, &a); err != nil || len(a.Events) == 0 || a.Events[0].Data[name] == nil {
		t.Fatalf("no %s in %s", name, r.body)
	}
	return a.Events[0].Data[name]
}

func firstData(t *testing.T, r resp, name string) string {
	t.Helper()
	var v string
	if err := json.Unmarshal(firstField(t, r, name), &v); err != nil {
		t.Fatalf("%s in %s: %v", name, r.body, err)
	}
	return v
}

func firstSeq(t *testing.T, r resp) int {
	t.Helper()
	var a struct {
		Seq int `json:"seq"`
	}
	if err := json.Unmarshal(r.body, &a); err != nil || a.Seq == 0 {
		t.Fatalf("no seq in %s", r.body)
	}
	return a.Seq
}

// TestEveryRegistryCommandsSmallestPayloadIsExactlyWhatTheServerNeeds is
// the same contract for a hub's season registry: each of its commands, cut
// down to what the document's schema requires, is taken; each required
// field left out is refused naming it.
func TestEveryRegistryCommandsSmallestPayloadIsExactlyWhatTheServerNeeds(t *testing.T) {
	t.Parallel()
	s := &stack{t: t, dir: t.TempDir()}
	s.start()
	defer s.stop()
	s.must(201, "POST", "/v1/tournaments", adminToken, map[string]any{"id": "contract", "name": "Torneo del contratto", "ruleset": "rtu"})
	for _, p := range []string{"p1", "p2", "p3"} {
		s.must(201, "POST", "/v1/tournaments/contract/commands", adminToken, map[string]any{"type": "RegisterPlayer", "player": p,
			"name": "Giocatore " + p, "national_id": "10000" + p[1:]})
	}
	s.stop()
	s.hub = &seasonHub{served: map[string]error{}, size: map[string]uint64{}}
	s.start()
	o, err := loadOpenAPI(s.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	c := &contract{t: t, s: s, o: o, checked: map[string]bool{}}
	const reg = "/v1/registry/commands"
	c.send("LinkNationalID", "POST", reg, map[string]any{"type": "LinkNationalID", "tournament": "contract", "player": "p1",
		"national_id": "200001", "reason": "the card was misread"}, 201)
	c.send("MergePlayers", "POST", reg, map[string]any{"type": "MergePlayers", "from": "100002", "into": "100003", "reason": "one person"}, 201)
	c.send("RecordDisqualification", "POST", reg, map[string]any{"type": "RecordDisqualification", "national_id": "100003",
		"from": "2024-03-01", "to": "2024-03-31", "reason": "art. 5"}, 201)
	for _, typ := range commands.RegistryTypes() {
		if !c.checked[typ] {
			t.Errorf("%s: not checked against the document", typ)
		}
	}
}
