package commands_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections/ranking"
)

// roster is a hub holding tournament t1 with players p1 (national id
// 100001), p2 (100002) and p3 (none).
type roster struct{}

func (roster) Tournament(t string) bool { return t == "t1" }
func (roster) Player(t, p string) (string, bool) {
	id, ok := map[string]string{"p1": "100001", "p2": "100002", "p3": ""}[p]
	return id, ok && t == "t1"
}
func (roster) NationalID(id string) bool { return id == "100001" || id == "100002" }

// TestRegistryDecisions: given the registry's events, when a command,
// then its event, or the refusal naming the field (400) or the conflict
// (409) the table says.
func TestRegistryDecisions(t *testing.T) {
	for _, tc := range []struct {
		name  string
		given []events.Event
		when  string
		then  events.Event
		field string // a *FieldError on it; "conflict" for ErrConflict
	}{
		{"a link", nil, `{"type":"LinkNationalID","tournament":"t1","player":"p3","national_id":"100003","reason":" the card "}`,
			events.NationalIDLinked{Tournament: "t1", Player: "p3", NationalID: "100003", Reason: "the card"}, ""},
		{"a correction of a registration", nil, `{"type":"LinkNationalID","tournament":"t1","player":"p1","national_id":"100009"}`,
			events.NationalIDLinked{Tournament: "t1", Player: "p1", NationalID: "100009"}, ""},
		{"the id registration gave", nil, `{"type":"LinkNationalID","tournament":"t1","player":"p1","national_id":"100001"}`, nil, "conflict"},
		{"the id linked before", []events.Event{events.NationalIDLinked{Tournament: "t1", Player: "p3", NationalID: "100003"}},
			`{"type":"LinkNationalID","tournament":"t1","player":"p3","national_id":"100003"}`, nil, "conflict"},
		{"an unknown tournament", nil, `{"type":"LinkNationalID","tournament":"t9","player":"p1","national_id":"100001"}`, nil, "tournament"},
		{"an unknown player", nil, `{"type":"LinkNationalID","tournament":"t1","player":"p9","national_id":"100001"}`, nil, "player"},
		{"a merge", nil, `{"type":"MergePlayers","from":"100002","into":"100001","reason":"one person"}`,
			events.PlayersMerged{From: "100002", Into: "100001", Reason: "one person"}, ""},
		{"a merge into an id the registry linked", []events.Event{events.NationalIDLinked{Tournament: "t1", Player: "p3", NationalID: "100003"}},
			`{"type":"MergePlayers","from":"100002","into":"100003","reason":"one person"}`, events.PlayersMerged{From: "100002", Into: "100003", Reason: "one person"}, ""},
		{"a merge into itself", nil, `{"type":"MergePlayers","from":"100001","into":"100001","reason":"x"}`, nil, "into"},
		{"a merge of an unknown id", nil, `{"type":"MergePlayers","from":"100007","into":"100001","reason":"x"}`, nil, "from"},
		{"a merge without a reason", nil, `{"type":"MergePlayers","from":"100002","into":"100001"}`, nil, "reason"},
		{"a cycle", []events.Event{events.PlayersMerged{From: "100002", Into: "100001", Reason: "x"}},
			`{"type":"MergePlayers","from":"100001","into":"100002","reason":"back"}`, nil, "into"},
		{"a merge of a merged id", []events.Event{events.PlayersMerged{From: "100002", Into: "100001", Reason: "x"}, events.NationalIDLinked{Tournament: "t1", Player: "p3", NationalID: "100003"}},
			`{"type":"MergePlayers","from":"100002","into":"100003","reason":"again"}`, nil, "conflict"},
		{"a disqualification", nil, `{"type":"RecordDisqualification","national_id":"100004","from":"2024-04-01","to":"2024-04-01","reason":"art. 5"}`,
			events.DisqualificationRecorded{NationalID: "100004", From: "2024-04-01", To: "2024-04-01", Reason: "art. 5"}, ""},
		{"the same period twice", []events.Event{events.DisqualificationRecorded{NationalID: "100004", From: "2024-04-01", To: "2024-04-30", Reason: "x"}},
			`{"type":"RecordDisqualification","national_id":"100004","from":"2024-04-01","to":"2024-04-30","reason":"again"}`, nil, "conflict"},
		{"a period backwards", nil, `{"type":"RecordDisqualification","national_id":"100004","from":"2024-04-30","to":"2024-04-01","reason":"x"}`, nil, "to"},
		{"no day", nil, `{"type":"RecordDisqualification","national_id":"100004","from":"2024-02-30","to":"2024-04-01","reason":"x"}`, nil, "from"},
		{"a tournament's command", nil, `{"type":"CloseRegistration"}`, nil, "type"},
		{"an unknown field", nil, `{"type":"MergePlayers","from":"100002","into":"100001","reason":"x","when":"now"}`, nil, "when"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := ranking.NewRegistry()
			for _, ev := range tc.given {
				if err := reg.Apply(ev); err != nil {
					t.Fatal(err)
				}
			}
			cmd, err := commands.ParseRegistry([]byte(tc.when))
			var evs []events.Event
			if err == nil {
				evs, err = commands.DecideRegistry(reg, roster{}, cmd)
			}
			var fe *commands.FieldError
			switch {
			case tc.field == "" && (err != nil || len(evs) != 1 || !reflect.DeepEqual(evs[0], tc.then)):
				t.Errorf("got %v %+v, want %+v", err, evs, tc.then)
			case tc.field == "conflict" && !errors.Is(err, events.ErrConflict):
				t.Errorf("got %v %+v, want a conflict", err, evs)
			case tc.field != "" && tc.field != "conflict" && (!errors.As(err, &fe) || fe.Field != tc.field):
				t.Errorf("got %v %+v, want a field error on %s", err, evs, tc.field)
			}
			if len(tc.given) != len(reg.Linked)+len(reg.Merges)+len(reg.Periods) {
				t.Error("the decision changed the registry")
			}
		})
	}
	if got := commands.RegistryTypes(); !reflect.DeepEqual(got, []string{"LinkNationalID", "MergePlayers", "RecordDisqualification"}) {
		t.Errorf("registry types %v", got)
	}
}
