package replay

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
)

// importedPublication checks a classification published as an imported
// workbook has it (docs/workbook.md): its rows are the file's, so what the
// state before it derives is the list of rows it disagrees on, which the
// publication must state exactly. It keeps the checkpoint it embeds, as a
// publication's.
func (v *verifier) importedPublication(line int, env events.Envelope, imp events.ClassificationImported) {
	v.publications++
	if imp.Checkpoint != "" {
		v.cps = append(v.cps, checkpointAt{signed: []byte(imp.Checkpoint), from: fmt.Sprintf("the classification imported at line %d", line), line: line})
	}
	v.lastPub = line
	msg := ""
	switch {
	case v.st.ImportedFrom() == nil:
		msg = "the tournament was not imported from a workbook"
	default:
		want := commands.Disagreements(v.st, imp.Rows)
		if !slices.Equal(want, imp.Disagreements) {
			w, _ := json.Marshal(want)
			g, _ := json.Marshal(imp.Disagreements)
			msg = fmt.Sprintf("it states the disagreements %s with the ruleset, which derives %s", g, w)
		}
	}
	if msg != "" {
		v.settleDraws(line, true)
		v.r.addRange(1, line, "the classification imported at line %d is not what events 1..%d derive: %s", line, env.Seq-1, msg)
		v.settle = append(v.settle, len(v.r.Checks)-1)
	}
}
