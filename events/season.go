package events

// TournamentType is the kind of tournament the national ranking classes it
// as (docs/rules.md#15-the-national-ranking). A tournament recorded before
// the field existed has none, and counts for no ranking.
type TournamentType string

// The tournament types of the national ranking.
const (
	TypeRadunoNazionale TournamentType = "RADUNO_NAZIONALE"
	TypeMaster          TournamentType = "MASTER"
	TypeOpen            TournamentType = "OPEN"
	TypeInterclub       TournamentType = "INTERCLUB"
	TypeCampionato      TournamentType = "CAMPIONATO"
)

// TournamentTypes lists every tournament type, heaviest class first.
func TournamentTypes() []TournamentType {
	return []TournamentType{TypeRadunoNazionale, TypeMaster, TypeOpen, TypeInterclub, TypeCampionato}
}

// Valid reports whether k is one of TournamentTypes.
func (k TournamentType) Valid() bool {
	for _, v := range TournamentTypes() {
		if k == v {
			return true
		}
	}
	return false
}

// RegistryID names the season registry's log, which a national hub keeps
// beside the venues' tournaments: it is the tournament field of every
// envelope of that log (whose ids are registry/1, registry/2, …), as a
// tournament's id is of its own. The registry's log is a stream of its
// own, so a tournament of the same id is never confused with it.
const RegistryID = "registry"

// Stored type names of the season registry's events: the events of the log
// that holds a season's registry (a hub's), not of a tournament's.
const (
	TypeNationalIDLinked         = "NationalIDLinked"
	TypePlayersMerged            = "PlayersMerged"
	TypeDisqualificationRecorded = "DisqualificationRecorded"
)

// NationalIDLinked links a player of a tournament, registered without a
// national id (or with a wrong one), to a national id.
type NationalIDLinked struct {
	Tournament string `json:"tournament"`
	Player     string `json:"player"`
	NationalID string `json:"national_id"`
	Reason     string `json:"reason,omitempty"`
}

// PlayersMerged says two national ids are one person: From's results are
// Into's from then on.
type PlayersMerged struct {
	From   string `json:"from"`
	Into   string `json:"into"`
	Reason string `json:"reason"`
}

// DisqualificationRecorded puts a national id on the blacklist for a
// period: results of tournaments held From to To (dates, YYYY-MM-DD, both
// included) give no ranking score.
type DisqualificationRecorded struct {
	NationalID string `json:"national_id"`
	From       string `json:"from"`
	To         string `json:"to"`
	Reason     string `json:"reason"`
}

func (NationalIDLinked) EventType() string         { return TypeNationalIDLinked }
func (PlayersMerged) EventType() string            { return TypePlayersMerged }
func (DisqualificationRecorded) EventType() string { return TypeDisqualificationRecorded }

func (NationalIDLinked) EventVersion() int         { return 1 }
func (PlayersMerged) EventVersion() int            { return 1 }
func (DisqualificationRecorded) EventVersion() int { return 1 }
