package events

// Stored type names of contestations and their corrections.
const (
	TypeContestationFiled = "ContestationFiled"
	TypeContestationRuled = "ContestationRuled"
	TypeResultAmended     = "ResultAmended"
)

// ContestationFiled records a contestation (docs/rules.md#13-contestation) and the ledger's
// verdict on its admissibility, decided from the log alone: the contested
// event is still open, or the claimed persisting effect is present. Rule
// names the window or effect that decided it.
type ContestationFiled struct {
	Contestation string `json:"contestation"`
	Against      uint64 `json:"against"`
	Claim        string `json:"claim"`
	// Effect is the persisting effect the claim names, if any.
	Effect string `json:"effect,omitempty"`
	// By is the player raising it, when the ruleset limits who may contest.
	By         string `json:"by,omitempty"`
	Admissible bool   `json:"admissible"`
	Rule       string `json:"rule"`
}

// ContestationRuled is the appeals committee's ruling; the corrections it
// orders follow in the same commit.
type ContestationRuled struct {
	Contestation string `json:"contestation"`
	Admissible   bool   `json:"admissible"`
	Upheld       bool   `json:"upheld"`
	Ruling       string `json:"ruling"`
	Rule         string `json:"rule,omitempty"`
	Corrections  int    `json:"corrections"`
}

// ResultAmended replaces a table report by ruling; placement and standings
// follow. The original report stays in the log.
type ResultAmended struct {
	ResultRecorded
	Contestation string `json:"contestation,omitempty"`
}

func (ContestationFiled) EventType() string { return TypeContestationFiled }
func (ContestationRuled) EventType() string { return TypeContestationRuled }
func (ResultAmended) EventType() string     { return TypeResultAmended }

func (ContestationFiled) EventVersion() int { return 1 }
func (ContestationRuled) EventVersion() int { return 1 }
func (ResultAmended) EventVersion() int     { return 1 }
