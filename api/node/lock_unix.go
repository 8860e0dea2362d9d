//go:build unix

package node

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// flock takes an exclusive advisory lock on f without waiting.
func flock(f *os.File) error {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return ErrInUse
	}
	return err
}

// syncData puts f's data on disk, and what of its metadata reading it back
// needs (its size), not its times: fdatasync.
func syncData(f *os.File) error { return unix.Fdatasync(int(f.Fd())) }
