package api

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/referto/referto/events"
)

// principal is who a request acts as.
type principal struct {
	Role       string
	Tournament string // "" for the administrator
	Official   string
}

func (p principal) actor() events.Actor {
	return events.Actor{ID: p.Official, Role: p.Role}
}

// TokenHash is the hex SHA-256 of a bearer token, as stored.
func TokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// authenticate resolves the bearer token. Tokens are looked up by their
// hash, and the administrator's hash is compared in constant time, so
// neither lookup leaks the token through timing.
func (s *Server) authenticate(r *http.Request) (principal, error) {
	h := r.Header.Get("Authorization")
	token, ok := strings.CutPrefix(h, "Bearer ")
	if !ok || token == "" {
		return principal{}, fmt.Errorf("%w: send Authorization: Bearer <token>", errUnauthorized)
	}
	hash := TokenHash(token)
	if subtle.ConstantTimeCompare([]byte(hash), []byte(s.opts.AdminTokenSHA256)) == 1 {
		return principal{Role: events.RoleAdmin, Official: "admin"}, nil
	}
	p, found, err := s.opts.Store.Token(hash)
	if err != nil {
		return principal{}, err
	}
	if !found {
		return principal{}, fmt.Errorf("%w: unknown token", errUnauthorized)
	}
	return principal{Role: p.Role, Tournament: p.Tournament, Official: p.Official}, nil
}

// authorize authenticates and checks that the principal acts for
// tournament t (the administrator acts for all) in one of roles.
func (s *Server) authorize(r *http.Request, t string, roles ...string) (principal, error) {
	p, err := s.authenticate(r)
	if err != nil {
		return principal{}, err
	}
	if p.Role == events.RoleAdmin {
		return p, nil
	}
	if t != "" && p.Tournament != t {
		return principal{}, fmt.Errorf("%w: your token is for tournament %s", errForbidden, p.Tournament)
	}
	if len(roles) > 0 && !slices.Contains(roles, p.Role) {
		return principal{}, fmt.Errorf("%w: role %s may not do this", errForbidden, p.Role)
	}
	return p, nil
}
