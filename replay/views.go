package replay

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// PrintState prints the tournament as it stood: summary, every round's
// tables and results, sanctions, standings and (once a knockout phase is
// drawn) the classification, each ranking cut at top rows.
func PrintState(w io.Writer, st *projections.Tournament, top int) {
	fmt.Fprintf(w, "%s %q (%s) after event %d: %s, %d rounds, %d players\n",
		st.ID, st.Name, st.Ruleset.Preset, st.Seq, st.Phase(), len(st.Rounds), len(st.Ranked()))
	for _, r := range st.Rounds {
		fmt.Fprintf(w, "\nround %d (%s), drawn at event %d with %s v%d seed %q\n", r.Number, r.Phase, r.Drawn, r.Algorithm, r.Version, r.Seed)
		for _, tb := range r.Tables {
			fmt.Fprintf(w, "  table %d [%s]", tb.Number, strings.Join(tb.Players, " "))
			switch {
			case tb.Annulled != nil:
				fmt.Fprintf(w, " annulled: %s", tb.Annulled.Reason)
			case tb.Results != nil:
				var pl []string
				for _, res := range tb.Results {
					pl = append(pl, fmt.Sprintf("%d. %s %s", res.Place, res.Player, projections.Points(res.Score)))
				}
				fmt.Fprintf(w, " → %s", strings.Join(pl, ", "))
				if tb.Amended > 0 {
					fmt.Fprintf(w, " (amended at event %d)", tb.Amended)
				}
			default:
				fmt.Fprint(w, " (no result)")
			}
			fmt.Fprintln(w)
		}
	}
	if len(st.Sanctions) > 0 {
		fmt.Fprintln(w, "\nsanctions")
		for _, s := range st.Sanctions {
			fmt.Fprintf(w, "  %s event %d: %s %s round %d", s.Sanction, s.Seq, s.Player, s.Kind, s.Round)
			if s.Amount > 0 {
				fmt.Fprintf(w, " %d", s.Amount)
			}
			fmt.Fprintf(w, " (%s)", s.Article)
			if s.Revoked {
				fmt.Fprint(w, " REVOKED")
			}
			fmt.Fprintln(w)
		}
	}
	printRows(w, "standings", st.Standings().Rows, top)
	if len(st.Rounds) > st.Ruleset.QualifyingRounds {
		cl := st.Classification()
		fmt.Fprintln(w, "\nclassification")
		for _, r := range cl.Rows[:min(top, len(cl.Rows))] {
			fmt.Fprintf(w, "  %3d %-8s %-12s %8s %s\n", r.Rank, r.Player, r.Phase, r.Total, tieMark(r.TieUnresolved))
		}
	}
}

func printRows(w io.Writer, title string, rows []projections.StandingsRow, top int) {
	fmt.Fprintf(w, "\n%s\n", title)
	for _, r := range rows[:min(top, len(rows))] {
		fmt.Fprintf(w, "  %3d %-8s %-24s %8s %s %s\n", r.Rank, r.Player, r.Name, r.Total, r.Status, tieMark(r.TieUnresolved))
	}
	if len(rows) > top {
		fmt.Fprintf(w, "  … %d more\n", len(rows)-top)
	}
}

func tieMark(t bool) string {
	if t {
		return "(tie: die roll owed)"
	}
	return ""
}

// Change is a player whose rank or total moved.
type Change struct {
	Player                    string
	RankBefore, RankAfter     int
	TotalBefore, TotalAfter   projections.Points
	StatusBefore, StatusAfter string
}

// rankRow is one player's line of a ranking, as a change compares it.
type rankRow struct {
	player string
	rank   int
	total  projections.Points
	// status is the player's status in the standings, his group in the
	// classification.
	status string
}

// ranked is every row of the standings, the expelled (listed apart,
// unranked: rank 0) included, so that a change that expels someone shows.
func ranked(s projections.Standings) []rankRow {
	out := make([]rankRow, 0, len(s.Rows)+len(s.Expelled))
	for _, r := range append(slices.Clip(s.Rows), s.Expelled...) {
		out = append(out, rankRow{player: r.Player, rank: r.Rank, total: r.Total, status: string(r.Status)})
	}
	return out
}

// rankChanges compares two rankings; a player in one only is reported too.
func rankChanges(before, after []rankRow) []Change {
	b := map[string]rankRow{}
	for _, r := range before {
		b[r.player] = r
	}
	var out []Change
	seen := map[string]bool{}
	for _, r := range after {
		seen[r.player] = true
		p, ok := b[r.player]
		if !ok || p.rank != r.rank || p.total != r.total || p.status != r.status {
			out = append(out, Change{Player: r.player, RankBefore: p.rank, RankAfter: r.rank, TotalBefore: p.total, TotalAfter: r.total,
				StatusBefore: p.status, StatusAfter: r.status})
		}
	}
	for _, p := range before {
		if !seen[p.player] {
			out = append(out, Change{Player: p.player, RankBefore: p.rank, TotalBefore: p.total, StatusBefore: p.status, StatusAfter: "not ranked"})
		}
	}
	return out
}

// DiffReport is what changed between two points of the log.
type DiffReport struct {
	From, To uint64
	Events   []events.Envelope
	Ranks    []Change
}

// Diff folds the log sc reads to two points, from < to, compares them and
// closes sc.
func Diff(sc *Scanner, from, to uint64) (*DiffReport, error) {
	defer sc.Close()
	if from >= to {
		return nil, fmt.Errorf("replay: diff from %d to %d: the first point must come before the second", from, to)
	}
	f := &folder{sc: sc}
	// Only the standings at from are compared: keep those, not the state.
	var before []rankRow
	if from > 0 {
		st, err := f.to(from)
		if err != nil {
			return nil, err
		}
		before = ranked(st.Standings())
	}
	d := &DiffReport{From: from, To: to}
	for f.st == nil || f.st.Seq < to {
		ok, err := f.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("the log ends at event %d, before %d", f.sc.Line(), to)
		}
		d.Events = append(d.Events, sc.Envelope())
	}
	d.Ranks = rankChanges(before, ranked(f.st.Standings()))
	return d, nil
}

// Print renders the difference.
func (d *DiffReport) Print(w io.Writer) {
	fmt.Fprintf(w, "events %d..%d:\n", d.From+1, d.To)
	for _, env := range d.Events {
		fmt.Fprintf(w, "  %d %s %s by %s: %s\n", env.Seq, env.At.Format(time.DateTime), env.Type, env.Actor.ID, summary(env))
	}
	printChanges(w, "standings", d.Ranks)
}

func printChanges(w io.Writer, title string, cs []Change) {
	if len(cs) == 0 {
		fmt.Fprintf(w, "%s: no change\n", title)
		return
	}
	fmt.Fprintf(w, "%s: %d players moved\n", title, len(cs))
	for _, c := range cs {
		fmt.Fprintf(w, "  %-8s rank %s → %s, total %s → %s", c.Player, rankText(c.RankBefore), rankText(c.RankAfter), c.TotalBefore, c.TotalAfter)
		if c.StatusBefore != c.StatusAfter {
			fmt.Fprintf(w, ", %s → %s", c.StatusBefore, c.StatusAfter)
		}
		fmt.Fprintln(w)
	}
}

// rankText is a rank, "—" for none (not yet ranked, or expelled).
func rankText(r int) string {
	if r == 0 {
		return "—"
	}
	return fmt.Sprint(r)
}

// summary renders an event's data in one line.
func summary(env events.Envelope) string {
	var m map[string]any
	_ = json.Unmarshal(env.Data, &m)
	var parts []string
	for _, k := range []string{"player", "round", "table", "kind", "phase", "against", "contestation", "upheld", "algorithm", "seed"} {
		if v, ok := m[k]; ok {
			parts = append(parts, fmt.Sprintf("%s=%v", k, v))
		}
	}
	return strings.Join(parts, " ")
}

// WhatIfReport is what hypothetical corrections would change.
type WhatIfReport struct {
	At         uint64
	Applied    []events.Event
	Standings  []Change
	Phase      events.Phase
	CutBefore  []string
	CutAfter   []string
	CutErr     string
	Classified []Change
}

// WhatIf applies corrections (RecordResult, RevokeSanction, ImposeSanction
// payloads, as a ruling would) on top of the log at event at (0: the end),
// in memory, and reports which ranks, cuts and qualifications change.
// Nothing is appended anywhere. sc is closed.
func WhatIf(sc *Scanner, at uint64, corrections []json.RawMessage) (*WhatIfReport, error) {
	st, err := Fold(sc, at)
	if err != nil {
		return nil, err
	}
	in := commands.Input{Now: st.Updated, Actor: events.Actor{ID: "what-if", Role: events.RoleAppeals}, Seed: "what-if"}
	evs, err := commands.Corrections(st, corrections, "what-if", in)
	if err != nil {
		return nil, err
	}
	envs, err := events.Seal(st.ID, st.Seq+1, in.Now, in.Actor, "what-if", evs)
	if err != nil {
		return nil, err
	}
	// The views before, then the corrections applied to the same state:
	// it was folded for this alone, so no copy is needed.
	r := &WhatIfReport{At: st.Seq, Applied: evs}
	standings := ranked(st.Standings())
	phase, cutBefore, errBefore := commands.NextQualifiers(st)
	knockout := len(st.Rounds) > st.Ruleset.QualifyingRounds
	var classified []projections.ClassificationRow
	if knockout {
		classified = st.Classification().Rows
	}
	for i, env := range envs {
		if err := st.Apply(env, evs[i], nil); err != nil {
			return nil, err
		}
	}
	r.Standings = rankChanges(standings, ranked(st.Standings()))
	_, cutAfter, errAfter := commands.NextQualifiers(st)
	switch {
	case errBefore != nil || errAfter != nil:
		r.CutErr = fmt.Sprint(firstErr(errBefore, errAfter))
	default:
		r.Phase, r.CutBefore, r.CutAfter = phase, cutBefore, cutAfter
	}
	if knockout {
		r.Classified = classChanges(classified, st.Classification().Rows)
	}
	return r, nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func classChanges(before, after []projections.ClassificationRow) []Change {
	byGroup := func(rows []projections.ClassificationRow) []rankRow {
		out := make([]rankRow, len(rows))
		for i, r := range rows {
			out[i] = rankRow{player: r.Player, rank: r.Rank, total: r.Total, status: string(r.Phase)}
		}
		return out
	}
	return rankChanges(byGroup(before), byGroup(after))
}

// Print renders the what-if.
func (r *WhatIfReport) Print(w io.Writer) {
	fmt.Fprintf(w, "what if, after event %d, the appeals committee ordered:\n", r.At)
	for _, ev := range r.Applied {
		b, _ := json.Marshal(ev)
		fmt.Fprintf(w, "  %s %s\n", ev.EventType(), b)
	}
	printChanges(w, "standings", r.Standings)
	switch {
	case r.CutErr != "":
		fmt.Fprintf(w, "cut: cannot be told: %s\n", r.CutErr)
	default:
		out, in := setDiff(r.CutBefore, r.CutAfter), setDiff(r.CutAfter, r.CutBefore)
		if len(out) == 0 && len(in) == 0 {
			fmt.Fprintf(w, "qualifiers for the %s: no change (%d)\n", r.Phase, len(r.CutAfter))
		} else {
			fmt.Fprintf(w, "qualifiers for the %s: %s would lose the place, %s would take it\n", r.Phase, strings.Join(out, ", "), strings.Join(in, ", "))
		}
	}
	if r.Classified != nil {
		printChanges(w, "classification", r.Classified)
	}
	fmt.Fprintln(w, "nothing was appended to the log")
}

func setDiff(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}
