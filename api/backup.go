package api

import (
	"fmt"
	"net/http"
	"time"

	"github.com/referto/referto/api/node/backup"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events"
)

// getBackup streams a backup of this node (administrator only), at a hub
// with its season registry: see backup.Write. A failure once the body has started cuts the connection, so
// the client never mistakes a partial backup for a whole one (and a backup
// without its manifest is no backup to backup.Read).
func (s *Server) getBackup(w http.ResponseWriter, r *http.Request) error {
	p, err := s.authorize(r, "")
	if err == nil && p.Role != events.RoleAdmin {
		err = fmt.Errorf("%w: only the administrator takes backups", errForbidden)
	}
	if err == nil {
		err = s.damaged()
	}
	if err != nil {
		return err
	}
	bw := &backupWriter{w: w, rc: http.NewResponseController(w)}
	src := backup.Source{Log: s.opts.Log, Store: s.opts.Store, Runner: s.opts.Runner, KeysDir: s.opts.Keys.Dir, Clock: s.opts.Clock}
	if s.opts.Registry != nil {
		src.Registry = s.opts.Registry // a hub's: its season registry with it
	}
	if s.opts.Hub != nil {
		src.HubState = s.opts.Hub.State // and its venues, keys and cosigned checkpoints
	}
	if s.opts.Node != nil {
		src.Workbooks = s.opts.Node.Layout.Workbooks() // and the club workbooks its ranking reads
	}
	_, err = backup.Write(r.Context(), bw, src)
	if err == nil {
		return nil
	}
	if !bw.started {
		return err
	}
	if r.Context().Err() == nil {
		s.opts.Logger.Error("backup aborted", "err", err)
	}
	panic(http.ErrAbortHandler)
}

// backupWriter sends the headers with the first bytes and gives every
// write its own deadline: a backup may take longer than the server's write
// timeout, but a client that stops reading is dropped.
type backupWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	started bool
}

const backupWriteTimeout = 30 * time.Second

func (b *backupWriter) Write(p []byte) (int, error) {
	if !b.started {
		b.started = true
		b.w.Header().Set("Content-Type", "application/x-tar")
		b.w.Header().Set("Content-Disposition", `attachment; filename="referto-backup.tar"`)
		b.w.Header().Set("X-Content-Type-Options", "nosniff")
		b.w.WriteHeader(http.StatusOK)
	}
	_ = b.rc.SetWriteDeadline(time.Now().Add(backupWriteTimeout)) // not every writer has one
	return b.w.Write(p)
}

// damaged refuses a backup of a damaged log: it would not restore (its
// manifest's roots are of the verified prefixes the projections hold), and
// the repair, not a backup, is what the log needs.
func (s *Server) damaged() error {
	if ds := s.opts.Ledger.Damages(); len(ds) > 0 {
		return fmt.Errorf("%w: no backup of it is taken", &ledger.DamageError{Damage: ds[0]})
	}
	if why, ok := s.opts.Ledger.Halted(); ok {
		return fmt.Errorf("%w: %s: no backup of it is taken; run `%s` first", ledger.ErrDamaged, why, s.opts.Ledger.RepairCommand())
	}
	return nil
}
