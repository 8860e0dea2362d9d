package replay

import (
	"bytes"
	"encoding/json"
	"errors"
)

// ParseCorrections reads the corrections WhatIf applies, as an appeals
// committee writes them down: a JSON array of payloads, an object with
// "corrections" (a RuleContestation body), or one payload per line.
func ParseCorrections(b []byte) ([]json.RawMessage, error) {
	b = bytes.TrimSpace(b)
	var arr []json.RawMessage
	if err := json.Unmarshal(b, &arr); err == nil {
		return arr, nil
	}
	var obj struct {
		Corrections []json.RawMessage `json:"corrections"`
	}
	if err := json.Unmarshal(b, &obj); err == nil && obj.Corrections != nil {
		return obj.Corrections, nil
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if line = bytes.TrimSpace(line); len(line) > 0 {
			if !json.Valid(line) {
				return nil, errors.New("not a JSON array, a ruling's corrections or one payload per line")
			}
			arr = append(arr, json.RawMessage(line))
		}
	}
	return arr, nil
}
