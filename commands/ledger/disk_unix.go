//go:build unix

package ledger

import "golang.org/x/sys/unix"

// StatDisk reports the space left to an unprivileged writer on the
// filesystem holding path, and whether it is mounted read-only.
func StatDisk(path string) (DiskState, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return DiskState{}, err
	}
	return DiskState{Free: st.Bavail * uint64(st.Bsize), ReadOnly: uint64(st.Flags)&unix.ST_RDONLY != 0}, nil
}
