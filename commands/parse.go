package commands

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Parse decodes a command payload {"type": ..., ...} strictly: malformed
// JSON, invalid UTF-8, a field given twice, an unknown type and unknown or
// mistyped fields are *FieldError values naming the field. The command's
// own field checks run too (at most maxReported problems are reported).
func Parse(body []byte) (Command, error) {
	typ, err := payloadType(body, types)
	if err != nil {
		return nil, err
	}
	if s := specs[typ]; s == nil || s.route != "" {
		hint := ""
		if s != nil {
			hint = "; " + s.route
		}
		return nil, fieldErr("type", "unknown command type %q (known: %s)%s", typ, strings.Join(types, ", "), hint)
	}
	return parseAs(typ, body)
}

// payloadType checks a payload as strictly as Parse does (checkPayload)
// and returns its "type", which is required: one of known.
func payloadType(body []byte, known []string) (string, error) {
	if err := checkPayload(body); err != nil {
		return "", err
	}
	var head struct {
		Type *string `json:"type"`
	}
	if err := json.Unmarshal(body, &head); err != nil {
		return "", jsonErr(err)
	}
	if head.Type == nil || *head.Type == "" {
		return "", fieldErr("type", "required: one of %s", strings.Join(known, ", "))
	}
	return *head.Type, nil
}

// ParseAs decodes body as a command of type C, as strictly as Parse: the
// payload may carry C's "type" or none. It is how a route of its own
// (POST /v1/tournaments, …) reads its command, naming it by its Go type.
func ParseAs[C any, P interface {
	*C
	Command
}](body []byte) (P, error) {
	if err := checkPayload(body); err != nil {
		return nil, err
	}
	cmd := P(new(C))
	if specs[cmd.CommandType()] == nil {
		return nil, fieldErr("type", "%s is not a registered command", cmd.CommandType())
	}
	if err := decodeInto(cmd, body); err != nil {
		return nil, err
	}
	return cmd, nil
}

func parseAs(typ string, body []byte) (Command, error) {
	cmd := newCommand(typ)
	if cmd == nil {
		return nil, fieldErr("type", "unknown command type %q (known: %s)", typ, strings.Join(types, ", "))
	}
	if err := decodeInto(cmd, body); err != nil {
		return nil, err
	}
	return cmd, nil
}

// decodeInto decodes body into cmd strictly and checks its fields.
func decodeInto(cmd Command, body []byte) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := decodeCommand(dec, cmd); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fieldErr("", "trailing data after the JSON object")
	}
	if err := cmd.Check(); err != nil {
		return capErrs(err)
	}
	return nil
}

// Encode renders cmd as the payload Parse reads back: its fields, and its
// "type" from CommandType, so that a client names a command by its Go type
// and never spells the name. Parse(Encode(cmd)) is cmd, for every
// registered command; a route of its own reads it with ParseAs.
func Encode(cmd Command) ([]byte, error) {
	typ := cmd.CommandType()
	if t := cmd.typeField(); t != "" && t != typ {
		return nil, fieldErr("type", "is %q but the command is %s", t, typ)
	}
	body, err := json.Marshal(cmd)
	if err != nil {
		return nil, err
	}
	if len(body) < 2 || body[0] != '{' {
		return nil, fmt.Errorf("commands: %s encodes as %s, not an object", typ, body)
	}
	if cmd.typeField() != "" {
		return body, nil // the payload carries its type already
	}
	name, err := json.Marshal(typ)
	if err != nil {
		return nil, err
	}
	out := append([]byte(`{"type":`), name...)
	if rest := body[1:]; len(rest) > 1 { // body is {…}: more than the closing brace
		out = append(out, ',')
		return append(out, rest...), nil
	}
	return append(out, '}'), nil
}

// maxReported is how many problems a refused payload reports: every
// problem of a real table report fits, and a payload of 100,000 bad lines
// is not answered with a problem 50 times its size.
const maxReported = 100

// capErrs keeps the first maxReported problems of an error tree and says
// how many more there were.
func capErrs(err error) error {
	all := leaves(err)
	if len(all) <= maxReported {
		return err
	}
	return errors.Join(append(all[:maxReported:maxReported],
		fieldErr("", "and %d more problems", len(all)-maxReported))...)
}

// typed is embedded in every command so that the payload may carry its type.
type typed struct {
	Type string `json:"type,omitempty"`
}

func (t typed) typeField() string { return t.Type }

func decodeCommand(dec *json.Decoder, cmd Command) error {
	if err := dec.Decode(cmd); err != nil {
		return jsonErr(err)
	}
	if t := cmd.typeField(); t != "" && t != cmd.CommandType() {
		return fieldErr("type", "is %q but the payload was posted as %s", t, cmd.CommandType())
	}
	return nil
}

// jsonErr turns an encoding/json error into a *FieldError naming the field.
func jsonErr(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fieldErr("", "malformed JSON at byte %d: %v", syn.Offset, syn)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			return fieldErr("", "the payload must be a JSON object, not %s", typ.Value)
		}
		return fieldErr(field, "wrong type: got %s, want %s", typ.Value, jsonKind(typ.Type.Kind().String()))
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fieldErr("", "empty or truncated JSON body")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return fieldErr(name, "unknown field")
	}
	return fieldErr("", "invalid JSON: %v", err)
}

func jsonKind(k string) string {
	switch {
	case strings.HasPrefix(k, "int"), strings.HasPrefix(k, "uint"), strings.HasPrefix(k, "float"):
		return "number"
	case k == "slice" || k == "array":
		return "array"
	case k == "struct" || k == "map":
		return "object"
	case k == "bool":
		return "boolean"
	}
	return k
}

// checkPayload refuses what encoding/json would otherwise let through
// silently, naming the field: invalid UTF-8 and lone surrogate escapes
// ("\ud800"; both decoded as U+FFFD, so a name would not be what was
// sent) and a key given twice in one object (the
// last one would win, in any letter case, where another reader of the
// same payload may take the first). Malformed JSON is left to the decoder
// to report.
func checkPayload(body []byte) error {
	type frame struct {
		object bool
		keys   map[string]string // folded key → the key as sent
		key    string            // object: the current key
		index  int               // array: the current element, from 0
		value  bool              // object: the next token is a value
	}
	var stack []frame
	path := func() string {
		var b strings.Builder
		for _, f := range stack {
			switch {
			case f.object && b.Len() > 0:
				b.WriteString("." + f.key)
			case f.object:
				b.WriteString(f.key)
			default:
				fmt.Fprintf(&b, "[%d]", f.index)
			}
		}
		return b.String()
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	for off := int64(0); ; {
		tok, err := dec.Token()
		if err != nil {
			return nil // the end, or malformed JSON the decoder reports
		}
		start := off
		off = dec.InputOffset()
		var top *frame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			continue
		}
		if top != nil && top.object && !top.value {
			key := tok.(string)
			top.key, top.value = key, true
			if !utf8.Valid(body[start:off]) {
				return fieldErr(path(), "the field name must be valid UTF-8")
			}
			if loneSurrogate(body[start:off]) {
				return fieldErr(path(), "the field name holds a lone surrogate escape (\\ud800–\\udfff not in a pair), which is no character")
			}
			folded := foldKey(key)
			if first, dup := top.keys[folded]; dup {
				if first == key {
					return fieldErr(path(), "given twice")
				}
				return fieldErr(path(), "given twice (as %q and %q)", first, key)
			}
			top.keys[folded] = key
			continue
		}
		// A value: of the current key, or the next element.
		if top != nil && top.object {
			top.value = false
		} else if top != nil {
			top.index++
		}
		if !utf8.Valid(body[start:off]) {
			return fieldErr(path(), "must be valid UTF-8")
		}
		if loneSurrogate(body[start:off]) {
			return fieldErr(path(), "holds a lone surrogate escape (\\ud800–\\udfff not in a pair), which is no character")
		}
		if d, ok := tok.(json.Delim); ok {
			if len(stack) >= 10_000 {
				return nil // too deep: the decoder refuses it
			}
			f := frame{object: d == '{', index: -1}
			if f.object {
				f.keys = map[string]string{}
			}
			stack = append(stack, f)
		}
	}
}

// loneSurrogate reports whether raw, the bytes of one JSON token (and the
// separators before it), escapes a UTF-16 surrogate that is not half of a
// high-then-low pair: it stands for no character, and encoding/json reads
// it as U+FFFD.
func loneSurrogate(raw []byte) bool {
	for i := 0; i+1 < len(raw); i++ {
		switch {
		case raw[i] != '\\':
		case raw[i+1] != 'u':
			i++ // \\, \", \n, …: the next byte is not the start of an escape
		default:
			switch r := hex4(raw[i+2:]); {
			case r >= 0xd800 && r < 0xdc00: // high: a low one must follow
				if !bytes.HasPrefix(raw[i+6:], []byte(`\u`)) {
					return true
				}
				if lo := hex4(raw[i+8:]); lo < 0xdc00 || lo > 0xdfff {
					return true
				}
				i += 11
			case utf16.IsSurrogate(r): // low, alone
				return true
			default:
				i += 5
			}
		}
	}
	return false
}

// hex4 reads the four hex digits at the start of b, -1 when there are none.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return -1
		}
	}
	return r
}

// foldKey folds a field name the way encoding/json matches field names
// (Unicode simple folding, so "Name", "NAME" and "name" are one field).
func foldKey(key string) string {
	return strings.Map(func(r rune) rune {
		for {
			r2 := unicode.SimpleFold(r)
			if r2 <= r {
				return r2
			}
			r = r2
		}
	}, key)
}
