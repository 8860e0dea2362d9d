package events

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// Ruleset is the complete, resolved set of parameters a tournament is played
// under (docs/rules.md#2-rulesets). It is stored whole in TournamentCreated (and in
// RulesetAmended), so that replay uses the ruleset recorded in the log and
// never the code's current presets.
type Ruleset struct {
	// Preset is the ruleset id the tournament was created with
	// (rur-2015, campionato-2003, master, cirki-2001, rtu).
	Preset PresetID `json:"preset"`
	// Scoring is the formula converting table points into tournament points
	// (docs/rules.md#5-scoring-formulas).
	Scoring Formula `json:"scoring"`
	// Bonus is the winner's bonus in table points for tp_bonus and wins.
	Bonus int `json:"bonus"`
	// TieChain breaks ties in table points at a table (docs/rules.md#4-placement-at-a-table): rur, 2003, rtu.
	TieChain TieChain `json:"tie_chain"`
	// TieAtTop is chain (the tie chain decides first place) or split_bonus.
	TieAtTop TieAtTop `json:"tie_at_top"`
	// Tiebreak orders tied standings (docs/rules.md#6-standings): rur or cirki.
	Tiebreak Tiebreak `json:"tiebreak"`
	// Discards is how many worst game scores are dropped from the total.
	Discards int `json:"discards"`
	// TableSizes lists the allowed table sizes in preference order (docs/rules.md#8-table-formation).
	TableSizes []int `json:"table_sizes"`
	// SmallTableMax, when positive, allows tables of 3 only with fewer than
	// this many players (campionato-2003: 11).
	SmallTableMax int `json:"small_table_max"`
	// QualifyingRounds is the number of qualifying games.
	QualifyingRounds int `json:"qualifying_rounds"`
	// Knockout names the phases after qualifying (docs/rules.md#7-formats-and-the-rur-knockout).
	Knockout Knockout `json:"knockout"`
	// Draw names the table formation algorithm of the qualifying rounds.
	Draw DrawMethod `json:"draw"`
	// Sanctions names the sanction regime (docs/rules.md#10-sanctions).
	Sanctions Regime `json:"sanctions"`
	// Objectives is the objective set table reports are checked against: a
	// set id ("rtu-16"), an inline set, or empty for none.
	Objectives ObjectiveRef `json:"objectives"`
	// LatePenaltyAfter and LateRefuseAfter are minutes of lateness at check-in
	// (docs/rules.md#11-check-in-and-lateness): more than LatePenaltyAfter plays with a penalty, more
	// than LateRefuseAfter may not play. Zero disables each.
	LatePenaltyAfter int `json:"late_penalty_after"`
	LateRefuseAfter  int `json:"late_refuse_after"`
	// WithdrawalMalus is the classification malus, in tournament points, for
	// a withdrawal (campionato-2003: 150), never discarded.
	WithdrawalMalus int `json:"withdrawal_malus"`
	// ContestWithin, in minutes, closes every contestation window that long
	// after the contested event (0: only docs/rules.md#13-contestation's windows); ContestBy
	// is "anyone" or "involved" (only a player the contested event concerns
	// may contest: the EG online appeals chamber's rule).
	ContestWithin int       `json:"contest_within,omitempty"`
	ContestBy     ContestBy `json:"contest_by,omitempty"`
	// ArmyLimit is the most armies a player may have on the board, so the
	// most a table report may give him (rur-2015 art. 30: "fino ad un
	// massimo di 130 armate"; campionato-2003: "Il limite di armate
	// utilizzabili, a disposizione di ogni giocatore, è di 130"; master and
	// rtu: "limite massimo consentito (130)"; cirki-2001 §4: "un massimo di
	// 150 armate"). 0 sets none; a log recorded before the parameter
	// existed has none.
	ArmyLimit int `json:"army_limit,omitempty"`
	// Annulment is what a game declared void scores (docs/rules.md#12-annulled-game):
	// "next_round" (campionato-2003: "dall'arbitro verrà segnato lo stesso
	// punteggio ottenuto al turno successivo", the previous round's in the
	// last) or "none" (rur-2015 art. 34, master: the culprit is expelled and
	// the others "possono proseguire la partita o riprenderla dall'inizio",
	// so the table's result is the ordinary report of that game). A log
	// recorded before the parameter existed has "": see [Ruleset.AnnulmentRule].
	Annulment string `json:"annulment,omitempty"`
	// Closings are the ways a game may end (docs/rules.md#3-table-report-referto): objective,
	// closing_roll, time. cirki-2001 §12: "La partita termina SOLO con il
	// raggiungimento dell'obiettivo strategico".
	Closings []Closing `json:"closings"`
	// Edition is the edition of the ledger's reading of the rules the
	// tournament was created under ([CurrentEdition] for a new one). It is
	// not a parameter: the code sets it, so that a log is replayed and
	// verified by the reading it was decided under. A log recorded before
	// the field existed has none: edition 1 (see [Ruleset.RulesEdition]).
	Edition int `json:"edition,omitempty"`
	// Disqualified is what a disqualification from a game does (docs/rules.md#4-placement-at-a-table,
	// docs/rules.md#10-sanctions): "last" places the player last with 0 points and expels him
	// from the tournament (master "squalifica": "l'assegnazione di 0 punti
	// partita e l'espulsione dal torneo"); "withdrawn" places and scores him
	// like a withdrawn player and keeps him in the tournament unless the
	// offence also expels (rur-2015 art. 29: "Il giocatore squalificato è
	// equiparato al giocatore ritirato (vedi art. 31)"); "game" places him
	// last with 0 points and keeps him in the tournament (campionato-2003:
	// the arbiters may "espellere dalla partita uno o più giocatori in casi
	// gravi", an expulsion from the tournament being the arbitration
	// committee's separate decision). Under the rur sanction regime it is
	// "withdrawn": the regime applies rur-2015, art. 29 included (rtu's
	// preset too; Validate refuses the others with it). A log recorded
	// before the parameter existed has none: it reads as "last", the rule
	// that log was played and published under, so that it replays the same.
	Disqualified string `json:"disqualified,omitempty"`
	// Rulings is who rules on a contestation (docs/rules.md#13-contestation): "arbiters",
	// the arbiter role as well as the appeals role (rur-2015 art. 9: the
	// arbiters "giudica[no] sulle controversie"); "appeals", the appeals
	// role only. A log recorded before the parameter existed has none: it
	// reads as "appeals", who alone could rule then, because a rule of the
	// tournament does not change once it is under way.
	Rulings string `json:"rulings,omitempty"`
	// SelfReport is what a table report the players proposed and every
	// other player of the table confirmed becomes (docs/rules.md#14-tables-report-themselves):
	// "arbiter", ready for the arbiter to record with one action; or
	// "confirmed", recorded in the same commit as the last confirmation.
	// Empty (every preset, and a log recorded before the parameter existed)
	// reads as "arbiter": the arbiters keep the authority they had.
	SelfReport string `json:"self_report,omitempty"`
}

// CurrentEdition is the edition of the rules' reading that new tournaments
// record (docs/rules.md#22-editions-of-the-reading). Each edition corrected
// readings that decide what a log already holds, so a log is replayed and
// verified by the edition it records.
//
// Edition 2 differs from edition 1 in these:
//
//   - the classification ranks the losers of a knockout phase by their
//     counted qualifying games plus that phase's game alone (rur-2015 art. 1:
//     "sommando i punti ottenuti nelle prime due partite e nella
//     semifinale"; edition 1 added every knockout game), and a qualifier who
//     renounced before playing ranks with the qualifying group (edition 1:
//     with the losers of the phase he skipped);
//   - the rur-2015 standings chain compares the best single score and the
//     round it was obtained in, then the die (edition 1 compared the whole
//     sorted list of scores first);
//   - conv2003: a withdrawn player leaves the game, placed after everyone
//     still in it (edition 1 placed him by his table points);
//   - standard: a finished fifth on a table of 5 scores 2 (edition 1: 1);
//   - direct elimination seats the rounds before the semifinals so that at
//     most 5 semifinal tables follow, and the semifinals at the fewest
//     tables (edition 1: every round at the preferred size);
//   - a knockout round's draw waits for its call once started (edition 1:
//     drawn without it).
//
// Edition 3 differs from edition 2 in these:
//
//   - the rur-2015 standings chain compares the scores from the highest
//     down, each step by the score and then by the earlier round, and
//     leaves to the die only scores all equal and obtained in the same
//     order ("se tutti i punteggi fossero uguali ed ottenuti nello stesso
//     ordine"); edition 2 compared only the best score and its round, and
//     sent whatever was still level to the die;
//   - a total counts a player's best (qualifying rounds − discards) game
//     scores, so a round he did not play is the result discarded first
//     ("solo i due migliori risultati"); edition 2 discarded his worst
//     played games whatever he missed;
//   - rtu's direct elimination draws no game 1 below its minimum of
//     entrants ("Presuppone un minimo di 64 iscritti").
//
// Edition 4 differs from edition 3 in these:
//
//   - a knockout draw by bands names the article of the tournament's own
//     ruleset it follows, and cites it in its unmet constraints (master
//     §fasi finali, rtu §formule torneo); edition 3 cited rur-2015 art. 8
//     there under every ruleset;
//   - a knockout group of the classification breaks its ties on every
//     game score, discarded or not, as the standings do; edition 3 read
//     the counted games only.
//
// Parameters added since (army_limit, annulment, disqualified, rulings)
// carry their own defaults for logs that lack them.
const CurrentEdition = 4

// RulesEdition returns the edition the tournament was created under: Edition,
// or 1 for a log recorded before the field existed.
func (r Ruleset) RulesEdition() int { return max(r.Edition, 1) }

// The values of Ruleset.Annulment.
const (
	AnnulNextRound = "next_round"
	AnnulNone      = "none"
)

// AnnulmentRule returns the annulment rule in force: Annulment, or for a log
// recorded before the parameter existed, the preset's (only campionato-2003
// provides the next-round remedy).
func (r Ruleset) AnnulmentRule() string {
	if r.Annulment != "" {
		return r.Annulment
	}
	if p, ok := Preset(r.Preset); ok {
		return p.Annulment
	}
	return AnnulNone
}

// ContestedBy returns who may contest: ContestBy, or ContestByAnyone when
// the ruleset does not say.
func (r Ruleset) ContestedBy() ContestBy { return cmp.Or(r.ContestBy, ContestByAnyone) }

// Values of SelfReport.
const (
	SelfReportArbiter   = "arbiter"
	SelfReportConfirmed = "confirmed"
)

// RecordsConfirmed reports whether a fully confirmed proposal is recorded
// with its last confirmation, without the arbiter (SelfReport).
func (r Ruleset) RecordsConfirmed() bool { return r.SelfReport == SelfReportConfirmed }

// Values of Disqualified and Rulings.
const (
	DisqualifiedLast      = "last"
	DisqualifiedWithdrawn = "withdrawn"
	DisqualifiedGame      = "game"
	RulingsArbiters       = "arbiters"
	RulingsAppeals        = "appeals"
)

// DisqualifiedAsWithdrawn reports whether a disqualified player is placed,
// scored and kept in the tournament like a withdrawn one (Disqualified).
func (r Ruleset) DisqualifiedAsWithdrawn() bool { return r.Disqualified == DisqualifiedWithdrawn }

// DisqualificationExpels reports whether a disqualification from a game
// also expels the player from the tournament ("last", or a log that
// predates the parameter).
func (r Ruleset) DisqualificationExpels() bool {
	return r.Disqualified == DisqualifiedLast || r.Disqualified == ""
}

// ArbitersRule reports whether the arbiter role may rule on contestations
// (Rulings); the appeals role always may.
func (r Ruleset) ArbitersRule() bool { return r.Rulings == RulingsArbiters }

// ObjectiveRef is an objective set named by id, or given inline as JSON.
type ObjectiveRef struct {
	ID     string
	Inline json.RawMessage
}

// MarshalJSON renders the id as a string or the inline set as an object.
func (o ObjectiveRef) MarshalJSON() ([]byte, error) {
	if len(o.Inline) > 0 {
		var buf bytes.Buffer
		if err := json.Compact(&buf, o.Inline); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}
	return json.Marshal(o.ID)
}

// UnmarshalJSON accepts a string id or an inline object.
func (o *ObjectiveRef) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) > 0 && b[0] == '"':
		*o = ObjectiveRef{}
		return json.Unmarshal(b, &o.ID)
	case len(b) > 0 && b[0] == '{':
		*o = ObjectiveRef{Inline: append(json.RawMessage(nil), b...)}
		return nil
	case string(b) == "null":
		*o = ObjectiveRef{}
		return nil
	}
	return errors.New("objectives must be a set id or an inline set")
}

// presets are the rulesets of docs/rules.md#2-rulesets, in the order
// Presets lists them: every parameter resolved. "organizer" entries of
// docs/rules.md#2-rulesets get the default documented here and may be
// overridden by params at creation.
var presets = []Ruleset{
	{Preset: PresetRUR2015, Scoring: FormulaTPBonus, Bonus: 50, TieChain: TieChainRUR, TieAtTop: TieAtTopChain,
		Tiebreak: TiebreakRUR, TableSizes: []int{4}, QualifyingRounds: 2, Knockout: KnockoutRUR, Draw: DrawRUR,
		Sanctions: RegimeRUR, Objectives: ObjectiveRef{ID: "rtu-16"}, ArmyLimit: 130, Annulment: AnnulNone, Closings: Closings(),
		Disqualified: DisqualifiedWithdrawn, Rulings: RulingsArbiters},
	{Preset: PresetCampionato2003, Scoring: FormulaConv2003, Bonus: 0, TieChain: TieChain2003, TieAtTop: TieAtTopChain,
		Tiebreak: TiebreakRUR, TableSizes: []int{4, 5}, SmallTableMax: 11, QualifyingRounds: 3, Knockout: KnockoutNone,
		Draw: DrawSeeded2003, Sanctions: Regime2003, Objectives: ObjectiveRef{ID: "rtu-16"},
		LatePenaltyAfter: 10, LateRefuseAfter: 20, WithdrawalMalus: 150, ArmyLimit: 130, Annulment: AnnulNextRound,
		Closings: Closings(), Disqualified: DisqualifiedGame, Rulings: RulingsArbiters},
	// Organizer's choice of rounds: three by default.
	{Preset: PresetMaster, Scoring: FormulaTPBonus, Bonus: 50, TieChain: TieChainRUR, TieAtTop: TieAtTopChain,
		Tiebreak: TiebreakRUR, TableSizes: []int{4, 5}, QualifyingRounds: 3, Knockout: KnockoutSemis16, Draw: DrawRandom,
		Sanctions: RegimeMaster, Objectives: ObjectiveRef{ID: "rtu-16"}, ArmyLimit: 130, Annulment: AnnulNone, Closings: Closings(),
		Disqualified: DisqualifiedLast, Rulings: RulingsArbiters},
	// CIRKI plays continent-plus-strip objective sets of its own: no
	// board-checked reports unless the organizer supplies the set. Its
	// rulebook has no disqualification (§15 leaves sanctions to the
	// arbiter): a disqualified player is placed last at that table and
	// stays in the tournament.
	{Preset: PresetCirki2001, Scoring: FormulaCirki, Bonus: 0, TieChain: TieChainRUR, TieAtTop: TieAtTopChain,
		Tiebreak: TiebreakCirki, TableSizes: []int{4, 5}, QualifyingRounds: 3, Knockout: KnockoutNone, Draw: DrawRandom,
		Sanctions: RegimeArbiter, ArmyLimit: 150, Annulment: AnnulNone, Closings: []Closing{ClosingObjective}, Disqualified: DisqualifiedGame,
		Rulings: RulingsArbiters},
	// The rur sanction regime, so rur-2015's disqualification: art. 29,
	// "Il giocatore squalificato è equiparato al giocatore ritirato".
	{Preset: PresetRTU, Scoring: FormulaTPBonus, Bonus: 50, TieChain: TieChainRTU, TieAtTop: TieAtTopSplitBonus,
		Tiebreak: TiebreakRUR, TableSizes: []int{4, 5}, QualifyingRounds: 3, Knockout: KnockoutNone, Draw: DrawRandom,
		Sanctions: RegimeRUR, Objectives: ObjectiveRef{ID: "rtu-16"}, ArmyLimit: 130, Annulment: AnnulNone, Closings: Closings(),
		Disqualified: DisqualifiedWithdrawn, Rulings: RulingsArbiters},
}

// Presets lists the ruleset ids of docs/rules.md#2-rulesets.
func Presets() []PresetID {
	ids := make([]PresetID, len(presets))
	for i, p := range presets {
		ids[i] = p.Preset
	}
	return ids
}

// Preset returns the named preset with every parameter resolved, recorded
// under the current edition of the rules' reading.
func Preset(id PresetID) (Ruleset, bool) {
	for _, p := range presets {
		if p.Preset == id {
			r := p.clone()
			r.Edition = CurrentEdition
			return r, true
		}
	}
	return Ruleset{}, false
}

// ErrUnknownRuleset reports a ruleset id that is not a preset.
var ErrUnknownRuleset = errors.New("events: unknown ruleset")

// ParamError names one bad ruleset parameter.
type ParamError struct {
	Param string
	Msg   string
}

func (e *ParamError) Error() string { return "params." + e.Param + ": " + e.Msg }

// Resolve starts from the preset and applies params (a JSON object whose
// keys are Ruleset JSON names). Unknown presets are ErrUnknownRuleset;
// unknown or invalid parameters are *ParamError values, all reported at once.
func Resolve(preset PresetID, params json.RawMessage) (Ruleset, error) {
	r, ok := Preset(preset)
	if !ok {
		return Ruleset{}, fmt.Errorf("%w %q (known: %s)", ErrUnknownRuleset, preset, Join(Presets(), ", "))
	}
	return r.Amend(params)
}

// Amend applies parameter overrides to a resolved ruleset and validates the
// result. The preset id cannot be overridden.
func (r Ruleset) Amend(params json.RawMessage) (Ruleset, error) {
	out := r.clone()
	if p := bytes.TrimSpace(params); len(p) > 0 && string(p) != "null" {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(p, &fields); err != nil {
			return Ruleset{}, &ParamError{Param: "", Msg: "params must be a JSON object"}
		}
		var errs []error
		for _, k := range sortedKeys(fields) {
			if !slices.Contains(paramNames, k) {
				errs = append(errs, &ParamError{Param: k, Msg: "unknown parameter (known: " + strings.Join(paramNames, ", ") + ")"})
				continue
			}
			one, _ := json.Marshal(map[string]json.RawMessage{k: fields[k]})
			if err := json.Unmarshal(one, &out); err != nil {
				errs = append(errs, &ParamError{Param: k, Msg: "wrong type: " + typeMsg(err)})
			} else if legacy := legacyEmpty(out, k); legacy != "" {
				// Empty is how an old log reads; a tournament chooses.
				errs = append(errs, &ParamError{Param: k, Msg: legacy})
			}
		}
		if len(errs) > 0 {
			// Report the values that did parse but are invalid too.
			return Ruleset{}, errors.Join(append(errs, out.Validate())...)
		}
	}
	if err := out.Validate(); err != nil {
		return Ruleset{}, err
	}
	return out, nil
}

func (r Ruleset) clone() Ruleset {
	r.TableSizes = slices.Clone(r.TableSizes)
	r.Closings = slices.Clone(r.Closings)
	r.Objectives.Inline = slices.Clone(r.Objectives.Inline)
	return r
}

// Validate reports every invalid parameter at once.
func (r Ruleset) Validate() error {
	var errs []error
	bad := func(p, msg string) { errs = append(errs, &ParamError{Param: p, Msg: msg}) }
	oneOf := func(p, v string, set []string) {
		if !slices.Contains(set, v) {
			bad(p, fmt.Sprintf("%q is not one of %s", v, strings.Join(set, ", ")))
		}
	}
	if _, ok := Preset(r.Preset); !ok {
		bad("preset", fmt.Sprintf("unknown preset %q", r.Preset))
	}
	oneOf("scoring", string(r.Scoring), strs(Formulas()))
	oneOf("tie_chain", string(r.TieChain), strs(TieChains()))
	oneOf("tie_at_top", string(r.TieAtTop), strs(TieAtTops()))
	oneOf("tiebreak", string(r.Tiebreak), strs(Tiebreaks()))
	oneOf("knockout", string(r.Knockout), strs(Knockouts()))
	oneOf("draw", string(r.Draw), strs(DrawMethods()))
	oneOf("sanctions", string(r.Sanctions), strs(Regimes()))
	if r.Bonus < 0 || r.Bonus > 1000 {
		bad("bonus", "must be between 0 and 1000 table points")
	}
	if r.QualifyingRounds < 1 || r.QualifyingRounds > 20 {
		bad("qualifying_rounds", "must be between 1 and 20")
	}
	// rtu: "da 4 a 6 partite con possibilità di scartare 1 o 2 risultati";
	// "minimo 8 partite e possibilità di scartare almeno 2 risultati".
	switch most := mostDiscards(r.QualifyingRounds); {
	case r.Discards < 0:
		bad("discards", "must be 0 or more")
	case r.Discards > most && r.QualifyingRounds >= 8:
		bad("discards", fmt.Sprintf("must be fewer than qualifying_rounds (%d): rtu, \"minimo 8 partite e possibilità di scartare almeno 2 risultati\"", r.QualifyingRounds))
	case r.Discards > most:
		bad("discards", fmt.Sprintf("must be at most %d with %d qualifying rounds: rtu, \"da 4 a 6 partite con possibilità di scartare 1 o 2 risultati\"; 8 or more allow more (\"minimo 8 partite e possibilità di scartare almeno 2 risultati\")", most, r.QualifyingRounds))
	}
	if len(r.TableSizes) == 0 {
		bad("table_sizes", "must list at least one table size")
	}
	for i, s := range r.TableSizes {
		if s < 3 || s > 5 {
			bad(fmt.Sprintf("table_sizes[%d]", i), "a table seats 3, 4 or 5 players")
		} else if slices.Index(r.TableSizes, s) != i {
			bad(fmt.Sprintf("table_sizes[%d]", i), fmt.Sprintf("size %d listed twice", s))
		}
	}
	if r.SmallTableMax < 0 || r.SmallTableMax > 1000 {
		bad("small_table_max", "must be between 0 and 1000")
	}
	if r.LatePenaltyAfter < 0 || r.LateRefuseAfter < 0 || r.LatePenaltyAfter > 600 || r.LateRefuseAfter > 600 {
		bad("late_penalty_after", "lateness thresholds are minutes between 0 and 600")
	} else if r.LateRefuseAfter > 0 && r.LatePenaltyAfter > r.LateRefuseAfter {
		bad("late_penalty_after", "must not exceed late_refuse_after")
	}
	if r.WithdrawalMalus < 0 || r.WithdrawalMalus > 10000 {
		bad("withdrawal_malus", "must be between 0 and 10000 points")
	}
	if r.Edition < 0 || r.Edition > CurrentEdition {
		bad("edition", fmt.Sprintf("edition %d is not one this referto knows (1 to %d)", r.Edition, CurrentEdition))
	}
	if r.ArmyLimit < 0 || r.ArmyLimit > 10000 {
		bad("army_limit", "must be between 0 (no limit) and 10000 armies")
	}
	if r.Annulment != "" {
		oneOf("annulment", r.Annulment, []string{AnnulNextRound, AnnulNone})
	}
	if r.ContestWithin < 0 || r.ContestWithin > 60*24*366 {
		bad("contest_within", "minutes between 0 (no time window) and a year")
	}
	if r.ContestBy != "" && !slices.Contains(ContestBys(), r.ContestBy) {
		bad("contest_by", fmt.Sprintf("%q is not %s", r.ContestBy, JoinOr(ContestBys())))
	}
	// Empty only in a log recorded before these parameters existed.
	if r.Disqualified != "" {
		oneOf("disqualified", r.Disqualified, []string{DisqualifiedLast, DisqualifiedWithdrawn, DisqualifiedGame})
	}
	// The rur regime is rur-2015's sanctions, art. 29 among them: "Il
	// giocatore squalificato è equiparato al giocatore ritirato (vedi art.
	// 31)"; its offences decide whether a disqualification also expels.
	// Placing him last (or out of the game) would contradict the article
	// the regime applies: an organizer who wants that chooses another regime.
	if r.Sanctions == RegimeRUR && (r.Disqualified == DisqualifiedLast || r.Disqualified == DisqualifiedGame) {
		bad("disqualified", fmt.Sprintf("must be %s under the rur sanction regime (rur-2015 art. 29: \"Il giocatore squalificato è equiparato al giocatore ritirato\"), not %s: choose sanctions arbiter, 2003 or master for a disqualified player placed last",
			DisqualifiedWithdrawn, r.Disqualified))
	}
	if r.Rulings != "" {
		oneOf("rulings", r.Rulings, []string{RulingsArbiters, RulingsAppeals})
	}
	if r.SelfReport != "" {
		oneOf("self_report", r.SelfReport, []string{SelfReportArbiter, SelfReportConfirmed})
	}
	if len(r.Closings) == 0 {
		bad("closings", "must list at least one way a game may end: "+Join(Closings(), ", "))
	}
	for i, c := range r.Closings {
		if !slices.Contains(Closings(), c) || slices.Index(r.Closings, c) != i {
			bad(fmt.Sprintf("closings[%d]", i), fmt.Sprintf("%q is not %s, or is listed twice", c, JoinOr(Closings())))
		}
	}
	if (r.Knockout == KnockoutDirect || r.Knockout == KnockoutDirectSecondChance) && r.QualifyingRounds != 1 {
		bad("qualifying_rounds", "direct elimination plays one qualifying game (rtu)")
	}
	if r.Objectives.ID != "" && !ValidID(r.Objectives.ID) {
		bad("objectives", "a set id must match [a-z0-9][a-z0-9-]{0,63}")
	}
	return errors.Join(errs...)
}

// mostDiscards is the most worst game scores a tournament of the given
// qualifying rounds may discard (docs/rules.md#2-rulesets): up to 2, and
// fewer than the rounds ("da 4 a 6 partite con possibilità di scartare 1 o
// 2 risultati"; three games: "solo i due migliori risultati"); with 8 or
// more rounds, anything below the rounds ("minimo 8 partite e possibilità
// di scartare almeno 2 risultati").
func mostDiscards(rounds int) int {
	if rounds >= 8 {
		return rounds - 1
	}
	return min(2, rounds-1)
}

// paramNames are the parameters a tournament may set: every JSON name of
// Ruleset but the preset, which it is created from, and the edition, which
// the code sets.
var paramNames = func() []string {
	var names []string
	t := reflect.TypeFor[Ruleset]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "preset" && name != "edition" {
			names = append(names, name)
		}
	}
	return names
}()

// ParamNames lists the parameters a tournament may set, by their JSON
// names.
func ParamNames() []string { return slices.Clone(paramNames) }

// legacyEmpty refuses an empty value given for a parameter whose empty
// value only stands for "recorded before the parameter existed".
func legacyEmpty(r Ruleset, param string) string {
	switch {
	case param == "disqualified" && r.Disqualified == "":
		return fmt.Sprintf("must be %s, %s or %s", DisqualifiedLast, DisqualifiedWithdrawn, DisqualifiedGame)
	case param == "rulings" && r.Rulings == "":
		return fmt.Sprintf("must be %s or %s", RulingsArbiters, RulingsAppeals)
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func typeMsg(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("got %s, want %s", te.Value, te.Type)
	}
	return err.Error()
}
