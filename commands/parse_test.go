package commands_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/referto/referto/commands"
)

// TestParseNamesWhatJSONv2Refuses: each refusal json/v2 makes as it reads
// a payload is a field error naming the field as the problem bodies name
// it: array elements by index, members by name (a member whose name is a
// number too), a member's name when the name itself is the problem, and,
// for a wrong type, the field without indices, as encoding/json named it.
// Names match exactly: a name in another letter case is another, unknown
// member.
func TestParseNamesWhatJSONv2Refuses(t *testing.T) {
	const result = `{"type":"RecordResult","round":1,"table":1,"closed_by":"time","players":[{"player":"p1","turn":1},`
	for _, tc := range []struct {
		body, field, msg string
	}{
		{result + `{"player":"p2","player":"p3"}]}`, "players[1].player", "given twice"},
		{result + `{"player":"p2","turn":2}],"rolls":{"100":1,"100":2}}`, "rolls.100", "given twice"},
		{result + `{"player":"p2","status":"\ud800"}]}`, "players[1].status", "holds a lone surrogate escape (\\ud800–\\udfff not in a pair), which is no character"},
		{result + `{"player":"p2","` + "\xff" + `":1}]}`, "players[1].\ufffd", "the field name must be valid UTF-8"},
		{result + `{"player":"p2","turn":"2"}]}`, "players.turn", "wrong type: got string, want number"},
		{result + `{"player":"p2","turn":1e400}]}`, "players.turn", "wrong type: got number 1e400, want number"},
		{result + `{"player":"p2","bonus":1}]}`, "bonus", "unknown field"},
		{`{"type":"RegisterPlayer","Player":"p1","name":"M"}`, "Player", "unknown field"},
		{`{"TYPE":"CloseRegistration"}`, "type", "required: one of "},
		{`{"type":"CloseRegistration"`, "", "empty or truncated JSON body"},
		{`{"type":"CloseRegistration"} {}`, "", "trailing data after the JSON object"},
		{`[{"type":"CloseRegistration"}]`, "", "the payload must be a JSON object, not array"},
	} {
		_, err := commands.Parse([]byte(tc.body))
		var fe *commands.FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field || !strings.HasPrefix(fe.Msg, tc.msg) {
			t.Errorf("Parse(%q): %v, want %q: %s…", tc.body, err, tc.field, tc.msg)
		}
	}
}
