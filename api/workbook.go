package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/workbook"
	"github.com/referto/referto/events"
)

// The club workbook (docs/workbook.md): a tournament downloaded as the
// workbook the national ranking publishes from, and a workbook (or its
// entry list alone) uploaded into a tournament.

// getWorkbook serves the tournament as a club workbook, checked as the
// national tool checks it before it is sent.
func (s *Server) getWorkbook(w http.ResponseWriter, r *http.Request) error {
	t := mux.Vars(r)["t"]
	if _, err := s.authorize(r, t, events.RoleArbiter, events.RoleAppeals, events.RoleAuditor); err != nil {
		return err
	}
	st, err := s.reader.Clone(t)
	if err != nil {
		return err
	}
	name, data, err := workbook.Export(st)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", workbook.MediaType)
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", name))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(data)
	return nil
}

// postWorkbook records an uploaded club workbook (.xlsx, the request's
// body, named by its file_name query parameter) in tournament t, in the
// scope its scope query parameter names (importWorkbook), and answers what
// was recorded.
func (s *Server) postWorkbook(w http.ResponseWriter, r *http.Request) error {
	c := s.callOf(w, r, mux.Vars(r)["t"])
	c.Body = http.MaxBytesReader(w, r.Body, workbook.MaxSize)
	q := r.URL.Query()
	out, err := s.importWorkbook(r.Context(), c, q.Get("scope"), q.Get("file_name"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, out)
	return nil
}

// importWorkbook records a club workbook in tournament t as ordinary
// commands, sent by the official who uploads it: its entry list alone
// (scope entry_list, the default) into an open tournament, or the whole
// tournament (scope tournament) into one that has recorded no player.
// Nothing is recorded while the national tool's check or the ledger's
// rules refuse anything: every problem is answered at once, with its
// sheet and cell.
func (s *Server) importWorkbook(ctx context.Context, c commandCall, scope, fileName string) (workbook.Imported, error) {
	if err := s.writable(); err != nil {
		return workbook.Imported{}, err
	}
	t := c.Tournament
	if err := s.checkTournamentID(t); err != nil {
		return workbook.Imported{}, err
	}
	p, err := s.authorizeAs(ctx, c.credentials(), t, events.RoleArbiter)
	if err != nil {
		return workbook.Imported{}, err
	}
	if scope == "" {
		scope = events.WorkbookEntryList
	}
	if scope != events.WorkbookEntryList && scope != events.WorkbookTournament {
		return workbook.Imported{}, &commands.FieldError{Field: "scope", Msg: fmt.Sprintf("must be %s or %s, not %q", events.WorkbookEntryList, events.WorkbookTournament, scope)}
	}
	data, err := readCall(c, workbook.MaxSize)
	if err != nil {
		return workbook.Imported{}, err
	}
	wb, err := readWorkbook(data, fileName, t+".xlsx")
	if err != nil {
		return workbook.Imported{}, err
	}
	// The import is planned against everything the ledger acknowledged,
	// which the projections may not have applied yet.
	if err := s.opts.Ledger.AwaitAcked(ctx, t); err != nil {
		return workbook.Imported{}, err
	}
	st, err := s.reader.Clone(t)
	if err != nil {
		return workbook.Imported{}, err
	}
	plan, err := workbook.PlanImport(wb, workbook.Options{EntryList: scope == events.WorkbookEntryList, Into: st})
	if err == nil {
		_, err = plan.Rehearse(st, time.Now().UTC())
	}
	if errors.Is(err, workbook.ErrImport) && len(workbook.Errors(plan.Problems)) > 0 {
		err = problemsErr(plan.Problems)
	}
	if err != nil {
		return workbook.Imported{}, err
	}
	var last uint64
	err = plan.Run(ctx, func(ctx context.Context, t string, step workbook.Step) error {
		sub, err := workbook.Submission(t, step, p.actor())
		if err != nil {
			return err
		}
		o, err := s.submitCounted(ctx, sub)
		last = o.Seq
		return err
	})
	if err != nil {
		return workbook.Imported{}, err
	}
	out := workbook.Imported{Tournament: t, FileName: wb.FileName, SHA256: wb.SHA256, Scope: scope, Commands: len(plan.Steps), Seq: last,
		Warnings: []workbook.Problem{}, Disagreements: plan.Disagreements}
	for _, pr := range plan.Problems {
		if pr.Severity == workbook.Warning {
			out.Warnings = append(out.Warnings, pr)
		}
	}
	for _, step := range plan.Steps {
		if _, ok := step.Command.(*commands.RegisterPlayer); ok {
			out.Players++
		}
	}
	if scope == events.WorkbookTournament {
		out.NationalID, out.Counts = plan.NationalID, &plan.Counts
	}
	if out.Disagreements == nil {
		out.Disagreements = []events.Disagreement{}
	}
	return out, nil
}

// uploadedWorkbook reads the workbook a request's body carries, named by
// its file_name query parameter (def when it has none).
func (s *Server) uploadedWorkbook(w http.ResponseWriter, r *http.Request, def string) (*workbook.Workbook, error) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, workbook.MaxSize))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, errTooLarge
	case err != nil:
		return nil, errors.Join(errBadRequest, err)
	}
	return readWorkbook(data, r.URL.Query().Get("file_name"), def)
}

// readWorkbook reads the workbook data, named fileName as its client
// named it (def when it is unnamed).
func readWorkbook(data []byte, fileName, def string) (*workbook.Workbook, error) {
	name := path.Base(strings.ReplaceAll(fileName, `\`, "/"))
	if name == "." || name == "/" {
		name = def
	}
	wb, err := workbook.Read(name, data)
	var fe *workbook.FileError
	switch {
	case errors.As(err, &fe):
		return nil, &commands.FieldError{Field: "body", Msg: fe.It + " / " + fe.En, Rule: workbook.Rule}
	case err != nil:
		return nil, &commands.FieldError{Field: "body", Msg: err.Error(), Rule: workbook.Rule}
	}
	return wb, nil
}

// problemsErr is the errors among problems, as a refusal naming each
// one's sheet and cell.
func problemsErr(problems []workbook.Problem) error {
	var errs []error
	for _, pr := range workbook.Errors(problems) {
		errs = append(errs, &commands.FieldError{Field: pr.Where(), Msg: pr.It + " / " + pr.En, Rule: workbook.Rule})
	}
	return errors.Join(errs...)
}
