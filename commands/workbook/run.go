package workbook

import (
	"context"
	"fmt"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events"
)

// Submit hands one step of a plan to the ledger: ledger.Submit with
// Submission's, or the HTTP API under the step's key.
type Submit func(ctx context.Context, tournament string, s Step) error

// Run submits the plan's steps in order and stops at the first refusal,
// naming the step. A step already submitted under its key (an import run
// again) is answered with its stored outcome and the run goes on.
func (p *Plan) Run(ctx context.Context, submit Submit) error {
	for i, s := range p.Steps {
		if err := submit(ctx, p.Tournament, s); err != nil {
			return fmt.Errorf("workbook: step %d of %d (%s): %w", i+1, len(p.Steps), s.Command.CommandType(), err)
		}
	}
	return nil
}

// Submission is step s of tournament t as ledger.Submit takes it, sent
// by actor under the route its command has in the HTTP API, so that the
// same import through either replays.
func Submission(t string, s Step, actor events.Actor) (ledger.Submission, error) {
	route := ledger.RouteCommands
	if s.Create {
		route = ledger.RouteCreate
	}
	body, err := commands.Encode(s.Command)
	if err != nil {
		return ledger.Submission{}, err
	}
	fp, err := ledger.Fingerprint(route, t, actor, body)
	if err != nil {
		return ledger.Submission{}, err
	}
	return ledger.Submission{Tournament: t, Command: s.Command, Actor: actor, Key: s.Key, Route: route, Request: fp}, nil
}

// LedgerSubmit submits steps through l as actor.
func LedgerSubmit(l *ledger.Ledger, actor events.Actor) Submit {
	return func(ctx context.Context, t string, s Step) error {
		sub, err := Submission(t, s, actor)
		if err != nil {
			return err
		}
		_, err = l.Submit(ctx, sub)
		return err
	}
}

// Imported is what an import recorded: the file, its scope (entry list or
// whole tournament), the commands sent and the players they registered,
// the tournament's seq after the last, the national tool's warnings, and
// the rows the ruleset's computation disagrees with the file's standings
// on.
type Imported struct {
	Tournament    string                `json:"tournament"`
	FileName      string                `json:"file_name"`
	SHA256        string                `json:"sha256"`
	Scope         string                `json:"scope"`
	Commands      int                   `json:"commands"`
	Players       int                   `json:"players"`
	Seq           uint64                `json:"seq"`
	NationalID    string                `json:"national_id,omitempty"`
	Counts        *Counts               `json:"counts,omitempty"`
	Warnings      []Problem             `json:"warnings"`
	Disagreements []events.Disagreement `json:"disagreements"`
}
