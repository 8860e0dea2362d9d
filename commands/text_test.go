package commands_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/referto/referto/commands"
)

// TestParseRefusesLoneSurrogateEscapes: an escaped UTF-16 surrogate that
// is not half of a pair stands for no character (encoding/json would store
// U+FFFD): refused like invalid UTF-8, naming the field. Pairs, other
// escapes and an escaped backslash before "ud800" are text.
func TestParseRefusesLoneSurrogateEscapes(t *testing.T) {
	register := func(name string) string {
		return `{"type":"RegisterPlayer","player":"p1","name":"` + name + `"}`
	}
	for body, field := range map[string]string{
		register(`\ud800x`):       "name",
		register(`x\ud800`):       "name",
		register(`\uDBFF\u0041`):  "name",
		register(`\udc00`):        "name",
		register(`\udc00\ud800`):  "name",
		register(`\ud800\ud800`):  "name",
		register(`\ud83d\\udc00`): "name",
		`{"type":"RegisterPlayer","player":"p1","name":"M","club":"\ud83d"}`: "club",
		`{"type":"RegisterPlayer","player":"p1","name":"M","\udfff":1}`:      "\ufffd",
	} {
		_, err := commands.Parse([]byte(body))
		var fe *commands.FieldError
		if !errors.As(err, &fe) || fe.Field != field || !strings.Contains(fe.Msg, "surrogate") {
			t.Errorf("Parse(%s): %v, want a field error on %q about the surrogate", body, err, field)
		}
	}
	for body, name := range map[string]string{
		register(`\ud840\udc0b Li`):    "\U0002000b Li",
		register(`\u674e\u5c0f\u9f99`): "李小龙",
		register(`Ni\u0063col\u00F2`):  "Niccolò",
		register(`back\\ud800slash`):   `back\ud800slash`,
	} {
		c, err := commands.Parse([]byte(body))
		if err != nil {
			t.Errorf("Parse(%s): %v", body, err)
			continue
		}
		if got := c.(*commands.RegisterPlayer).Name; got != name {
			t.Errorf("Parse(%s): name %q, want %q", body, got, name)
		}
	}
	// Cut anywhere, a payload with escapes is refused, never a panic.
	body := register(`\ud840\udc0b\ud800\u00e9\\`)
	for i := range body {
		if _, err := commands.Parse([]byte(body[:i])); err == nil {
			t.Errorf("Parse(%s) accepted", body[:i])
		}
	}
}
