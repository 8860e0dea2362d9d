package events

import "strings"

// The ledger's typed vocabularies: every value a rule, an event, a view or a
// page may name, spelled once here. Each type is a string, so that the
// stored JSON is the word itself.

// Phase is the phase a round is played in, or that a knockout place is for
// (docs/rules.md#7-formats-and-the-rur-knockout). A tournament not yet
// drawn stands in PhaseRegistration.
type Phase string

// The phases, in the order they are played.
const (
	PhaseRegistration Phase = "registration"
	PhaseQualifying   Phase = "qualifying"
	PhaseSecondChance Phase = "second_chance"
	PhaseQuarterfinal Phase = "quarterfinal"
	PhaseSemifinal    Phase = "semifinal"
	PhaseFinal        Phase = "final"
	// PhaseFinalina is the table of the 5th to 8th beside a final (rtu).
	PhaseFinalina Phase = "finalina"
)

// Phases lists every phase, in the order they are played.
func Phases() []Phase {
	return []Phase{PhaseRegistration, PhaseQualifying, PhaseSecondChance, PhaseQuarterfinal, PhaseSemifinal,
		PhaseFinal, PhaseFinalina}
}

// PlayerStatus is where a registered player stands in the tournament.
type PlayerStatus string

// The statuses of a player.
const (
	StatusActive    PlayerStatus = "active"
	StatusReserve   PlayerStatus = "reserve"
	StatusWithdrawn PlayerStatus = "withdrawn"
	StatusExpelled  PlayerStatus = "expelled"
	StatusRefused   PlayerStatus = "refused"
)

// PlayerStatuses lists every status of a player.
func PlayerStatuses() []PlayerStatus {
	return []PlayerStatus{StatusActive, StatusReserve, StatusWithdrawn, StatusExpelled, StatusRefused}
}

// MayPlay reports whether a player of this status may still be seated:
// active, or a reserve (not withdrawn, expelled or refused).
func (s PlayerStatus) MayPlay() bool { return s == StatusActive || s == StatusReserve }

// Why a player left a game or the tournament
// (docs/rules.md#9-withdrawal-renunciation-repechage): PlayerWithdrew.Reason,
// and a withdrawn line's SeatReport.Withdrawal. Refusing a ruling expels
// (rur-2015 art. 31); under the master regime so does leaving a game for
// anything but force majeure ("senza motivo").
const (
	WithdrawalForceMajeure  = "force_majeure"
	WithdrawalVoluntary     = "voluntary"
	WithdrawalRulingRefused = "ruling_refused"
)

// WithdrawalReasons lists why a player may leave a game or the tournament.
func WithdrawalReasons() []string {
	return []string{WithdrawalForceMajeure, WithdrawalVoluntary, WithdrawalRulingRefused}
}

// SanctionKind is what a sanction does (docs/rules.md#10-sanctions).
type SanctionKind string

// The sanction kinds, lightest first.
const (
	SanctionReminder             SanctionKind = "reminder"
	SanctionWarning              SanctionKind = "warning"
	SanctionTurnLoss             SanctionKind = "turn_loss"
	SanctionCardLoss             SanctionKind = "card_loss"
	SanctionArmyLoss             SanctionKind = "army_loss"
	SanctionArmyCap              SanctionKind = "army_cap"
	SanctionTablePoints          SanctionKind = "table_points"
	SanctionClassificationPoints SanctionKind = "classification_points"
	SanctionDisqualification     SanctionKind = "disqualification"
	SanctionExpulsion            SanctionKind = "expulsion"
)

// SanctionKinds lists every sanction kind, lightest first.
func SanctionKinds() []SanctionKind {
	return []SanctionKind{SanctionReminder, SanctionWarning, SanctionTurnLoss, SanctionCardLoss, SanctionArmyLoss,
		SanctionArmyCap, SanctionTablePoints, SanctionClassificationPoints, SanctionDisqualification, SanctionExpulsion}
}

// Points reports whether the sanction takes points and so carries an
// amount: table points or tournament (classification) points.
func (k SanctionKind) Points() bool {
	return k == SanctionTablePoints || k == SanctionClassificationPoints
}

// Formula is a scoring formula, converting table points into tournament
// points (docs/rules.md#5-scoring-formulas).
type Formula string

// The scoring formulas.
const (
	FormulaTPBonus   Formula = "tp_bonus"
	FormulaConv150   Formula = "conv150"
	FormulaConv200   Formula = "conv200"
	FormulaConv2003  Formula = "conv2003"
	FormulaStandard  Formula = "standard"
	FormulaFaentino  Formula = "faentino"
	FormulaSpartaco  Formula = "spartaco"
	FormulaMaialino  Formula = "maialino"
	FormulaVeronese  Formula = "veronese"
	FormulaTriestino Formula = "triestino"
	FormulaWins      Formula = "wins"
	FormulaMedals    Formula = "medals"
	FormulaCirki     Formula = "cirki"
)

// Formulas lists every scoring formula.
func Formulas() []Formula {
	return []Formula{FormulaTPBonus, FormulaConv150, FormulaConv200, FormulaConv2003, FormulaStandard, FormulaFaentino,
		FormulaSpartaco, FormulaMaialino, FormulaVeronese, FormulaTriestino, FormulaWins, FormulaMedals, FormulaCirki}
}

// Closing is a way a game may end (docs/rules.md#3-table-report-referto).
type Closing string

// The ways a game may end.
const (
	ClosingObjective Closing = "objective"
	ClosingRoll      Closing = "closing_roll"
	ClosingTime      Closing = "time"
)

// Closings lists every way a game may end.
func Closings() []Closing { return []Closing{ClosingObjective, ClosingRoll, ClosingTime} }

// Knockout is a format of the phases after the qualifying rounds
// (docs/rules.md#7-formats-and-the-rur-knockout); each is planned by its
// own file of commands.
type Knockout string

// The knockout formats.
const (
	KnockoutNone               Knockout = "none"
	KnockoutRUR                Knockout = "rur"
	KnockoutSemis16            Knockout = "semis16"
	KnockoutFinal4             Knockout = "final4"
	KnockoutFinal4Plus8        Knockout = "final4+8"
	KnockoutFinalLT32One       Knockout = "final-lt32-1"
	KnockoutFinalLT32Two       Knockout = "final-lt32-2"
	KnockoutDirect             Knockout = "direct"
	KnockoutDirectSecondChance Knockout = "direct-second-chance"
)

// Knockouts lists every knockout format.
func Knockouts() []Knockout {
	return []Knockout{KnockoutNone, KnockoutRUR, KnockoutSemis16, KnockoutFinal4, KnockoutFinal4Plus8,
		KnockoutFinalLT32One, KnockoutFinalLT32Two, KnockoutDirect, KnockoutDirectSecondChance}
}

// Join renders words of a vocabulary separated by sep, as messages list them.
func Join[S ~string](words []S, sep string) string { return strings.Join(strs(words), sep) }

// JoinOr renders words of a vocabulary as a message offers them: "a, b or c".
func JoinOr[S ~string](words []S) string {
	if len(words) < 2 {
		return Join(words, "")
	}
	return Join(words[:len(words)-1], ", ") + " or " + string(words[len(words)-1])
}

func strs[S ~string](words []S) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = string(w)
	}
	return out
}
