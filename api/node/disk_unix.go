//go:build unix

package node

import (
	"golang.org/x/sys/unix"

	"github.com/referto/referto/commands/ledger"
)

// StatDisk reports the space left to an unprivileged writer on the
// filesystem holding path, and whether it is mounted read-only.
func StatDisk(path string) (ledger.DiskState, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return ledger.DiskState{}, err
	}
	return ledger.DiskState{Free: st.Bavail * uint64(st.Bsize), ReadOnly: uint64(st.Flags)&unix.ST_RDONLY != 0}, nil
}
