package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/referto/referto/api/hub"
	"github.com/referto/referto/api/node"
	"github.com/referto/referto/api/problem"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/commands/workbook"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/fault"
	"github.com/referto/referto/projections"
	"github.com/referto/referto/projections/store"
	"github.com/referto/referto/replay"
)

// TestAnErrorOfEachPackageIsAnsweredByItsCode: an error as each package
// makes it reaches the HTTP answer as problem+json with its code's status,
// the field, rule and seq it carries, a detail without the text of a
// sentinel that only names its failure, and Retry-After where a retry
// helps.
func TestAnErrorOfEachPackageIsAnsweredByItsCode(t *testing.T) {
	s := &Server{opts: Options{Logger: slog.New(slog.DiscardHandler)}}
	for _, c := range []struct {
		name   string
		err    error
		status int
		code   fault.Code
		detail string // the detail's beginning
		field  string
		rule   string
		retry  string
	}{
		{"events: conflict", fmt.Errorf("%w: tournament t1 moved past stream sequence 3", events.ErrConflict), 409, fault.Conflict, "tournament t1 moved", "", "", ""},
		{"events: invalid id", fmt.Errorf("%w: %q", events.ErrInvalidID, "a b"), 400, fault.Invalid, `"a b"`, "", "", ""},
		{"events: unavailable", fmt.Errorf("%w: no quorum", events.ErrUnavailable), 503, fault.Unavailable, "no quorum", "", "", "1"},
		{"commands: field", fmt.Errorf("decide: %w", &commands.FieldError{Field: "name", Msg: "is required"}), 400, fault.Invalid, "name: is required", "name", "", ""},
		{"commands: rule", &commands.RuleError{Rule: "rur-2015 art. 8", Msg: "the round is not over"}, 422, fault.RuleViolation, "the round is not over", "", "rur-2015 art. 8", ""},
		{"commands: not found", fmt.Errorf("%w: player p9", commands.ErrNotFound), 404, fault.NotFound, "player p9", "", "", ""},
		{"commands: forbidden", fmt.Errorf("%w: not yours", commands.ErrForbidden), 403, fault.Forbidden, "not yours", "", "", ""},
		{"ledger: precondition", fmt.Errorf("%w: tournament t1 is at 4", ledger.ErrPrecondition), 412, fault.PreconditionFailed, "tournament t1 is at 4", "", "", ""},
		{"ledger: key reused", &ledger.KeyReusedError{Key: "k", Seq: 7}, 422, ledger.KeyReused, `Idempotency-Key "k"`, "Idempotency-Key", "", ""},
		{"ledger: damaged", &ledger.DamageError{Damage: ledger.Damage{Tournament: "t1", Seq: 3, What: "missing"}}, 503, ledger.LogDamaged, "the log of tournament t1 is damaged at event 3", "", "", ""},
		{"ledger: damaged, wrapped", fmt.Errorf("%w: repair first", ledger.ErrDamaged), 503, ledger.LogDamaged, "ledger: log damaged: repair first", "", "", ""},
		{"projections: not ready", fmt.Errorf("%w: runner stopped", projections.ErrNotReady), 503, fault.Unavailable, "projections: not ready: runner stopped", "", "", "1"},
		{"projections/store: corrupt", fmt.Errorf("%w: key x", store.ErrCorrupt), 500, fault.Internal, "internal error; see the server log", "", "", ""},
		{"commands/workbook: a refused step", fmt.Errorf("%w: step 3 would be refused: %w", workbook.ErrImport, &commands.RuleError{Rule: "rur-2015 art. 1", Msg: "closed"}), 422, fault.RuleViolation, "closed", "", "rur-2015 art. 1", ""},
		{"replay: log", fmt.Errorf("%w: line 3", replay.ErrLog), 500, fault.Internal, "internal error", "", "", ""},
		{"api/node: in use", node.ErrInUse, 500, fault.Internal, "internal error", "", "", ""},
		{"api/hub: held", fmt.Errorf("%w: tournament t1: no checkpoint", hub.ErrHeld), 403, fault.Forbidden, "hub: held: tournament t1", "", "", ""},
		{"api/hub: quarantined", fmt.Errorf("%w: tournament t1", hub.ErrQuarantined), 403, fault.Forbidden, "hub: quarantined: tournament t1", "", "", ""},
		{"api/hub: proof", fmt.Errorf("%w: not signed", hub.ErrProof), 403, fault.Forbidden, "hub: proof: not signed", "", "", ""},
		{"api/hub: venue", fmt.Errorf("%w: no key", hub.ErrVenue), 400, fault.Invalid, "no key", "", "", ""},
		{"api/hub: no venue", fmt.Errorf("%w: roma", hub.ErrNoVenue), 404, fault.NotFound, "roma", "", "", ""},
		{"api/hub: decision", fmt.Errorf("%w: linked already", hub.ErrDecision), 409, fault.Conflict, "linked already", "", "", ""},
		{"api: too large", errTooLarge, 413, problem.TooLarge, "api: request body too large", "", "", ""},
		{"api: headers", fmt.Errorf("%w: 70000 bytes", errHeadersTooLarge), 431, problem.HeadersTooLarge, "70000 bytes", "", "", ""},
		{"api: method", errMethod, 405, problem.MethodNotAllowed, "api: method not allowed", "", "", ""},
		{"api: read-only", fmt.Errorf("%w: this is a hub", errReadOnly), 405, problem.MethodNotAllowed, "this is a hub", "", "", ""},
		{"api: rate limited", &rateLimitedError{wait: 1500 * time.Millisecond}, 429, problem.TooManyRequests, "too many failed authentications", "", "", "2"},
		{"api: unauthorized", fmt.Errorf("%w: no token", errUnauthorized), 401, fault.Unauthorized, "no token", "", "", ""},
		{"a deadline", fmt.Errorf("wait: %w", context.DeadlineExceeded), 503, fault.Unavailable, "wait: context deadline exceeded", "", "", "1"},
		{"unmarked", errors.New("boom"), 500, fault.Internal, "internal error; see the server log", "", "", ""},
	} {
		rec := httptest.NewRecorder()
		s.writeError(rec, httptest.NewRequest("GET", "/v1/tournaments/t1", nil), c.err)
		var p problem.Problem
		if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
			t.Errorf("%s: %v: %s", c.name, err, rec.Body)
			continue
		}
		if rec.Code != c.status || p.Status != c.status || p.Code != c.code || rec.Header().Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s: %d %d %q %s, want %d %q problem+json", c.name, rec.Code, p.Status, p.Code, rec.Header().Get("Content-Type"), c.status, c.code)
		}
		if !strings.HasPrefix(p.Detail, c.detail) || p.Field != c.field || p.Rule != c.rule {
			t.Errorf("%s: detail %q field %q rule %q, want %q… %q %q", c.name, p.Detail, p.Field, p.Rule, c.detail, c.field, c.rule)
		}
		if got := rec.Header().Get("Retry-After"); got != c.retry {
			t.Errorf("%s: Retry-After %q, want %q", c.name, got, c.retry)
		}
		if c.code == ledger.KeyReused && p.Seq != 7 {
			t.Errorf("%s: seq %d, want 7", c.name, p.Seq)
		}
	}
}
