package api

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"github.com/referto/referto/api/web"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// Players' personal links (docs/operations.md#players-phones): a token per
// player and tournament, bound to the role player, which reads what anyone
// reads and proposes, confirms and disputes the report of the player's own
// table. The log keeps its SHA-256 and the nonce it was derived from with
// a secret of the server's own key (checkpoint.Keys.Secret), so that the
// server can print the same link on every slip, and a new link, or a
// revocation, ends the old one.

// routePlayerTokens is the route personal links are issued through, bound
// into the requests' fingerprints as the other routes are (ledger.RouteCommands).
const routePlayerTokens = "POST /v1/tournaments/{t}/player-tokens"

// playerTokenPurpose names the secret personal links are derived with.
const playerTokenPurpose = "player-token/v1"

// JoinPath is the web UI's page a personal link opens: the token goes in
// the query (?k=), which no log records.
const JoinPath = "/ui/join"

// derivePlayerToken is the token of player p of tournament t for nonce:
// "<t>.<32 hex digits>", so that a request names the tournament whose
// state knows the token's hash.
func derivePlayerToken(secret []byte, t, p, nonce string) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(t + "\x00" + p + "\x00" + nonce))
	return t + "." + hex.EncodeToString(m.Sum(nil)[:16])
}

// playerTokenTournament is the tournament a token names, when it has the
// shape of a personal link's.
func playerTokenTournament(token string) (string, bool) {
	t, secret, ok := strings.Cut(token, ".")
	return t, ok && events.ValidID(t) && len(secret) == 32
}

// playerByToken finds the player a personal link of tournament t stands for.
func (s *Server) playerByToken(t, hash string) (string, bool) {
	var player string
	var found bool
	s.opts.Runner.Read(t, func(st *projections.Tournament) { player, found = st.PlayerByToken(hash) })
	return player, found
}

// playerLink is one personal link as the API shows it to the arbiters.
type playerLink struct {
	Player string `json:"player"`
	Token  string `json:"token"`
	Link   string `json:"link"`
	Issued uint64 `json:"issued,omitempty"`
}

func linkOf(player, token string, issued uint64) playerLink {
	return playerLink{Player: player, Token: token, Link: JoinPath + "?k=" + token, Issued: issued}
}

// postPlayerTokens gives players their personal links (issuePlayerTokens).
// The tokens are shown in the answer, and again by getPlayerTokens to the
// arbiters who print them.
func (s *Server) postPlayerTokens(w http.ResponseWriter, r *http.Request) error {
	t := mux.Vars(r)["t"]
	o, err := s.issuePlayerTokens(r.Context(), s.callOf(w, r, t))
	if err != nil {
		return err
	}
	secret, err := s.opts.Keys.Secret(playerTokenPurpose)
	if err != nil {
		return err
	}
	// The links are the events' own, derived again: a retry under the same
	// key shows the links its original issued.
	links := []playerLink{}
	for _, env := range o.Events {
		if e, ok := mustDecode(env).(events.PlayerTokenIssued); ok {
			links = append(links, linkOf(e.Player, derivePlayerToken(secret, t, e.Player, e.Nonce), env.Seq))
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	if o.Replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	writeJSON(w, http.StatusCreated, map[string]any{"seq": o.Seq, "events": o.Events, "tokens": links})
	return nil
}

// getPlayerTokens shows the arbiters every live personal link, derived
// again to be printed on the slips. A link this server did not derive (one
// issued by a server with another key) cannot be shown: it is listed in
// "elsewhere", and a new one can be issued.
func (s *Server) getPlayerTokens(w http.ResponseWriter, r *http.Request) error {
	t := mux.Vars(r)["t"]
	if _, err := s.authorize(r, t, events.RoleArbiter); err != nil {
		return err
	}
	links, elsewhere, err := s.playerLinks(t)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]any{"tournament": t, "tokens": links, "elsewhere": elsewhere})
	return nil
}

// playerLinks are tournament t's live personal links, derived again from
// the checkpoint key, and the players whose live link another key made
// (elsewhere): what the arbiters print.
func (s *Server) playerLinks(t string) (links []web.PlayerLink, elsewhere []string, err error) {
	secret, err := s.opts.Keys.Secret(playerTokenPurpose)
	if err != nil {
		return nil, nil, err
	}
	links, elsewhere = []web.PlayerLink{}, []string{}
	if !s.reader.Read(t, func(st *projections.Tournament) {
		for _, id := range st.Order {
			tok := st.PlayerTokens[id]
			if !tok.Live() {
				continue
			}
			token := derivePlayerToken(secret, t, id, tok.Nonce)
			if TokenHash(token) != tok.TokenSHA256 {
				elsewhere = append(elsewhere, id)
				continue
			}
			links = append(links, web.PlayerLink(linkOf(id, token, tok.Issued)))
		}
	}) {
		return nil, nil, fmt.Errorf("%w: tournament %s", errNotFound, t)
	}
	return links, elsewhere, nil
}
