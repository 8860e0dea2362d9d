package events

// Stored type names of the knockout, sanction, withdrawal and classification events.
const (
	TypeRenounced               = "Renounced"
	TypeRepechaged              = "Repechaged"
	TypePlayerWithdrew          = "PlayerWithdrew"
	TypeSanctionRevoked         = "SanctionRevoked"
	TypeGameAnnulled            = "GameAnnulled"
	TypeClassificationPublished = "ClassificationPublished"
	TypeTournamentClosed        = "TournamentClosed"
)

// Renounced records that a player declines a knockout phase (and all later
// ones). Effect says what the ledger did about it: "cut_recomputed" (the
// phase is drawn from the standings and has not started), "repechage" (a
// Repechaged event follows in the same commit), "repechage_at_draw" (the
// results the repechage needs are not in yet; the phase's draw performs it),
// or "recorded" (the player has not qualified; nothing to replace).
type Renounced struct {
	Player string `json:"player"`
	Phase  Phase  `json:"phase"`
	Effect string `json:"effect"`
	Reason string `json:"reason,omitempty"`
}

// RepechageCandidate is one player a repechage considered, in order.
type RepechageCandidate struct {
	Player string `json:"player"`
	// From says where the candidate comes from, e.g. "2nd at quarterfinal table 3".
	From string `json:"from"`
	// Skipped is why the candidate was passed over; empty for the one chosen.
	Skipped string `json:"skipped,omitempty"`
}

// Repechaged records who replaces a qualifier who renounced, withdrew or was
// expelled (rur-2015 art. 8), with every candidate considered in order.
// Player is empty when no candidate was available. Table is set when the
// phase was already drawn: the substitute takes the seat.
type Repechaged struct {
	Phase      Phase                `json:"phase"`
	Replaces   string               `json:"replaces"`
	Player     string               `json:"player"`
	Round      int                  `json:"round,omitempty"`
	Table      int                  `json:"table,omitempty"`
	Rule       string               `json:"rule"`
	Candidates []RepechageCandidate `json:"candidates"`
}

// PlayerWithdrew records a withdrawal (docs/rules.md#9-withdrawal-renunciation-repechage). Scope "game": the
// player leaves the game in progress at Round/Table (the table report then
// records them as withdrawn). Scope "tournament": the player leaves the
// tournament; scores already earned stay. Reason is force_majeure,
// voluntary or ruling_refused (the latter is an expulsion, rur-2015 art. 31).
type PlayerWithdrew struct {
	Player string `json:"player"`
	Scope  string `json:"scope"`
	Reason string `json:"reason"`
	Round  int    `json:"round,omitempty"`
	Table  int    `json:"table,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// SanctionRevoked withdraws a sanction by ruling; its effects on placement,
// standings and the player's status are undone.
type SanctionRevoked struct {
	Sanction string `json:"sanction"`
	Ruling   string `json:"ruling"`
}

// GameAnnulled declares a table's game void (campionato-2003 "interruzioni
// partita"): the culprit, if any, is out of the game and scores 0; the other
// players score what they score in the next round, or in the previous round
// when it was the last.
type GameAnnulled struct {
	Round   int    `json:"round"`
	Table   int    `json:"table"`
	Culprit string `json:"culprit,omitempty"`
	Reason  string `json:"reason"`
}

// ClassificationRow is one line of a published classification.
type ClassificationRow struct {
	Rank   int    `json:"rank"`
	Player string `json:"player"`
	Name   string `json:"name,omitempty"`
	Phase  Phase  `json:"phase"`
	// Total is in hundredths of a tournament point.
	Total  int64        `json:"total"`
	Status PlayerStatus `json:"status"`
}

// ClassificationPublished publishes the classification. Checkpoint is the
// signed checkpoint of the log it was derived from (empty until signing is
// configured).
type ClassificationPublished struct {
	Final      bool                `json:"final"`
	Rows       []ClassificationRow `json:"rows"`
	Expelled   []string            `json:"expelled,omitempty"`
	Checkpoint string              `json:"checkpoint,omitempty"`
}

// TournamentClosed ends the tournament: no further commands but contestation rulings.
type TournamentClosed struct {
	Reason string `json:"reason,omitempty"`
}

func (Renounced) EventType() string               { return TypeRenounced }
func (Repechaged) EventType() string              { return TypeRepechaged }
func (PlayerWithdrew) EventType() string          { return TypePlayerWithdrew }
func (SanctionRevoked) EventType() string         { return TypeSanctionRevoked }
func (GameAnnulled) EventType() string            { return TypeGameAnnulled }
func (ClassificationPublished) EventType() string { return TypeClassificationPublished }
func (TournamentClosed) EventType() string        { return TypeTournamentClosed }

func (Renounced) EventVersion() int               { return 1 }
func (Repechaged) EventVersion() int              { return 1 }
func (PlayerWithdrew) EventVersion() int          { return 1 }
func (SanctionRevoked) EventVersion() int         { return 1 }
func (GameAnnulled) EventVersion() int            { return 1 }
func (ClassificationPublished) EventVersion() int { return 1 }
func (TournamentClosed) EventVersion() int        { return 1 }
