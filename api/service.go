package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/referto/referto/api/problem"
	"github.com/referto/referto/api/web"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/commands/workbook"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// The command services: one function per command-like route, which both
// its JSON handler and the web pages call. Each authenticates the caller,
// authorizes it, reads the command, binds the idempotency key to the
// route, the actor and the body (ledger.Fingerprint, so that a key means
// the same request from either), submits through the ledger and counts
// the command in the metrics. The handler only reads the request's headers
// and body into a commandCall and writes the outcome; a page renders it.

// commandCall is one command-like request, as either presenter received
// it.
type commandCall struct {
	// Token and RemoteAddr are the caller's credentials.
	Token, RemoteAddr string
	// Tournament is the tournament the route addresses ("" for a new one).
	Tournament string
	// Body is the command's payload, as commands.Encode writes it; it is
	// read only once the caller is authorized, at most MaxBody bytes.
	Body io.Reader
	// Key is the idempotency key; "" for a fresh one.
	Key string
	// IfMatch are the If-Match field lines; none for no condition.
	IfMatch []string
}

func (c commandCall) credentials() credentials {
	return credentials{Token: c.Token, RemoteAddr: c.RemoteAddr}
}

// callOf reads an HTTP request into a commandCall: its credentials, the
// tournament its path names, its body, Idempotency-Key and If-Match.
func (s *Server) callOf(w http.ResponseWriter, r *http.Request, t string) commandCall {
	c := credentialsOf(r)
	return commandCall{Token: c.Token, RemoteAddr: c.RemoteAddr, Tournament: t, Body: http.MaxBytesReader(w, r.Body, s.opts.MaxBody),
		Key: r.Header.Get("Idempotency-Key"), IfMatch: r.Header.Values("If-Match")}
}

// counted runs one command service and counts it, by the type it names
// (typ, which run may learn from the body) and its outcome: accepted,
// replayed, or the problem code of its refusal.
func (s *Server) counted(typ string, run func(typ *string) (ledger.Outcome, error)) (ledger.Outcome, error) {
	start := time.Now()
	if typ == "" {
		typ = "unknown"
	}
	o, err := run(&typ)
	outcome := "accepted"
	switch {
	case err != nil:
		outcome = string(problem.Of(err).Code)
	case o.Replayed:
		outcome = "replayed"
	}
	s.metrics.countCommand(typ, outcome, start)
	return o, err
}

// writable refuses every command on a hub: they go to the venue.
func (s *Server) writable() error {
	if s.opts.Hub != nil {
		return fmt.Errorf("%w: this is a hub; commands go to the tournament's venue", errReadOnly)
	}
	return nil
}

// readCall reads c's body, at most limit bytes.
func readCall(c commandCall, limit int64) ([]byte, error) {
	if c.Body == nil {
		return nil, errors.Join(errBadRequest, errors.New("no body"))
	}
	b, err := io.ReadAll(io.LimitReader(c.Body, limit+1))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) || int64(len(b)) > limit {
		return nil, errTooLarge
	}
	if err != nil {
		return nil, errors.Join(errBadRequest, err)
	}
	return b, nil
}

// submit binds c's idempotency key and If-Match to sub, whose command was
// read from body, and submits it.
func (s *Server) submit(ctx context.Context, c commandCall, sub ledger.Submission, body []byte) (ledger.Outcome, error) {
	key, err := s.idempotencyKey(c.Key)
	if err != nil {
		return ledger.Outcome{}, err
	}
	sub.Key = key
	if sub.Request, err = ledger.Fingerprint(sub.Route, sub.Tournament, sub.Actor, body); err != nil {
		return ledger.Outcome{}, errors.Join(errBadRequest, err)
	}
	if len(c.IfMatch) > 0 {
		if sub.IfMatch, err = parseIfMatch(c.IfMatch); err != nil {
			return ledger.Outcome{}, err
		}
	}
	return s.submitCounted(ctx, sub)
}

// submitCommand is POST /v1/tournaments/{t}/commands: a command of the
// tournament's, by an arbiter, the appeals committee or a player, as the
// role table permits (the ruleset may narrow it: the decision says so).
func (s *Server) submitCommand(ctx context.Context, c commandCall) (ledger.Outcome, error) {
	return s.counted("", func(typ *string) (ledger.Outcome, error) {
		if err := s.writable(); err != nil {
			return ledger.Outcome{}, err
		}
		t := c.Tournament
		if err := s.checkTournamentID(t); err != nil {
			return ledger.Outcome{}, err
		}
		p, err := s.authorizeAs(ctx, c.credentials(), t, events.RoleArbiter, events.RoleAppeals, events.RolePlayer)
		if err != nil {
			return ledger.Outcome{}, err
		}
		body, err := readCall(c, s.opts.MaxBody)
		if err != nil {
			return ledger.Outcome{}, err
		}
		cmd, err := commands.Parse(body)
		if err != nil {
			*typ = commandTypeOf(body)
			return ledger.Outcome{}, err
		}
		*typ = cmd.CommandType()
		if !commands.Permitted(p.Role, cmd.CommandType()) {
			return ledger.Outcome{}, fmt.Errorf("%w: role %s may not issue %s", errForbidden, p.Role, cmd.CommandType())
		}
		// Every command gets fresh randomness; only a draw uses it, and records it.
		seed, err := s.randomHex(16)
		if err != nil {
			return ledger.Outcome{}, err
		}
		return s.submit(ctx, c, ledger.Submission{Tournament: t, Command: cmd, Actor: p.actor(), Route: ledger.RouteCommands, Seed: seed}, body)
	})
}

// createTournament is POST /v1/tournaments: the administrator creates a
// tournament, which the command names.
func (s *Server) createTournament(ctx context.Context, c commandCall) (ledger.Outcome, error) {
	return s.counted(commands.TypeOf[commands.CreateTournament](), func(*string) (ledger.Outcome, error) {
		if err := s.writable(); err != nil {
			return ledger.Outcome{}, err
		}
		p, err := s.authorizeAs(ctx, c.credentials(), "")
		if err == nil && p.Role != events.RoleAdmin {
			err = fmt.Errorf("%w: only the administrator creates tournaments", errForbidden)
		}
		if err != nil {
			return ledger.Outcome{}, err
		}
		body, err := readCall(c, s.opts.MaxBody)
		if err != nil {
			return ledger.Outcome{}, err
		}
		cmd, err := commands.ParseAs[commands.CreateTournament](body)
		if err != nil {
			return ledger.Outcome{}, err
		}
		return s.submit(ctx, c, ledger.Submission{Tournament: cmd.ID, Command: cmd, Actor: p.actor(), Route: ledger.RouteCreate}, body)
	})
}

// appointOfficial is POST /v1/tournaments/{t}/officials: the
// administrator appoints an official, whose token it returns, shown once
// and never stored. A retried appointment cannot show it again, and is
// refused.
func (s *Server) appointOfficial(ctx context.Context, c commandCall) (o ledger.Outcome, token string, _ error) {
	o, err := s.counted(commands.TypeOf[commands.AppointOfficial](), func(*string) (ledger.Outcome, error) {
		if err := s.writable(); err != nil {
			return ledger.Outcome{}, err
		}
		t := c.Tournament
		p, err := s.authorizeAs(ctx, c.credentials(), t)
		if err == nil && p.Role != events.RoleAdmin {
			err = fmt.Errorf("%w: only the administrator appoints officials", errForbidden)
		}
		if err != nil {
			return ledger.Outcome{}, err
		}
		body, err := readCall(c, s.opts.MaxBody)
		if err != nil {
			return ledger.Outcome{}, err
		}
		ap, err := commands.ParseAs[commands.AppointOfficial](body)
		if err != nil {
			return ledger.Outcome{}, err
		}
		if token, err = s.randomHex(32); err != nil {
			return ledger.Outcome{}, err
		}
		ap.TokenSHA256 = TokenHash(token)
		if err := s.checkTournamentID(t); err != nil {
			return ledger.Outcome{}, err
		}
		o, err := s.submit(ctx, c, ledger.Submission{Tournament: t, Command: ap, Actor: p.actor(), Route: ledger.RouteAppoint}, body)
		if err == nil && o.Replayed {
			// The token of the original appointment was shown once and is
			// not stored.
			err = fmt.Errorf("%w: this Idempotency-Key already appointed an official; the token was shown once", events.ErrConflict)
		}
		return o, err
	})
	if err != nil {
		return ledger.Outcome{}, "", err
	}
	return o, token, nil
}

// issuePlayerTokens is POST /v1/tournaments/{t}/player-tokens: an arbiter
// gives players their personal links, those named or every admitted
// player without a live one. The links are the events' own, derived again
// (playerLinks).
func (s *Server) issuePlayerTokens(ctx context.Context, c commandCall) (ledger.Outcome, error) {
	return s.counted(commands.TypeOf[commands.IssuePlayerTokens](), func(*string) (ledger.Outcome, error) {
		if err := s.writable(); err != nil {
			return ledger.Outcome{}, err
		}
		t := c.Tournament
		if err := s.checkTournamentID(t); err != nil {
			return ledger.Outcome{}, err
		}
		p, err := s.authorizeAs(ctx, c.credentials(), t, events.RoleArbiter)
		if err != nil {
			return ledger.Outcome{}, err
		}
		body, err := readCall(c, s.opts.MaxBody)
		if err != nil {
			return ledger.Outcome{}, err
		}
		issue, err := commands.ParseAs[commands.IssuePlayerTokens](body)
		if err != nil {
			return ledger.Outcome{}, err
		}
		secret, err := s.opts.Keys.Secret(playerTokenPurpose)
		if err != nil {
			return ledger.Outcome{}, err
		}
		players := issue.Players
		if len(players) == 0 {
			// Everyone admitted, as the ledger has acknowledged them: the
			// projections may not have applied the last registrations yet.
			if err := s.opts.Ledger.AwaitAcked(ctx, t); err != nil {
				return ledger.Outcome{}, err
			}
			s.opts.Runner.Read(t, func(st *projections.Tournament) {
				for _, id := range st.Order {
					if st.Players[id].Status.Admitted() && !st.PlayerTokens[id].Live() {
						players = append(players, id)
					}
				}
			})
		}
		for _, id := range players {
			nonce, err := s.randomHex(8)
			if err != nil {
				return ledger.Outcome{}, err
			}
			issue.Grants = append(issue.Grants, commands.TokenGrant{Player: id, Nonce: nonce,
				TokenSHA256: TokenHash(derivePlayerToken(secret, t, id, nonce))})
		}
		return s.submit(ctx, c, ledger.Submission{Tournament: t, Command: issue, Actor: p.actor(), Route: routePlayerTokens}, body)
	})
}

// draft is POST /v1/tournaments/{t}/draft: it decides a draw as
// submitCommand would, against the tournament as it stands, and returns
// the events it would append with the seq it was decided on, appending
// nothing. Only a draw has a draft. A draft is not a command: it is not
// counted as one.
func (s *Server) draft(ctx context.Context, c commandCall) (seq uint64, evs []events.Event, _ error) {
	if err := s.writable(); err != nil {
		return 0, nil, err
	}
	t := c.Tournament
	if err := s.checkTournamentID(t); err != nil {
		return 0, nil, err
	}
	p, err := s.authorizeAs(ctx, c.credentials(), t, events.RoleArbiter, events.RoleAppeals)
	if err != nil {
		return 0, nil, err
	}
	body, err := readCall(c, s.opts.MaxBody)
	if err != nil {
		return 0, nil, err
	}
	cmd, err := commands.ParseAs[commands.DrawTables](body)
	if err != nil {
		return 0, nil, err
	}
	if !commands.Permitted(p.Role, cmd.CommandType()) {
		return 0, nil, fmt.Errorf("%w: role %s may not issue %s", errForbidden, p.Role, cmd.CommandType())
	}
	if cmd.Seed == "" && len(cmd.Tables) == 0 {
		// The seed the draft was drawn with, recorded in its event: the
		// draw recorded with it seats the same tables.
		if cmd.Seed, err = s.randomHex(16); err != nil {
			return 0, nil, err
		}
	}
	if err := s.opts.Ledger.AwaitAcked(ctx, t); err != nil {
		return 0, nil, err
	}
	if !s.opts.Runner.Read(t, func(st *projections.Tournament) {
		seq = st.Seq
		evs, err = commands.Decide(st, cmd, commands.Input{Now: s.opts.Clock().UTC(), Actor: p.actor(), Seed: cmd.Seed})
	}) {
		err = fmt.Errorf("%w: tournament %s", errNotFound, t)
	}
	if err != nil {
		return 0, nil, err
	}
	return seq, evs, nil
}

// webCommands are the services the web pages' forms call.
func (s *Server) webCommands() web.Commands {
	return web.Commands{
		Submit: func(ctx context.Context, c web.CommandCall) (ledger.Outcome, error) {
			return s.submitCommand(ctx, commandCall(c))
		},
		Create: func(ctx context.Context, c web.CommandCall) (ledger.Outcome, error) {
			return s.createTournament(ctx, commandCall(c))
		},
		Appoint: func(ctx context.Context, c web.CommandCall) (ledger.Outcome, string, error) {
			return s.appointOfficial(ctx, commandCall(c))
		},
		IssueLinks: func(ctx context.Context, c web.CommandCall) (ledger.Outcome, error) {
			return s.issuePlayerTokens(ctx, commandCall(c))
		},
		Draft: func(ctx context.Context, c web.CommandCall) (uint64, []events.Event, error) {
			return s.draft(ctx, commandCall(c))
		},
		ImportWorkbook: func(ctx context.Context, c web.CommandCall, scope, fileName string) (workbook.Imported, error) {
			return s.importWorkbook(ctx, commandCall(c), scope, fileName)
		},
	}
}
