package commands

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/referto/referto/events"
)

// encodeSamples are commands of every registered type with every field
// that travels set, as a client builds them in Go.
var encodeSamples = []Command{
	&CreateTournament{ID: "t", Name: "Torneo", Ruleset: events.PresetRTU, Params: json.RawMessage(`{"bonus":40}`),
		Season: "2024", Type: events.TypeMaster, Organizer: "ROMA [Il Gufo]", Venue: "Circolo Il Gufo"},
	&AppointOfficial{Name: "Arbitro capo", Role: events.RoleArbiter},
	&AmendRuleset{Params: json.RawMessage(`{"discards":1}`), Reason: "deciso in riunione"},
	&AmendOrganizer{Organizer: "ROMA [Il Gufo]", Venue: "Circolo Il Gufo", Reason: "sede cambiata"},
	&RecordWorkbookImport{FileName: "torneo.xlsx", SHA256: "abababababababababababababababababababababababababababababababab", Scope: events.WorkbookTournament,
		Players: []events.WorkbookPlayer{{ID: 1, Player: "p1", FirstName: "Mario", LastName: "Rossi"}}, TypeText: "Torneo Open",
		Rounds: 2, Notes: "note", RoundDates: []string{"2025-03-15"}, Scores: []events.WrittenScore{{Round: 1, Table: 1, Player: "p1", Score: "44.1"}}},
	&RegisterPlayer{Player: "p1", Name: "Mario Rossi", Club: "Bologna", Region: "Emilia-Romagna", Rank: 3, Minor: true,
		Waiver: "firmata", NationalID: "100001"},
	&RefuseRegistration{Player: "p2", Name: "Luigi", Reason: "iscrizione tardiva"},
	&CloseRegistration{},
	&DesignateReserve{Player: "r1", Name: "Riserva", Club: "Riserve", Region: "Lazio", Rank: 9},
	&CheckIn{Round: 1, Player: "p1", MinutesLate: 12, Absent: true},
	&SubstituteReserve{Round: 1, Absent: "p1", Reserve: "r1"},
	&DrawTables{Round: 1, Seed: "seme", Tables: []events.DrawnTable{{Table: 1, Players: []string{"p1", "p2", "p3", "p4"}}}},
	&SetTurnOrder{Round: 1, Table: 1, Order: []string{"p2", "p1", "p4", "p3"}},
	&RecordResult{Round: 1, Table: 1, ClosedBy: events.ClosingObjective, Winner: "p1", Risiko: true,
		Players: []SeatInput{
			{Player: "p1", Turn: 1, TablePoints: ptr(80), OffObjectivePoints: ptr(5), ObjectiveTerritories: ptr(10),
				Territories: ptr(20), Armies: 40, ObjectiveArmies: 20, Cards: 2, Status: events.SeatFinished},
			{Player: "p2", Turn: 2, Objective: 3, TerritoriesHeld: []string{"alaska"}, Status: events.SeatWithdrawn,
				Withdrawal: events.WithdrawalForceMajeure},
			{Player: "p3", Turn: 3, TablePoints: ptr(0), Status: events.SeatEliminated, EliminatedOrder: 1},
		},
		Rolls: map[string]int{"p1": 5, "p2": 2}},
	&RecordTieBreakRoll{Ties: []TieRoll{{Players: []string{"p1", "p2"}, Rolls: []int{6, 1}},
		{Players: []string{"p3", "p4"}, Rolls: []int{2, 3}}}},
	&Renounce{Player: "p1", Phase: events.PhaseSemifinal, Reason: "treno"},
	&Repechage{Phase: events.PhaseSemifinal, Replaces: "p1"},
	&Withdraw{Player: "p1", Scope: "game", Reason: events.WithdrawalVoluntary, Round: 1, Table: 1, Detail: "stanco"},
	&ImposeSanction{Player: "p1", Round: 1, Table: 1, Kind: events.SanctionReminder, Article: "rur-2015 art. 33",
		Reason: "consigli", Offence: "rur-2015 art. 33", Penalty: &PenaltySpec{Kind: events.SanctionTablePoints, Amount: 10}},
	&RevokeSanction{Sanction: "s1", Ruling: "accolta"},
	&AnnulGame{Round: 1, Table: 1, Culprit: "p1", Expel: true, Reason: "interrotta"},
	&PublishClassification{Final: true},
	&PublishClassification{Final: true, Standings: []StandingRow{{Rank: 1, Player: "p1", Points: "112.5"}}},
	&CloseTournament{Reason: "finito"},
	&FileContestation{Against: 7, Claim: "stesso club", Effect: "expelled_seated", By: "p1"},
	&RuleContestation{Contestation: "c1", Upheld: true, Ruling: "accolta",
		Corrections: []json.RawMessage{json.RawMessage(`{"type":"RevokeSanction","sanction":"s1","ruling":"accolta"}`)}},
	&IssuePlayerTokens{Players: []string{"p1", "p2"}},
	&RevokePlayerToken{Player: "p1", Reason: "telefono perso"},
	&ProposeResult{Player: "p1", Round: 1, Table: 1, ClosedBy: events.ClosingTime, Winner: "p1",
		Players: []SeatInput{{Player: "p1", Turn: 1, TablePoints: ptr(60), Status: events.SeatFinished},
			{Player: "p2", Turn: 2, TablePoints: ptr(40), Status: events.SeatFinished}},
		Rolls: map[string]int{"p1": 4}},
	&ConfirmProposal{Player: "p2", Proposal: "r1-t1-1"},
	&DisputeProposal{Player: "p3", Proposal: "r1-t1-1", Reason: "i punti non tornano"},
}

func ptr(n int) *int { return &n }

// untype forgets the type a parsed payload named.
func (t *typed) untype() { t.Type = "" }

// parseEncoded reads an encoded command back as its own type: Parse, or
// the ParseAs of a command sent to a route of its own.
func parseEncoded(t *testing.T, c Command, body []byte) Command {
	t.Helper()
	var got Command
	var err error
	switch c.(type) {
	case *CreateTournament:
		got, err = ParseAs[CreateTournament](body)
	case *AppointOfficial:
		got, err = ParseAs[AppointOfficial](body)
	case *IssuePlayerTokens:
		got, err = ParseAs[IssuePlayerTokens](body)
	default:
		if specs[c.CommandType()].route != "" {
			t.Fatalf("%s has a route of its own (%s): parse it with its ParseAs here", c.CommandType(), specs[c.CommandType()].route)
		}
		got, err = Parse(body)
	}
	if err != nil {
		t.Fatalf("%s: Encode wrote %s, which is refused: %v", c.CommandType(), body, err)
	}
	return got
}

// TestEncodeParsesBack: every registered command encodes to the payload
// that parses back to it, its "type" written from CommandType, so that a
// client that builds commands in Go never spells a command's name.
func TestEncodeParsesBack(t *testing.T) {
	sampled := map[string]bool{}
	for _, c := range encodeSamples {
		typ := c.CommandType()
		sampled[typ] = true
		body, err := Encode(c)
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		var head struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(body, &head); err != nil || head.Type != typ {
			t.Errorf("%s encodes with type %q: %s", typ, head.Type, body)
		}
		got := parseEncoded(t, c, body)
		if reflect.TypeOf(got) != reflect.TypeOf(c) {
			t.Fatalf("%s parses back as a %T", typ, got)
		}
		// The parsed command carries the type the payload named; the
		// sample, built in Go, none. Otherwise they are the same.
		got.(interface{ untype() }).untype()
		if !reflect.DeepEqual(got, c) {
			t.Errorf("%s: encoded as %s, parsed back as\n%+v\nwant\n%+v", typ, body, got, c)
		}
		if again, err := Encode(got); err != nil || !bytes.Equal(again, body) {
			t.Errorf("%s: encoded again as %s (%v), want %s", typ, again, err, body)
		}
	}
	for _, s := range registry {
		if typ := s.new().CommandType(); !sampled[typ] {
			t.Errorf("no sample of %s: add one to encodeSamples", typ)
		}
	}
}

// TestEncodeZeroCommands: a command with no fields set encodes to an
// object with its type alone or with its zero fields, which Parse reads as
// that type (its field checks aside).
func TestEncodeZeroCommands(t *testing.T) {
	for _, s := range registry {
		c := s.new()
		body, err := Encode(c)
		if err != nil {
			t.Fatalf("%s: %v", c.CommandType(), err)
		}
		back := newCommand(c.CommandType())
		if err := decodeCommand(body, back); err != nil {
			t.Errorf("%s: zero command encoded as %s, which does not decode: %v", c.CommandType(), body, err)
		}
	}
	if body, _ := Encode(&CloseRegistration{}); string(body) != `{"type":"CloseRegistration"}` {
		t.Errorf("CloseRegistration encodes as %s", body)
	}
}

// TestEncodeRefusesAMismatchedType: a command whose type field names
// another command is not sent as either.
func TestEncodeRefusesAMismatchedType(t *testing.T) {
	c := &CloseRegistration{}
	c.Type = "CloseTournament"
	if body, err := Encode(c); err == nil {
		t.Errorf("encoded as %s", body)
	}
	c.Type = "CloseRegistration"
	if body, err := Encode(c); err != nil || string(body) != `{"type":"CloseRegistration"}` {
		t.Errorf("a matching type: %s, %v", body, err)
	}
}
