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

// Admitted reports whether the player was admitted to the tournament:
// every status but a refused registration.
func (s PlayerStatus) Admitted() bool { return s != StatusRefused }

// SeatStatus is how a player's game ended, as a line of a table report
// says it (docs/rules.md#3-table-report-referto): SeatReport.Status.
type SeatStatus string

// The ways a player's game may end.
const (
	SeatFinished     SeatStatus = "finished"
	SeatEliminated   SeatStatus = "eliminated"
	SeatWithdrawn    SeatStatus = "withdrawn"
	SeatDisqualified SeatStatus = "disqualified"
)

// SeatStatuses lists every way a player's game may end.
func SeatStatuses() []SeatStatus {
	return []SeatStatus{SeatFinished, SeatEliminated, SeatWithdrawn, SeatDisqualified}
}

// Out reports whether a player of this status is out of the game:
// eliminated, withdrawn or disqualified.
func (s SeatStatus) Out() bool {
	return s == SeatEliminated || s == SeatWithdrawn || s == SeatDisqualified
}

// OfficialRoles lists the roles an official may be appointed to.
func OfficialRoles() []string { return []string{RoleArbiter, RoleAppeals, RoleAuditor} }

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

// Regime is a sanction regime (docs/rules.md#10-sanctions): Ruleset.Sanctions.
type Regime string

// The sanction regimes.
const (
	// RegimeRUR is rur-2015's articles, whose offences (Offences) fix
	// what follows.
	RegimeRUR Regime = "rur"
	// Regime2003 bounds the points a penalty takes (campionato-2003).
	Regime2003 Regime = "2003"
	// RegimeMaster is the master ladder.
	RegimeMaster Regime = "master"
	// RegimeArbiter leaves every sanction to the arbiter's judgement
	// (cirki-2001).
	RegimeArbiter Regime = "arbiter"
)

// Regimes lists every sanction regime.
func Regimes() []Regime { return []Regime{RegimeRUR, Regime2003, RegimeMaster, RegimeArbiter} }

// Offences lists the offences a sanction may name under the regime: only
// the rur regime's articles fix their own consequences.
func (r Regime) Offences() []string {
	if r == RegimeRUR {
		return Offences()
	}
	return nil
}

// DrawMethod is how the tables of the qualifying rounds are formed
// (docs/rules.md#8-table-formation): Ruleset.Draw.
type DrawMethod string

// The draw methods.
const (
	// DrawRUR is rur-2015 art. 8's: game 1 keeps clubs and regions apart,
	// game 2 seats a 1st, 2nd, 3rd and 4th of game 1 at each table.
	DrawRUR DrawMethod = "rur"
	// DrawSeeded2003 is campionato-2003's: round 1 by historical rank,
	// later rounds by previous score.
	DrawSeeded2003 DrawMethod = "seeded-2003"
	// DrawRandom draws at random, avoiding same club and region where it
	// can.
	DrawRandom DrawMethod = "random"
)

// DrawMethods lists every draw method.
func DrawMethods() []DrawMethod { return []DrawMethod{DrawRUR, DrawSeeded2003, DrawRandom} }

// TieChain breaks ties in table points at a table
// (docs/rules.md#4-placement-at-a-table): Ruleset.TieChain.
type TieChain string

// The tie chains.
const (
	// TieChainRUR is rur-2015's: off-objective points, then reverse turn
	// order (also master's).
	TieChainRUR TieChain = "rur"
	// TieChain2003 is campionato-2003's: objective territories,
	// territories, armies + 3 × cards.
	TieChain2003 TieChain = "2003"
	// TieChainRTU is the rtu list, ending with a recorded die roll.
	TieChainRTU TieChain = "rtu"
)

// TieChains lists every tie chain.
func TieChains() []TieChain { return []TieChain{TieChainRUR, TieChain2003, TieChainRTU} }

// TieAtTop is how a tie for first place at a table is settled
// (docs/rules.md#4-placement-at-a-table): Ruleset.TieAtTop.
type TieAtTop string

// The ways a tie at the top is settled.
const (
	// TieAtTopChain sends it through the tie chain (also "").
	TieAtTopChain TieAtTop = "chain"
	// TieAtTopSplitBonus: two tied first share the bonus, three or more
	// get none.
	TieAtTopSplitBonus TieAtTop = "split_bonus"
)

// TieAtTops lists every way a tie at the top is settled.
func TieAtTops() []TieAtTop { return []TieAtTop{TieAtTopChain, TieAtTopSplitBonus} }

// Tiebreak orders players tied in the standings (docs/rules.md#6-standings):
// Ruleset.Tiebreak.
type Tiebreak string

// The standings tie-breaks.
const (
	// TiebreakRUR is rur-2015 art. 1's (also the default).
	TiebreakRUR Tiebreak = "rur"
	// TiebreakCirki is cirki-2001 §14's.
	TiebreakCirki Tiebreak = "cirki"
)

// Tiebreaks lists every standings tie-break.
func Tiebreaks() []Tiebreak { return []Tiebreak{TiebreakRUR, TiebreakCirki} }

// ContestBy is who may contest an event (docs/rules.md#13-contestation):
// Ruleset.ContestBy, where "" reads as ContestByAnyone.
type ContestBy string

// Who may contest.
const (
	ContestByAnyone ContestBy = "anyone"
	// ContestByInvolved hears only a player the contested event concerns
	// (the EG online appeals chamber's rule).
	ContestByInvolved ContestBy = "involved"
)

// ContestBys lists who may contest, each way a ruleset may say it.
func ContestBys() []ContestBy { return []ContestBy{ContestByAnyone, ContestByInvolved} }

// PresetID names a ruleset preset (docs/rules.md#2-rulesets): Ruleset.Preset.
type PresetID string

// The presets, each defined once in the preset table (Preset).
const (
	PresetRUR2015        PresetID = "rur-2015"
	PresetCampionato2003 PresetID = "campionato-2003"
	PresetMaster         PresetID = "master"
	PresetCirki2001      PresetID = "cirki-2001"
	PresetRTU            PresetID = "rtu"
)

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

// Risiko reports whether a game that ended this way was won by completing
// the objective (RisiKo!): a game closes by objective exactly when its
// winner made risiko.
func (c Closing) Risiko() bool { return c == ClosingObjective }

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
