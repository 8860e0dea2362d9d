package events

// Stored type names of the players' own events: their personal links, and
// the table reports they propose, confirm and dispute from their phones
// (docs/rules.md#14-tables-report-themselves).
const (
	TypePlayerTokenIssued  = "PlayerTokenIssued"
	TypePlayerTokenRevoked = "PlayerTokenRevoked"
	TypeResultProposed     = "ResultProposed"
	TypeProposalConfirmed  = "ProposalConfirmed"
	TypeProposalDisputed   = "ProposalDisputed"
)

// PlayerTokenIssued gives a registered player a personal link for this
// tournament. Only the SHA-256 of the token is stored, as for officials;
// Nonce is what the server derived the token from with its own key, so
// that it can print the same link on every slip (and nobody without that
// key can). A new token replaces the player's previous one.
type PlayerTokenIssued struct {
	Player      string `json:"player"`
	TokenSHA256 string `json:"token_sha256"`
	Nonce       string `json:"nonce"`
}

// PlayerTokenRevoked ends a player's personal link.
type PlayerTokenRevoked struct {
	Player string `json:"player"`
	Reason string `json:"reason,omitempty"`
}

// ReportProblem is one reason a proposed report cannot be recorded as it
// stands: the field, the rule and what is wrong.
type ReportProblem struct {
	Field  string `json:"field"`
	Rule   string `json:"rule,omitempty"`
	Detail string `json:"detail"`
}

// ResultProposed is a table report proposed by a player seated at the
// table: the report as RecordResult would record it, checked the same way.
// Problems lists the board bounds it breaks (docs/rules.md#31-pinned-board-bounds): such
// a proposal is kept, so that the arbiter sees the table flagged, and can
// never be recorded. A later proposal for the same table supersedes it.
type ResultProposed struct {
	Proposal string          `json:"proposal"`
	Player   string          `json:"player"`
	Report   ResultRecorded  `json:"report"`
	Problems []ReportProblem `json:"problems,omitempty"`
}

// ProposalConfirmed records that another player of the table confirms a
// proposed report.
type ProposalConfirmed struct {
	Proposal string `json:"proposal"`
	Player   string `json:"player"`
}

// ProposalDisputed records that a player of the table disputes a proposed
// report, and why: the table is flagged for the arbiter.
type ProposalDisputed struct {
	Proposal string `json:"proposal"`
	Player   string `json:"player"`
	Reason   string `json:"reason"`
}

func (PlayerTokenIssued) EventType() string  { return TypePlayerTokenIssued }
func (PlayerTokenRevoked) EventType() string { return TypePlayerTokenRevoked }
func (ResultProposed) EventType() string     { return TypeResultProposed }
func (ProposalConfirmed) EventType() string  { return TypeProposalConfirmed }
func (ProposalDisputed) EventType() string   { return TypeProposalDisputed }

func (PlayerTokenIssued) EventVersion() int  { return 1 }
func (PlayerTokenRevoked) EventVersion() int { return 1 }
func (ResultProposed) EventVersion() int     { return 1 }
func (ProposalConfirmed) EventVersion() int  { return 1 }
func (ProposalDisputed) EventVersion() int   { return 1 }
