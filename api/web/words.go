package web

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/referto/referto/commands/draw"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
	"github.com/referto/referto/projections/ranking"
)

// paramRow is one ruleset parameter as a page shows it.
type paramRow struct {
	Key, Label, Value string
}

// params says every parameter of a ruleset in lang, by the ledger's names
// (events.Ruleset's JSON names are the keys).
func params(lang string, rs events.Ruleset) []paramRow {
	num := func(n int, unit string) string {
		if n == 0 {
			return tr(lang, "none_dash")
		}
		if unit != "" {
			return strconv.Itoa(n) + " " + tr(lang, unit)
		}
		return strconv.Itoa(n)
	}
	word := func(prefix, v string) string {
		if v == "" {
			return tr(lang, "none_dash")
		}
		return tr(lang, prefix+v)
	}
	sizes := make([]string, len(rs.TableSizes))
	for i, n := range rs.TableSizes {
		sizes[i] = strconv.Itoa(n)
	}
	closings := make([]string, len(rs.Closings))
	for i, c := range rs.Closings {
		closings[i] = tr(lang, string(c))
	}
	objectives := rs.Objectives.ID
	if len(rs.Objectives.Inline) > 0 {
		objectives = "inline"
	}
	if objectives == "" {
		objectives = tr(lang, "none_dash")
	}
	disq, rulings, self := rs.Disqualified, rs.Rulings, rs.SelfReport
	if disq == "" {
		disq = events.DisqualifiedLast
	}
	if rulings == "" {
		rulings = events.RulingsAppeals
	}
	if self == "" {
		self = events.SelfReportArbiter
	}
	rows := []paramRow{
		{"scoring", "", word("formula_", string(rs.Scoring))},
		{"bonus", "", strconv.Itoa(rs.Bonus)},
		{"qualifying_rounds", "", strconv.Itoa(rs.QualifyingRounds)},
		{"knockout", "", word("knockout_", string(rs.Knockout))},
		{"table_sizes", "", strings.Join(sizes, " "+tr(lang, "word_or")+" ")},
		{"small_table_max", "", num(rs.SmallTableMax, "")},
		{"discards", "", strconv.Itoa(rs.Discards)},
		{"tie_chain", "", word("tiechain_", string(rs.TieChain))},
		{"tie_at_top", "", word("tieattop_", string(rs.TieAtTop))},
		{"tiebreak", "", word("tiebreak_", string(rs.Tiebreak))},
		{"draw", "", word("drawalg_", string(rs.Draw))},
		{"sanctions", "", word("regime_", string(rs.Sanctions))},
		{"objectives", "", objectives},
		{"closings", "", strings.Join(closings, ", ")},
		{"army_limit", "", num(rs.ArmyLimit, "")},
		{"late_penalty_after", "", num(rs.LatePenaltyAfter, "minutes")},
		{"late_refuse_after", "", num(rs.LateRefuseAfter, "minutes")},
		{"withdrawal_malus", "", num(rs.WithdrawalMalus, "")},
		{"annulment", "", word("annulment_", rs.AnnulmentRule())},
		{"disqualified", "", word("disq_", disq)},
		{"rulings", "", word("rulings_", rulings)},
		{"contest_within", "", num(rs.ContestWithin, "minutes")},
		{"contest_by", "", word("contestby_", string(rs.ContestedBy()))},
		{"self_report", "", word("selfreport_", self)},
	}
	for i := range rows {
		rows[i].Label = tr(lang, "param_"+rows[i].Key)
	}
	return rows
}

// unmetText says a draw constraint that was not met, with the players'
// names.
func unmetText(lang string, u events.UnmetConstraint, name func(string) string) string {
	var who []string
	for _, p := range u.Players {
		who = append(who, name(p))
	}
	list := strings.Join(who, ", ")
	if n := len(who); n > 1 {
		list = strings.Join(who[:n-1], ", ") + " " + tr(lang, "word_and") + " " + who[n-1]
	}
	key := "unmet_" + u.Constraint
	switch u.Constraint {
	case draw.ConstraintSameClub, draw.ConstraintSameRegion, draw.ConstraintPlaceMix, draw.ConstraintBandClub, draw.ConstraintBandMix, draw.ConstraintRematch:
	default:
		key = "unmet_other"
	}
	return fmt.Sprintf(tr(lang, key), u.Table, list)
}

// settledText says how a tie was settled: "tiro di dado: 5 contro 2 (evento 17)".
func settledText(lang string, s *projections.Settled) string {
	if s == nil {
		return ""
	}
	text := tr(lang, "rule_"+s.Rule) + ": " + s.Above + " " + tr(lang, "word_versus") + " " + s.Below
	if s.Rule == "medals" && s.Place > 0 {
		text = fmt.Sprintf("%s (%d°): %s %s %s", tr(lang, "rule_medals"), s.Place, s.Above, tr(lang, "word_versus"), s.Below)
	}
	if s.RollSeq > 0 {
		text += fmt.Sprintf(" (%s %d)", tr(lang, "event"), s.RollSeq)
	}
	return text + " · " + ruleText(lang, s.Source)
}

// whyText says why a result of the national ranking does not count, in the
// page's language: its code's words with its arguments, or the ledger's
// English when the language has no words for the code.
func whyText(lang string, w ranking.Why) string {
	if f, ok := catalogueOf(lang).file.Labels["why_"+w.Code]; ok && lang != "en" {
		return w.Format(f)
	}
	return w.Text
}
