package commands

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
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
	if err := jsonv2.Unmarshal(body, &head); err != nil {
		return "", jsonErr(body, err)
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

// decodeInto decodes body, which checkPayload passed, into cmd strictly
// and checks its fields.
func decodeInto(cmd Command, body []byte) error {
	if err := decodeCommand(body, cmd); err != nil {
		return err
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

// decodeCommand decodes body into cmd: a member cmd has no field for is
// refused, as is a "type" that names another command.
func decodeCommand(body []byte, cmd Command) error {
	if err := decodeExact(body, cmd); err != nil {
		return err
	}
	if t := cmd.typeField(); t != "" && t != cmd.CommandType() {
		return fieldErr("type", "is %q but the payload was posted as %s", t, cmd.CommandType())
	}
	return nil
}

// decodeExact decodes body into v, refusing a member v has no field for.
// Member names match fields exactly, in their letter case: "NAME" beside
// "name" is an unknown field, never a second name.
func decodeExact(body []byte, v any) error {
	if err := jsonv2.Unmarshal(body, v, jsonv2.RejectUnknownMembers(true)); err != nil {
		return jsonErr(body, err)
	}
	return nil
}

// checkPayload reads body as one JSON value as json/v2 reads it by
// default, the I-JSON of RFC 7493: text of valid UTF-8, no escape of a
// lone UTF-16 surrogate ("\ud800", which stands for no character), no
// member name given twice in an object (the last would win where another
// reader of the same payload may take the first), and nothing after the
// value. It runs before a payload is decoded, so that these are reported
// wherever they are, before the first wrong type.
func checkPayload(body []byte) error {
	dec := jsontext.NewDecoder(bytes.NewReader(body))
	if _, err := dec.ReadValue(); err != nil {
		return jsonErr(body, err)
	}
	if _, err := dec.ReadToken(); !errors.Is(err, io.EOF) {
		return fieldErr("", "trailing data after the JSON object")
	}
	return nil
}

// jsonErr turns a json/v2 error reading body into a *FieldError naming the
// field: a name given twice, text that is not valid UTF-8 or escapes a lone
// surrogate, an unknown member, a value of the wrong type.
func jsonErr(body []byte, err error) error {
	var syn *jsontext.SyntacticError
	var sem *jsonv2.SemanticError
	switch {
	case errors.As(err, &syn):
		off := syn.ByteOffset
		field, in := fieldAt(body, syn.JSONPointer, off, true)
		switch {
		case errors.Is(syn.Err, jsontext.ErrDuplicateName):
			return fieldErr(field, "given twice")
		case in == inName && loneSurrogateAt(body, off):
			return fieldErr(field, "the field name holds a lone surrogate escape (\\ud800–\\udfff not in a pair), which is no character")
		case in == inName && invalidUTF8At(body, off):
			return fieldErr(field, "the field name must be valid UTF-8")
		case in == inValue && loneSurrogateAt(body, off):
			return fieldErr(field, "holds a lone surrogate escape (\\ud800–\\udfff not in a pair), which is no character")
		case in == inValue && invalidUTF8At(body, off):
			return fieldErr(field, "must be valid UTF-8")
		case errors.Is(syn.Err, io.ErrUnexpectedEOF):
			return fieldErr("", "empty or truncated JSON body")
		}
		return fieldErr("", "malformed JSON at byte %d: %v", off, syn.Err)
	case errors.As(err, &sem):
		got := jsonKind(sem.JSONKind)
		switch {
		case errors.Is(sem.Err, jsonv2.ErrUnknownName):
			return fieldErr(sem.JSONPointer.LastToken(), "unknown field")
		case sem.JSONPointer == "":
			return fieldErr("", "the payload must be a JSON object, not %s", got)
		case sem.JSONKind == '0' && sem.ByteOffset < int64(len(body)):
			if v, err := jsontext.NewDecoder(bytes.NewReader(body[sem.ByteOffset:])).ReadValue(); err == nil {
				got += " " + string(v) // which number: 1e309, 1.5
			}
		}
		// The field as encoding/json named it: without array indices.
		field, _ := fieldAt(body, sem.JSONPointer, sem.ByteOffset, false)
		return fieldErr(field, "wrong type: got %s, want %s", got, goKind(sem.GoType))
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fieldErr("", "empty or truncated JSON body")
	}
	return fieldErr("", "invalid JSON: %v", err)
}

// jsonKind names a kind of JSON value as a problem says it.
func jsonKind(k jsontext.Kind) string {
	switch k {
	case 't', 'f':
		return "bool"
	case '{':
		return "object"
	case '[':
		return "array"
	case 'n', '"', '0':
		return k.String() // null, string, number
	}
	return "a value"
}

// goKind names the kind of JSON value a Go type reads.
func goKind(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "a valid value"
	}
	switch k := t.Kind(); {
	case k >= reflect.Int && k <= reflect.Float64:
		return "number"
	case k == reflect.Slice || k == reflect.Array:
		return "array"
	case k == reflect.Struct || k == reflect.Map:
		return "object"
	case k == reflect.Bool:
		return "boolean"
	}
	return t.Kind().String()
}

// inText is where in a JSON value an error lies: in a string that is a
// member's name or a value, or elsewhere.
type inText int

const (
	inNeither inText = iota
	inName
	inValue
)

// fieldAt names the value ptr points at in body as a FieldError does:
// members joined by dots and, with indices, array elements by their index
// in brackets ("players[1].status"). body tells an element from a member
// whose name is a number. It reports whether the error at byte off of
// body lies in a string: the value ptr points at, or a member name of the
// object ptr points at, which the field then ends with (decoded, a
// character that is none becoming U+FFFD).
func fieldAt(body []byte, ptr jsontext.Pointer, off int64, indices bool) (string, inText) {
	// Leniently: the error read strictly is ahead, and a name is named.
	dec := jsontext.NewDecoder(bytes.NewReader(body), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	var b strings.Builder
	member := func(name string) {
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(name)
	}
	for tok := range ptr.Tokens() {
		array := dec.PeekKind() == '['
		switch {
		case !array:
			member(tok)
		case indices:
			b.WriteString("[" + tok + "]")
		}
		if !enter(dec, tok, array) {
			return b.String(), inNeither // cannot happen: ptr is in body
		}
	}
	switch dec.PeekKind() {
	case '"':
		start := dec.InputOffset()
		if _, err := dec.ReadToken(); err == nil && start <= off && off < dec.InputOffset() {
			return b.String(), inValue
		}
	case '{':
		if _, err := dec.ReadToken(); err != nil {
			break
		}
		for dec.PeekKind() == '"' {
			start := dec.InputOffset()
			name, err := dec.ReadToken()
			if err != nil {
				break
			}
			if start <= off && off < dec.InputOffset() {
				member(name.String())
				return b.String(), inName
			}
			if dec.SkipValue() != nil {
				break
			}
		}
	}
	return b.String(), inNeither
}

// enter moves dec, at an object or array, to its member named tok or its
// element at index tok.
func enter(dec *jsontext.Decoder, tok string, array bool) bool {
	if _, err := dec.ReadToken(); err != nil {
		return false
	}
	if array {
		n, err := strconv.Atoi(tok)
		for ; err == nil && n > 0; n-- {
			err = dec.SkipValue()
		}
		return err == nil
	}
	for dec.PeekKind() == '"' {
		name, err := dec.ReadToken()
		if err != nil {
			return false
		}
		if name.String() == tok {
			return true
		}
		if dec.SkipValue() != nil {
			return false
		}
	}
	return false
}

// loneSurrogateAt reports whether body escapes a UTF-16 surrogate at off,
// where json/v2 found no character.
func loneSurrogateAt(body []byte, off int64) bool {
	if off < 0 || off+6 > int64(len(body)) || body[off] != '\\' || body[off+1] != 'u' {
		return false
	}
	r, err := strconv.ParseUint(string(body[off+2:off+6]), 16, 16)
	return err == nil && utf16.IsSurrogate(rune(r))
}

// invalidUTF8At reports whether body holds invalid UTF-8 at off.
func invalidUTF8At(body []byte, off int64) bool {
	if off < 0 || off >= int64(len(body)) {
		return false
	}
	r, n := utf8.DecodeRune(body[off:])
	return r == utf8.RuneError && n <= 1
}
