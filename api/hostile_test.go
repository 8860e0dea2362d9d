package api_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/referto/referto/api/problem"
)

// hostileCase is one hostile request: it must be refused with a 4xx
// problem naming the field (or the rule) and leave the log unchanged.
type hostileCase struct {
	name    string
	path    string // "" is the commands endpoint
	body    string
	headers []string
	status  int    // the default is 400
	field   string // the problem names it first
	rule    string
	detail  string // the problem's detail contains it
}

// TestHostileInputIsRefusedCleanly sends what a broken or malicious client
// might: deep nesting, huge arrays and bodies, wrong types for every kind
// of field, unknown and duplicate fields, trailing garbage, no body,
// invalid UTF-8, text that spoofs what an arbiter or a printed standings
// sheet shows (bidi overrides, zero-width characters, controls, line
// breaks), numbers that overflow, and bodies that are not JSON at all.
// Each gets a 4xx application/problem+json naming the field or rule,
// never a 5xx, and the log does not move.
func TestHostileInputIsRefusedCleanly(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	arb := s.create("ostile", "rur-2015")
	s.must(201, "POST", "/v1/tournaments/ostile/commands", arb, `{"type":"RegisterPlayer","player":"p001","name":"Mario Rossi"}`)

	const (
		create    = "/v1/tournaments"
		officials = "/v1/tournaments/ostile/officials"
	)
	nest := func(open, close string, n int) string { return strings.Repeat(open, n) + strings.Repeat(close, n) }
	register := func(field, value string) string {
		p := map[string]string{"player": "p002", "name": "Luigi Bianchi"}
		p[field] = value
		b, _ := json.Marshal(p)
		return `{"type":"RegisterPlayer",` + string(b[1:])
	}
	repeat := func(elem string, n int) string { return strings.TrimSuffix(strings.Repeat(elem+",", n), ",") }
	seat := func(p string, turn int) string {
		return fmt.Sprintf(`{"player":%q,"turn":%d,"table_points":10,"status":"finished"}`, p, turn)
	}
	seats := repeat(seat("p001", 1), 3)
	var rb strings.Builder
	for i := range 50_000 {
		fmt.Fprintf(&rb, `"p%05d":9,`, i)
	}
	rolls := strings.TrimSuffix(rb.String(), ",")

	cases := []hostileCase{
		// Nesting.
		{name: "100k nested arrays", body: nest("[", "]", 100_000), detail: "exceeded max depth"},
		{name: "100k nested arrays as a name", body: `{"type":"RegisterPlayer","player":"p002","name":` + nest("[", "]", 100_000) + `}`, detail: "exceeded max depth"},
		{name: "100k nested objects", body: strings.Repeat(`{"a":`, 100_000) + "1" + strings.Repeat("}", 100_000)},
		{name: "100k nested arrays in a correction", body: `{"type":"RuleContestation","contestation":"c1","upheld":true,"ruling":"r","corrections":[` + nest("[", "]", 100_000) + `]}`},
		{name: "create: 100k nested params", path: create, body: `{"id":"x","name":"X","ruleset":"rtu","params":` + nest("[", "]", 100_000) + `}`},
		{name: "official: 100k nested arrays", path: officials, body: nest("[", "]", 100_000)},

		// Huge arrays and bodies.
		{name: "100k empty result lines", body: `{"type":"RecordResult","round":1,"table":1,"closed_by":"time","players":[` + repeat("{}", 100_000) + `]}`, field: "players[0].player", detail: "and 199900 more problems"},
		{name: "100k result lines over 1 MiB", body: `{"type":"RecordResult","round":1,"table":1,"closed_by":"time","players":[` + repeat(seat("p001", 1), 100_000) + `]}`, status: 413},
		{name: "100k players in a tie", body: `{"type":"RecordTieBreakRoll","players":[` + repeat(`"p001"`, 100_000) + `],"rolls":[` + repeat("1", 100_000) + `]}`, field: "players[1]"},
		{name: "100k tables drawn by hand", body: `{"type":"DrawTables","round":1,"tables":[` + repeat(`{}`, 100_000) + `]}`, field: "tables[0].table"},
		{name: "50k die rolls", body: `{"type":"RecordResult","round":1,"table":1,"closed_by":"time","players":[` + seats + `],"rolls":{` + rolls + `}}`, field: "rolls.p00000"},
		{name: "a body over 1 MiB", body: register("name", strings.Repeat("x", 1<<20)), status: 413},
		{name: "1 MiB of whitespace", body: strings.Repeat(" ", 1<<20+1), status: 413},
		{name: "official: a body over 1 MiB", path: officials, body: `{"name":"` + strings.Repeat("x", 1<<20) + `","role":"arbiter"}`, status: 413},

		// Wrong types for every kind of field.
		{name: "string given a number", body: `{"type":"RegisterPlayer","player":1,"name":"M"}`, field: "player"},
		{name: "string given an object", body: `{"type":"RegisterPlayer","player":"p002","name":{}}`, field: "name"},
		{name: "string given an array", body: `{"type":"RegisterPlayer","player":"p002","name":"M","club":["a"]}`, field: "club"},
		{name: "string given true", body: `{"type":"Withdraw","player":"p001","scope":true,"reason":"voluntary"}`, field: "scope"},
		{name: "int given a string", body: `{"type":"CheckIn","round":"1","player":"p001"}`, field: "round"},
		{name: "int given a bool", body: `{"type":"CheckIn","round":1,"player":"p001","minutes_late":true}`, field: "minutes_late"},
		{name: "int given a fraction", body: `{"type":"CheckIn","round":1.5,"player":"p001"}`, field: "round"},
		{name: "int given an exponent", body: `{"type":"CheckIn","round":1e2,"player":"p001"}`, field: "round"},
		{name: "uint given a negative", body: `{"type":"FileContestation","against":-1,"claim":"c"}`, field: "against"},
		{name: "bool given a string", body: `{"type":"RegisterPlayer","player":"p002","name":"M","minor":"yes"}`, field: "minor"},
		{name: "bool given a number", body: `{"type":"PublishClassification","final":1}`, field: "final"},
		{name: "array given an object", body: `{"type":"RecordResult","round":1,"table":1,"closed_by":"time","players":{}}`, field: "players"},
		{name: "array given a string", body: `{"type":"SetTurnOrder","round":1,"table":1,"order":"p001"}`, field: "order"},
		{name: "array element of the wrong type", body: `{"type":"RecordTieBreakRoll","players":["p001","p002"],"rolls":["5","2"]}`, field: "rolls"},
		{name: "map given an array", body: `{"type":"RecordResult","round":1,"table":1,"closed_by":"time","players":[` + seats + `],"rolls":[1]}`, field: "rolls"},
		{name: "nested int given a string", body: `{"type":"RecordResult","round":1,"table":1,"closed_by":"time","players":[{"player":"p001","turn":"1"}]}`, field: "players.turn"},
		{name: "optional number given a string", body: `{"type":"RecordResult","round":1,"table":1,"closed_by":"time","players":[{"player":"p001","table_points":"62"}]}`, field: "players.table_points"},
		{name: "object given a string", body: `{"type":"ImposeSanction","player":"p001","round":1,"kind":"warning","article":"a","penalty":"x"}`, field: "penalty"},
		{name: "type given a number", body: `{"type":1}`, field: "type"},
		{name: "type given null", body: `{"type":null}`, field: "type"},
		{name: "a string payload", body: `"RegisterPlayer"`},
		{name: "a number payload", body: `42`},
		{name: "a null payload", body: `null`, field: "type"},
		{name: "an array payload", body: `[{"type":"CloseRegistration"}]`},
		{name: "create: param given a string", path: create, body: `{"id":"x","name":"X","ruleset":"rtu","params":{"bonus":"50"}}`, field: "params.bonus"},
		{name: "create: params given an array", path: create, body: `{"id":"x","name":"X","ruleset":"rtu","params":[1]}`, field: "params"},
		{name: "official: role given a number", path: officials, body: `{"name":"A","role":1}`, field: "role"},

		// Unknown fields.
		{name: "unknown field", body: `{"type":"CloseRegistration","force":true}`, field: "force"},
		{name: "unknown field in a result line", body: `{"type":"RecordResult","round":1,"table":1,"closed_by":"time","players":[{"player":"p001","table_points":1,"bonus":50}]}`, field: "bonus"},
		{name: "unknown field in a drawn table", body: `{"type":"DrawTables","round":1,"tables":[{"table":1,"players":["p001"],"vip":true}]}`, field: "vip"},
		{name: "create: unknown field", path: create, body: `{"id":"x","name":"X","ruleset":"rtu","owner":"me"}`, field: "owner"},
		{name: "official: unknown field", path: officials, body: `{"name":"A","role":"arbiter","token":"chosen"}`, field: "token"},

		// Duplicate keys: the last would win, silently.
		{name: "duplicate type", body: `{"type":"RegisterPlayer","type":"CloseRegistration"}`, field: "type"},
		{name: "duplicate field", body: `{"type":"RegisterPlayer","player":"p002","player":"p003","name":"M"}`, field: "player"},
		{name: "duplicate field in another case", body: `{"type":"RegisterPlayer","player":"p002","name":"Mario","NAME":"Luigi"}`, field: "NAME"},
		{name: "duplicate field in a result line", body: `{"type":"RecordResult","round":1,"table":1,"closed_by":"time","players":[` + seat("p001", 1) + `,{"player":"p002","player":"p003"}]}`, field: "players[1].player"},
		{name: "create: duplicate param", path: create, body: `{"id":"x","name":"X","ruleset":"rtu","params":{"bonus":10,"bonus":20}}`, field: "params.bonus"},
		{name: "create: duplicate id", path: create, body: `{"id":"x","name":"X","ruleset":"rtu","id":"y"}`, field: "id"},
		{name: "official: duplicate role", path: officials, body: `{"name":"A","role":"auditor","role":"arbiter"}`, field: "role"},

		// Trailing garbage.
		{name: "trailing garbage", body: `{"type":"CloseRegistration"} x`},
		{name: "a second command", body: `{"type":"CloseRegistration"}{"type":"CloseRegistration"}`},
		{name: "a stray bracket", body: `{"type":"CloseRegistration"}]`},
		{name: "a trailing NUL", body: "{\"type\":\"CloseRegistration\"}\x00"},
		{name: "create: trailing object", path: create, body: `{"id":"x","name":"X","ruleset":"rtu"} {}`},
		{name: "official: trailing bracket", path: officials, body: `{"name":"A","role":"arbiter"}]`},

		// No body.
		{name: "empty body", body: ``},
		{name: "whitespace body", body: " \n\t "},
		{name: "create: empty body", path: create, body: ``},
		{name: "official: empty body", path: officials, body: ``},

		// Invalid UTF-8: decoded as U+FFFD, the name would not be what was sent.
		{name: "invalid byte in a name", body: `{"type":"RegisterPlayer","player":"p002","name":"Mario ` + "\xff" + `Rossi"}`, field: "name"},
		{name: "overlong encoding", body: `{"type":"RegisterPlayer","player":"p002","name":"Mario` + "\xc0\xaf" + `"}`, field: "name"},
		{name: "UTF-8 encoded surrogate", body: `{"type":"RegisterPlayer","player":"p002","name":"Mario` + "\xed\xa0\x80" + `"}`, field: "name"},
		{name: "truncated sequence", body: `{"type":"RegisterPlayer","player":"p002","name":"Mario","club":"Bologna` + "\xe2\x82" + `"}`, field: "club"},
		{name: "invalid byte in a field name", body: `{"type":"RegisterPlayer","player":"p002","name":"M","` + "\xff" + `":1}`},
		{name: "invalid byte in a nested line", body: `{"type":"RecordResult","round":1,"table":1,"closed_by":"time","players":[` + seat("p001", 1) + `,{"player":"p002","status":"` + "\xff" + `"}]}`, field: "players[1].status"},
		{name: "create: invalid byte in a param", path: create, body: `{"id":"x","name":"X","ruleset":"rtu","params":{"objectives":{"name":"` + "\xff" + `"}}}`, field: "params.objectives.name"},
		{name: "official: invalid byte in the name", path: officials, body: `{"name":"Arbitro` + "\xff" + `","role":"arbiter"}`, field: "name"},
		// A lone surrogate escape is no character either: decoded as U+FFFD.
		{name: "lone high surrogate escape", body: `{"type":"RegisterPlayer","player":"p002","name":"\ud800x"}`, field: "name"},
		{name: "lone low surrogate escape", body: `{"type":"RegisterPlayer","player":"p002","name":"Mario\uDC00"}`, field: "name"},
		{name: "surrogate escapes reversed", body: `{"type":"RegisterPlayer","player":"p002","name":"\udc00\ud800"}`, field: "name"},
		{name: "high surrogate escape at the end", body: `{"type":"RegisterPlayer","player":"p002","name":"M","club":"Bo\ud83d"}`, field: "club"},
		{name: "high surrogate escape before an escaped backslash", body: `{"type":"RegisterPlayer","player":"p002","name":"\ud83d\\udc00"}`, field: "name"},
		{name: "lone surrogate escape in a field name", body: `{"type":"RegisterPlayer","player":"p002","name":"M","\ud800":1}`},
		{name: "lone surrogate escape in a nested line", body: `{"type":"RecordResult","round":1,"table":1,"closed_by":"time","players":[` + seat("p001", 1) + `,{"player":"p002","status":"\ud800"}]}`, field: "players[1].status"},
		{name: "create: lone surrogate escape in a param", path: create, body: `{"id":"x","name":"X","ruleset":"rtu","params":{"objectives":{"id":"odd-\ud800","objectives":[]}}}`, field: "params.objectives.id"},
		{name: "official: lone surrogate escape in the name", path: officials, body: `{"name":"Arbitro\udfff","role":"arbiter"}`, field: "name"},

		// Text that would not look like what it is.
		{name: "right-to-left override", body: register("name", "Mario\u202eissoR"), field: "name"},
		{name: "right-to-left override, unescaped", body: `{"type":"RegisterPlayer","player":"p002","name":"Mario ` + "\u202e" + `issoR"}`, field: "name"},
		{name: "left-to-right override", body: register("name", "\u202dMario"), field: "name"},
		{name: "right-to-left embedding", body: register("name", "\u202bMario\u202c"), field: "name"},
		{name: "right-to-left isolate", body: register("name", "\u2067Mario\u2069"), field: "name"},
		{name: "first strong isolate", body: register("club", "\u2068Bologna\u2069"), field: "club"},
		{name: "right-to-left mark", body: register("name", "Mario\u200f"), field: "name"},
		{name: "arabic letter mark", body: register("region", "Emilia\u061c"), field: "region"},
		{name: "zero-width joiner", body: register("name", "Ma\u200drio"), field: "name"},
		{name: "zero-width non-joiner", body: register("name", "Ma\u200crio"), field: "name"},
		{name: "zero-width space", body: register("name", "Mario\u200b"), field: "name"},
		{name: "byte order mark", body: register("name", "\ufeffMario"), field: "name"},
		{name: "NUL", body: register("name", "Mario\x00Rossi"), field: "name"},
		{name: "raw NUL", body: `{"type":"RegisterPlayer","player":"p002","name":"Mario` + "\x00" + `"}`},
		{name: "terminal escape", body: register("name", "\x1b[2JMario"), field: "name"},
		{name: "bell", body: register("name", "Mario\a"), field: "name"},
		{name: "tab", body: register("name", "Mario\tRossi"), field: "name"},
		{name: "carriage return", body: register("name", "Mario\rLuigi"), field: "name"},
		{name: "newline in a name", body: register("name", "Mario\n2. Luigi"), field: "name"},
		{name: "line separator", body: register("name", "Mario\u2028Luigi"), field: "name"},
		{name: "paragraph separator", body: register("club", "Bologna\u2029Faenza"), field: "club"},
		{name: "DEL", body: register("name", "Mario\x7f"), field: "name"},
		{name: "C1 next line", body: register("name", "Mario\u0085Luigi"), field: "name"},
		{name: "C1 control sequence introducer", body: register("name", "\u009b2JMario"), field: "name"},
		{name: "a blank waiver", body: `{"type":"RegisterPlayer","player":"p002","name":"Kid","minor":true,"waiver":"   "}`, status: 422, rule: "rur-2015 art. 1"},
		{name: "create: a NUL in the ruleset", path: create, body: `{"id":"x","name":"X","ruleset":"rtu\u0000"}`, status: 422, rule: "docs/rules.md#2-rulesets"},
		{name: "10k-character name", body: register("name", strings.Repeat("M", 10_000)), field: "name"},
		{name: "10k combining marks", body: register("name", "M"+strings.Repeat("\u0301", 10_000)), field: "name"},
		{name: "waiver", body: `{"type":"RegisterPlayer","player":"p002","name":"Kid","minor":true,"waiver":"firmato\u202e"}`, field: "waiver"},
		{name: "refusal reason", body: `{"type":"RefuseRegistration","player":"p001","reason":"fuori\u0000termine"}`, field: "reason"},
		{name: "reserve name", body: `{"type":"DesignateReserve","player":"r01","name":"Riserva\u2066"}`, field: "name"},
		{name: "sanction article", body: `{"type":"ImposeSanction","player":"p001","round":1,"kind":"warning","article":"art.\n33"}`, field: "article"},
		{name: "sanction reason", body: `{"type":"ImposeSanction","player":"p001","round":1,"kind":"warning","article":"art. 33","reason":"\u202e"}`, field: "reason"},
		{name: "contestation claim", body: `{"type":"FileContestation","against":1,"claim":"punti\u200b"}`, field: "claim"},
		{name: "revocation ruling", body: `{"type":"RevokeSanction","sanction":"s1","ruling":"\u001b[31mrevocata"}`, field: "ruling"},
		{name: "contestation ruling", body: `{"type":"RuleContestation","contestation":"c1","upheld":false,"ruling":"\u2067respinto"}`, field: "ruling"},
		{name: "withdrawal detail", body: `{"type":"Withdraw","player":"p001","scope":"tournament","reason":"voluntary","detail":"\u0085"}`, field: "detail"},
		{name: "annulment reason", body: `{"type":"AnnulGame","round":1,"table":1,"reason":"\u2028"}`, field: "reason"},
		{name: "closing reason", body: `{"type":"CloseTournament","reason":"fine\u202e"}`, field: "reason"},
		{name: "amendment reason", body: `{"type":"AmendRuleset","params":{"bonus":40},"reason":"\u0000"}`, field: "reason"},
		{name: "draw seed", body: `{"type":"DrawTables","round":1,"seed":"seme\u200d"}`, field: "seed"},
		{name: "create: tournament name", path: create, body: `{"id":"x","name":"Raduno\u202e","ruleset":"rtu"}`, field: "name"},
		{name: "create: tournament name with a newline", path: create, body: `{"id":"x","name":"Raduno\nFalso","ruleset":"rtu"}`, field: "name"},
		{name: "official: name", path: officials, body: `{"name":"Arbitro\u0000","role":"arbiter"}`, field: "name"},
		{name: "official: 10k-character name", path: officials, body: `{"name":"` + strings.Repeat("A", 10_000) + `","role":"arbiter"}`, field: "name"},

		// Numbers out of range.
		{name: "round 1e309", body: `{"type":"CheckIn","round":1e309,"player":"p001"}`, field: "round"},
		{name: "rank 2^63", body: `{"type":"RegisterPlayer","player":"p002","name":"M","rank":9223372036854775808}`, field: "rank"},
		{name: "rank -2^63-1", body: `{"type":"RegisterPlayer","player":"p002","name":"M","rank":-9223372036854775809}`, field: "rank"},
		{name: "rank -1", body: `{"type":"RegisterPlayer","player":"p002","name":"M","rank":-1}`, field: "rank"},
		{name: "round -1", body: `{"type":"CheckIn","round":-1,"player":"p001"}`, field: "round"},
		{name: "round -0", body: `{"type":"DrawTables","round":-0}`, field: "round"},
		{name: "round 2^31", body: `{"type":"DrawTables","round":2147483648}`, field: "round"},
		{name: "table -1", body: `{"type":"RecordResult","round":1,"table":-1,"closed_by":"time","players":[` + seats + `]}`, field: "table"},
		{name: "minutes late -5", body: `{"type":"CheckIn","round":1,"player":"p001","minutes_late":-5}`, field: "minutes_late"},
		{name: "negative amount", body: `{"type":"ImposeSanction","player":"p001","round":1,"kind":"classification_points","amount":-20,"article":"a"}`, field: "amount"},
		{name: "against 2^64", body: `{"type":"FileContestation","against":18446744073709551616,"claim":"c"}`, field: "against"},
		{name: "against 0", body: `{"type":"FileContestation","against":0,"claim":"c"}`, field: "against"},
		{name: "table points 1e309", body: `{"type":"RecordResult","round":1,"table":1,"closed_by":"time","players":[{"player":"p001","table_points":1e309}]}`, field: "players.table_points"},
		{name: "table points 10001", body: `{"type":"RecordResult","round":1,"table":1,"closed_by":"time","players":[` + seat("p001", 1) + `,{"player":"p002","turn":2,"table_points":10001}]}`, field: "players[1].table_points"},
		{name: "die roll 7", body: `{"type":"RecordTieBreakRoll","players":["p001","p002"],"rolls":[7,2]}`, field: "rolls[0]"},
		{name: "create: bonus 1e309", path: create, body: `{"id":"x","name":"X","ruleset":"rtu","params":{"bonus":1e309}}`, field: "params.bonus"},
		{name: "create: qualifying rounds -1", path: create, body: `{"id":"x","name":"X","ruleset":"rtu","params":{"qualifying_rounds":-1}}`, field: "params.qualifying_rounds"},

		// Not JSON at all, whatever the Content-Type says.
		{name: "a form", body: `type=CloseRegistration`, headers: []string{"Content-Type", "application/x-www-form-urlencoded"}},
		{name: "XML", body: `<command type="CloseRegistration"/>`, headers: []string{"Content-Type", "application/xml"}},
		{name: "multipart", body: "--b\r\nContent-Disposition: form-data; name=\"type\"\r\n\r\nCloseRegistration\r\n--b--\r\n", headers: []string{"Content-Type", "multipart/form-data; boundary=b"}},
		{name: "plain text", body: `CloseRegistration`, headers: []string{"Content-Type", "text/plain"}},
		{name: "binary", body: "\x00\x01\x02\xfe\xff", headers: []string{"Content-Type", "application/octet-stream"}},
		{name: "gzipped JSON", body: gzipped(`{"type":"CloseRegistration"}`), headers: []string{"Content-Encoding", "gzip"}},
		{name: "UTF-16 JSON", body: "\xff\xfe{\x00}\x00", headers: []string{"Content-Type", "application/json; charset=utf-16"}},
		{name: "create: a form", path: create, body: `id=x&name=X&ruleset=rtu`, headers: []string{"Content-Type", "application/x-www-form-urlencoded"}},
		{name: "official: XML", path: officials, body: `<official name="A" role="arbiter"/>`, headers: []string{"Content-Type", "text/xml"}},
	}
	for _, tc := range cases {
		path, token := tc.path, arb
		switch path {
		case "":
			path = "/v1/tournaments/ostile/commands"
		case create, officials:
			token = adminToken
		}
		status := tc.status
		if status == 0 {
			status = 400
		}
		before := s.logSize()
		r := s.do("POST", path, token, tc.body, tc.headers...)
		if after := s.logSize(); after != before {
			t.Errorf("%s: the log moved from %d to %d messages", tc.name, before, after)
		}
		if r.status != status {
			t.Errorf("%s: status %d, want %d: %.300s", tc.name, r.status, status, r.body)
			continue
		}
		if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
			t.Errorf("%s: Content-Type %q", tc.name, ct)
			continue
		}
		var p problem.Problem
		if err := json.Unmarshal(r.body, &p); err != nil || p.Status != status || p.Code == "" || p.Detail == "" {
			t.Errorf("%s: not a problem: %v: %.300s", tc.name, err, r.body)
			continue
		}
		if tc.field != "" && p.Field != tc.field {
			t.Errorf("%s: the problem names field %q, want %q: %.300s", tc.name, p.Field, tc.field, r.body)
		}
		if !strings.Contains(string(r.body), tc.detail) {
			t.Errorf("%s: the problem does not say %q: %.300s", tc.name, tc.detail, r.body)
		}
		if tc.rule != "" && p.Rule != tc.rule {
			t.Errorf("%s: the problem cites %q, want %q: %.300s", tc.name, p.Rule, tc.rule, r.body)
		}
		if len(r.body) > 64<<10 {
			t.Errorf("%s: a %d-byte problem for a %d-byte request", tc.name, len(r.body), len(tc.body))
		}
	}
}

func gzipped(s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.String()
}

// TestOrdinaryNamesAreAccepted: the text checks refuse tricks, not people.
// Accented Italian names, combining marks, apostrophes and other scripts
// (right-to-left ones included: it is the invisible override that is
// refused, not Arabic or Hebrew letters) register, and read back as sent.
func TestOrdinaryNamesAreAccepted(t *testing.T) {
	s := newStack(t)
	arb := s.create("nomi", "rtu")
	names := []string{
		"Niccolò D'Alì",
		"Nicolo\u0300 D'Ali\u0300", // the same, with combining grave accents
		"Zoë Lünéburg-Çelik",       // diaeresis, cedilla, hyphen
		"Ægidius Ørsted Ångström",
		"Đorđe Šćepanović",
		"José María Núñez",
		"李小龙",                             // CJK
		"محمد الفاسي",                     // Arabic, right to left
		"דוד לוי",                         // Hebrew, right to left
		"Ṩṹṗḗṙ Ẕåŀðø",                     // precomposed letters with marks
		"O'Brien–Smith (jr.)",             // en dash, parentheses
		"Anna Maria\u00a0Rossi",           // no-break space
		strings.Repeat("Ò", maxNameChars), // at the limit
	}
	for i, name := range names {
		player := fmt.Sprintf("p%03d", i+1)
		s.must(201, "POST", "/v1/tournaments/nomi/commands", arb, map[string]any{"type": "RegisterPlayer", "player": player, "name": name, "club": name})
	}
	var got struct {
		Players []struct {
			Player string `json:"player"`
			Name   string `json:"name"`
		} `json:"players"`
	}
	if err := json.Unmarshal(s.must(200, "GET", "/v1/tournaments/nomi/players", "", nil).body, &got); err != nil {
		t.Fatal(err)
	}
	byID := map[string]string{}
	for _, p := range got.Players {
		byID[p.Player] = p.Name
	}
	for i, name := range names {
		if got := byID[fmt.Sprintf("p%03d", i+1)]; got != name {
			t.Errorf("registered %q, the entry list shows %q", name, got)
		}
	}
	// Long free text may span lines; a name may not.
	s.must(201, "POST", "/v1/tournaments/nomi/commands", arb, map[string]any{"type": "RefuseRegistration", "player": "p999", "name": "Tardi",
		"reason": "Iscrizione arrivata dopo la chiusura.\nDeciso dall'arbitro capo."})
}

// maxNameChars is the longest name a command accepts.
const maxNameChars = 200

// TestAStoredOddityNeverStopsTheProjections: a field kept as the client
// sent it (an inline objective set) holding a lone surrogate escape is
// refused now, but logs written before hold such lines; whatever the
// answer, the node stays ready and takes the next command (the events
// tests read such stored lines back, as encoding/json did).
func TestAStoredOddityNeverStopsTheProjections(t *testing.T) {
	s := newStack(t)
	arb := s.create("odd", "rtu")
	r := s.do("POST", "/v1/tournaments/odd/commands", arb, `{"type":"AmendRuleset","params":{"objectives":{"id":"odd-\ud800","objectives":[]}},"reason":"x"}`)
	if r.status >= 500 {
		t.Fatalf("amendment: %d %s", r.status, r.body)
	}
	s.must(201, "POST", "/v1/tournaments/odd/commands", arb, `{"type":"RegisterPlayer","player":"p1","name":"Uno"}`)
	if n := len(s.must(200, "GET", "/v1/tournaments/odd/players", "", nil).json(t)["players"].([]any)); n != 1 {
		t.Errorf("%d players after the registration, want 1", n)
	}
	if ready := s.must(200, "GET", "/readyz", "", nil).json(t)["ready"]; ready != true {
		t.Errorf("node not ready after the amendment (answered %d)", r.status)
	}
	t.Logf("the amendment was answered %d", r.status)
}
