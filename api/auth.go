package api

import (
	"container/list"
	"context"
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/referto/referto/api/node"
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

// TokenHash is the hex SHA-256 of a bearer token, as stored
// (node.TokenHash).
func TokenHash(token string) string { return node.TokenHash(token) }

// credentials are what a request proves who it acts as with: the bearer
// token it carries ("" when none) and the address of the client sending it,
// which the request's failed authentications count against (clientAddr).
// The web pages pass the browser's own address and the official's token.
type credentials struct {
	Token      string
	RemoteAddr string
}

// credentialsOf reads the credentials of an HTTP request: its
// Authorization header and its remote address.
func credentialsOf(r *http.Request) credentials {
	token, ok := bearerToken(r.Header.Get("Authorization"))
	if !ok {
		token = ""
	}
	return credentials{Token: token, RemoteAddr: r.RemoteAddr}
}

// authenticate resolves the bearer token. Tokens are looked up by their
// hash, and the administrator's hash is compared in constant time, so
// neither lookup leaks the token through timing. A client address that has
// failed too often recently is refused before its token is even looked at
// (see authLimiter).
func (s *Server) authenticate(r *http.Request) (principal, error) {
	return s.authenticateAs(r.Context(), credentialsOf(r))
}

// authenticateAs is authenticate for credentials c, read by either the
// JSON handlers or the web pages.
func (s *Server) authenticateAs(ctx context.Context, c credentials) (principal, error) {
	token := c.Token
	if token == "" {
		return principal{}, fmt.Errorf("%w: send Authorization: Bearer <token>", errUnauthorized)
	}
	addr, limited := clientAddr(c.RemoteAddr)
	now := s.opts.Clock()
	if limited {
		if wait := s.authFailures.refusal(addr, now); wait > 0 {
			return principal{}, &rateLimitedError{wait: wait}
		}
	}
	hash := TokenHash(token)
	if subtle.ConstantTimeCompare([]byte(hash), []byte(s.opts.AdminTokenSHA256)) == 1 {
		p := principal{Role: events.RoleAdmin, Official: "admin"}
		recordActor(ctx, p)
		return p, nil
	}
	// An official's token is found through the projections' index; a
	// player's personal link names its tournament, whose state knows it.
	lookup := func() (principal, bool, error) {
		if t, ok := playerTokenTournament(token); ok {
			// A link is found live only in a state that holds every
			// command this node answered for its tournament: a
			// revocation answered 201 ends it from that answer on,
			// even before the projections applied it.
			if err := s.opts.Ledger.AwaitAcked(ctx, t); err != nil {
				return principal{}, false, err
			}
			player, found := s.playerByToken(t, hash)
			return principal{Role: events.RolePlayer, Tournament: t, Official: player}, found, nil
		}
		o, found, err := s.opts.Store.Token(hash)
		return principal{Role: o.Role, Tournament: o.Tournament, Official: o.Official}, found, err
	}
	pr, found, err := lookup()
	if err == nil && !found {
		// An official appointed (or a link issued) by a command this node
		// answered is known once the projections have applied it (the
		// answer comes first); one through another node sharing the
		// cluster, once this node has caught up with the log. Wait for
		// both before calling the token unknown.
		if s.opts.Ledger.AwaitAcked(ctx, "") == nil {
			pr, found, err = lookup()
		}
		if err == nil && !found && s.catchUpAll(ctx) == nil {
			pr, found, err = lookup()
		}
	}
	if err != nil {
		return principal{}, err
	}
	if !found {
		if limited {
			s.authFailures.fail(addr, now)
		}
		return principal{}, fmt.Errorf("%w: unknown token", errUnauthorized)
	}
	recordActor(ctx, pr)
	return pr, nil
}

// bearerToken reads credentials of the Bearer scheme (RFC 6750 §2.1): the
// scheme's name in any letter case (RFC 9110 §11.1), one or more spaces,
// the token.
func bearerToken(h string) (string, bool) {
	scheme, token, ok := strings.Cut(h, " ")
	token = strings.TrimLeft(token, " ")
	return token, ok && strings.EqualFold(scheme, "Bearer") && token != ""
}

// authorize authenticates and checks that the principal acts for
// tournament t (the administrator acts for all) in one of roles.
func (s *Server) authorize(r *http.Request, t string, roles ...string) (principal, error) {
	return s.authorizeAs(r.Context(), credentialsOf(r), t, roles...)
}

// authorizeAs is authorize for credentials c.
func (s *Server) authorizeAs(ctx context.Context, c credentials, t string, roles ...string) (principal, error) {
	p, err := s.authenticateAs(ctx, c)
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

// Limits on failed authentications, per client address: after
// authFailureLimit unknown tokens within authFailureWindow, requests that
// carry a token are refused with 429 for authFailureWindow, without the
// token being looked at. Successful authentications neither count nor
// reset the count. At most authTrackedAddrs addresses are tracked; the one
// that failed least recently is forgotten first.
const (
	authFailureLimit  = 10
	authFailureWindow = time.Minute
	authTrackedAddrs  = 4096
)

// rateLimitedError refuses a request from an address that failed to
// authenticate too often; wait is how long until it may try again.
type rateLimitedError struct{ wait time.Duration }

func (e *rateLimitedError) Error() string {
	return fmt.Sprintf("%s: too many failed authentications from this address; retry after %s seconds", errTooManyRequests, e.RetryAfter())
}

func (e *rateLimitedError) Unwrap() error { return errTooManyRequests }

// RetryAfter is the Retry-After value: whole seconds, rounded up.
func (e *rateLimitedError) RetryAfter() string {
	return strconv.FormatInt(int64((e.wait+time.Second-1)/time.Second), 10)
}

// clientAddr is the address failed authentications are counted against:
// the host of r.RemoteAddr, an IPv6 address by its /64 (one host usually
// holds the whole /64). Behind a reverse proxy that is the proxy's address,
// so every client behind it shares one count: referto trusts no
// X-Forwarded-For. A RemoteAddr naming no IP (a request made in-process
// with no client behind it) is not limited: it has no client to tell apart,
// and one shared count would let anyone lock everybody out. The web UI
// passes the browser's own address with the official's token.
func clientAddr(remoteAddr string) (string, bool) {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return "", false
	}
	if ip4 := ip.To4(); ip4 != nil {
		return ip4.String(), true
	}
	return ip.Mask(net.CIDRMask(64, 128)).String() + "/64", true
}

// authLimiter counts failed authentications per client address. The zero
// value is ready to use; it is safe for concurrent use.
type authLimiter struct {
	mu    sync.Mutex
	addrs map[string]*list.Element // of *authFailures
	order list.List                // least recently failed first
}

// authFailures is one address's count in its current window.
type authFailures struct {
	addr    string
	start   time.Time // of the current window
	count   int
	blocked time.Time // refused until then
}

// stale reports whether f no longer refuses nor counts towards a refusal.
func (f *authFailures) stale(now time.Time) bool {
	return !now.Before(f.blocked) && now.Sub(f.start) >= authFailureWindow
}

// refusal returns how long addr is still refused, or 0.
func (l *authLimiter) refusal(addr string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.addrs[addr]
	if e == nil {
		return 0
	}
	return max(e.Value.(*authFailures).blocked.Sub(now), 0)
}

// fail counts one failed authentication from addr.
func (l *authLimiter) fail(addr string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.addrs == nil {
		l.addrs = map[string]*list.Element{}
	}
	e := l.addrs[addr]
	if e == nil {
		e = l.order.PushBack(&authFailures{addr: addr, start: now})
		l.addrs[addr] = e
	} else {
		l.order.MoveToBack(e)
	}
	f := e.Value.(*authFailures)
	if now.Sub(f.start) >= authFailureWindow {
		f.start, f.count = now, 0
	}
	f.count++
	if f.count >= authFailureLimit {
		f.blocked = now.Add(authFailureWindow)
	}
	// Forget the addresses that failed least recently: first those whose
	// count has lapsed, then, past the cap, any.
	for front := l.order.Front(); front != nil && front != e; front = l.order.Front() {
		ff := front.Value.(*authFailures)
		if !ff.stale(now) && l.order.Len() <= authTrackedAddrs {
			break
		}
		l.order.Remove(front)
		delete(l.addrs, ff.addr)
	}
}

// catchUpAll waits, for at most a second, until the projections have
// applied the whole stream as it is now.
func (s *Server) catchUpAll(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	last, err := s.opts.Log.LastSeq(ctx)
	if err != nil {
		return err
	}
	return s.opts.Runner.WaitFor(ctx, last)
}
