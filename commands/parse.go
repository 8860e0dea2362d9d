package commands

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
)

// Parse decodes a command payload {"type": ..., ...} strictly: malformed
// JSON, an unknown type and unknown or mistyped fields are *FieldError
// values naming the field. The command's own field checks run too.
func Parse(body []byte) (Command, error) {
	var head struct {
		Type *string `json:"type"`
	}
	if err := json.Unmarshal(body, &head); err != nil {
		return nil, jsonErr(err)
	}
	if head.Type == nil || *head.Type == "" {
		return nil, fieldErr("type", "required: one of %s", strings.Join(Types(), ", "))
	}
	if !slices.Contains(Types(), *head.Type) {
		hint := ""
		switch *head.Type {
		case "CreateTournament":
			hint = "; create tournaments with POST /v1/tournaments"
		case "AppointOfficial":
			hint = "; appoint officials with POST /v1/tournaments/{t}/officials"
		}
		return nil, fieldErr("type", "unknown command type %q (known: %s)%s", *head.Type, strings.Join(Types(), ", "), hint)
	}
	return ParseAs(*head.Type, body)
}

// ParseAs decodes body as the named command type; the payload may carry a
// matching "type" field or none.
func ParseAs(typ string, body []byte) (Command, error) {
	cmd := newCommand(typ)
	if cmd == nil {
		return nil, fieldErr("type", "unknown command type %q (known: %s)", typ, strings.Join(Types(), ", "))
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := decodeCommand(dec, cmd); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fieldErr("", "trailing data after the JSON object")
	}
	if err := cmd.Check(); err != nil {
		return nil, err
	}
	return cmd, nil
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
