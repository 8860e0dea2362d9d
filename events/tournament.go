package events

// Stored type names. Never derive them from Go type names.
const (
	TypeTournamentCreated   = "TournamentCreated"
	TypeRulesetAmended      = "RulesetAmended"
	TypeOfficialAppointed   = "OfficialAppointed"
	TypePlayerRegistered    = "PlayerRegistered"
	TypeRegistrationRefused = "RegistrationRefused"
	TypeRegistrationClosed  = "RegistrationClosed"
)

// TournamentCreated opens a tournament's log. It carries the resolved
// ruleset, which is what replay uses.
type TournamentCreated struct {
	Tournament string  `json:"tournament"`
	Name       string  `json:"name"`
	Ruleset    Ruleset `json:"ruleset"`
	// Season and Type are what the national ranking counts the tournament
	// in (docs/rules.md#15-the-national-ranking); a log recorded before
	// they existed has neither, and replays as it did.
	Season string         `json:"season,omitempty"`
	Type   TournamentType `json:"tournament_type,omitempty"`
}

// RulesetAmended replaces the ruleset before the first table draw.
type RulesetAmended struct {
	Ruleset Ruleset `json:"ruleset"`
	Reason  string  `json:"reason,omitempty"`
}

// OfficialAppointed records an arbiter, appeals member or auditor bound to
// the tournament. Only the SHA-256 of the bearer token is stored.
type OfficialAppointed struct {
	Official    string `json:"official"`
	Name        string `json:"name"`
	Role        string `json:"role"`
	TokenSHA256 string `json:"token_sha256"`
}

// PlayerRegistered adds a player to the entry list.
type PlayerRegistered struct {
	Player string `json:"player"`
	Name   string `json:"name"`
	Club   string `json:"club,omitempty"`
	Region string `json:"region,omitempty"`
	// Rank is the national historical rank supplied at registration
	// (campionato-2003 seeding); 0 when unranked.
	Rank int `json:"rank,omitempty"`
	// Minor marks a player under 18; Waiver is the organizer's waiver that
	// admits them (rur-2015 art. 1).
	Minor  bool   `json:"minor,omitempty"`
	Waiver string `json:"waiver,omitempty"`
	// NationalID is the player's id in the national ranking, when the
	// venue knows it; a season's registry may link it later
	// (NationalIDLinked).
	NationalID string `json:"national_id,omitempty"`
}

// RegistrationRefused records that the organizer refused an entry, with the
// reason rur-2015 art. 11 requires. A registered player leaves the entry list.
type RegistrationRefused struct {
	Player string `json:"player"`
	Name   string `json:"name,omitempty"`
	Reason string `json:"reason"`
}

// RegistrationClosed validates the entry list (convalida iscritti) before game 1.
type RegistrationClosed struct{}

func (TournamentCreated) EventType() string   { return TypeTournamentCreated }
func (RulesetAmended) EventType() string      { return TypeRulesetAmended }
func (OfficialAppointed) EventType() string   { return TypeOfficialAppointed }
func (PlayerRegistered) EventType() string    { return TypePlayerRegistered }
func (RegistrationRefused) EventType() string { return TypeRegistrationRefused }
func (RegistrationClosed) EventType() string  { return TypeRegistrationClosed }

func (TournamentCreated) EventVersion() int   { return 1 }
func (RulesetAmended) EventVersion() int      { return 1 }
func (OfficialAppointed) EventVersion() int   { return 1 }
func (PlayerRegistered) EventVersion() int    { return 1 }
func (RegistrationRefused) EventVersion() int { return 1 }
func (RegistrationClosed) EventVersion() int  { return 1 }
