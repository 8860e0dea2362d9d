//go:build unix

package backup

import (
	"errors"

	"golang.org/x/sys/unix"
)

// running reports whether process pid exists (signal 0 checks without
// sending anything; EPERM is a process of another user).
func running(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}
