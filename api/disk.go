package api

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

// DefaultDiskReserve is the free space below which commands are refused.
// JetStream and Pebble both treat a write that fails for lack of space as a
// fault (Pebble stops the process), so the ledger stops taking commands
// while there is still room for everything already accepted to be applied,
// snapshotted and compacted, and resumes by itself once space returns.
const DefaultDiskReserve = 64 << 20

// checkDisk refuses a command (503, nothing appended) while the data
// directory is read-only or has less free space than the reserve. A disk it
// cannot measure does not block commands: the stores then report their own
// errors.
func (s *Server) checkDisk() error {
	if s.opts.Disk == nil {
		return nil
	}
	d, err := s.opts.Disk()
	if err != nil && !errors.Is(err, errors.ErrUnsupported) {
		s.opts.Logger.Warn("disk guard: cannot measure the data directory", "err", err)
	}
	return diskRefusal(d, err, s.opts.DiskReserve)
}

// diskRefusal is why a disk measured as d (or not, err) refuses commands,
// or nil.
func diskRefusal(d DiskState, err error, reserve uint64) error {
	switch {
	case err != nil:
		return nil
	case d.ReadOnly:
		return fmt.Errorf("%w: the data directory is on a read-only filesystem", events.ErrUnavailable)
	case d.Free < reserve:
		return fmt.Errorf("%w: %d MiB free on the data disk, below the reserve of %d MiB: free some space",
			events.ErrUnavailable, d.Free>>20, reserve>>20)
	}
	return nil
}
