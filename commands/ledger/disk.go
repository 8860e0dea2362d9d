package ledger

import (
	"errors"
	"fmt"

	"github.com/referto/referto/events"
)

// DiskState is the data directory's filesystem as the disk guard sees it.
type DiskState struct {
	Free     uint64 `json:"free"`
	ReadOnly bool   `json:"read_only"`
}

// checkDisk refuses a command (ErrUnavailable, nothing appended) while the
// data directory is read-only or has less free space than the reserve. A
// disk it cannot measure does not block commands: the stores then report
// their own errors. It logs once when it starts refusing and once when it
// stops.
func (l *Ledger) checkDisk() error {
	if l.opts.Disk == nil {
		return nil
	}
	d, err := l.opts.Disk()
	if err != nil && !errors.Is(err, errors.ErrUnsupported) {
		l.opts.Logger.Warn("disk guard: cannot measure the data directory", "err", err)
	}
	reason := diskRefusal(d, err, l.opts.DiskReserve)
	if refusing := reason != ""; l.diskRefusing.CompareAndSwap(!refusing, refusing) {
		if refusing {
			l.opts.Logger.Warn("disk guard: refusing commands until the data disk has room again", "reason", reason,
				"free_mib", d.Free>>20, "reserve_mib", l.opts.DiskReserve>>20)
		} else {
			l.opts.Logger.Info("disk guard: the data disk has room again; accepting commands", "free_mib", d.Free>>20, "reserve_mib", l.opts.DiskReserve>>20)
		}
	}
	if reason != "" {
		return fmt.Errorf("%w: %s", events.ErrUnavailable, reason)
	}
	return nil
}

// DiskStatus is the disk guard's view of the data directory's filesystem.
type DiskStatus struct {
	DiskState
	// Reserve is the free space below which commands are refused.
	Reserve uint64
	// Err is why the disk could not be measured (commands are then not
	// refused for it).
	Err error
	// Accepting reports whether the guard lets commands through.
	Accepting bool
}

// Disk measures the data directory's filesystem as the disk guard sees it,
// without logging; ok is false when the guard is off (Options.Disk nil).
func (l *Ledger) Disk() (st DiskStatus, ok bool) {
	if l.opts.Disk == nil {
		return DiskStatus{}, false
	}
	d, err := l.opts.Disk()
	return DiskStatus{DiskState: d, Reserve: l.opts.DiskReserve, Err: err, Accepting: diskRefusal(d, err, l.opts.DiskReserve) == ""}, true
}

// diskRefusal is why a disk measured as d (or not, err) refuses commands,
// or "".
func diskRefusal(d DiskState, err error, reserve uint64) string {
	switch {
	case err != nil:
		return ""
	case d.ReadOnly:
		return "the data directory is on a read-only filesystem"
	case d.Free < reserve:
		return fmt.Sprintf("%d MiB free on the data disk, below the reserve of %d MiB: free some space", d.Free>>20, reserve>>20)
	}
	return ""
}
