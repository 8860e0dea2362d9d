package node

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ErrInUse reports a data directory another process holds (Layout.Lock);
// the error is an *InUseError.
var ErrInUse = errors.New("node: data directory in use")

// InUseError names the directory and the process holding it.
type InUseError struct {
	Dir string
	PID int // 0 when it could not be read
}

func (e *InUseError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("data directory %s in use by referto (pid %d)", e.Dir, e.PID)
	}
	return fmt.Sprintf("data directory %s in use by another referto", e.Dir)
}

// Is makes an *InUseError ErrInUse.
func (e *InUseError) Is(target error) bool { return target == ErrInUse }

// DirLock is a process's hold on a data directory (Layout.Lock).
type DirLock struct {
	f *os.File
}

// Lock takes the data directory for this process, creating the directory
// (0700) when missing: while it is held, another Lock of the directory, by
// any process, fails with ErrInUse naming the holder's pid. The hold is an
// advisory lock (flock) on Layout.LockFile, released by Unlock or when the
// process ends, however it ends: a killed server never leaves its directory
// locked.
func (l Layout) Lock() (*DirLock, error) {
	if err := os.MkdirAll(l.Dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(l.LockFile(), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := flock(f); err != nil {
		f.Close()
		if errors.Is(err, ErrInUse) {
			b, _ := os.ReadFile(l.LockFile())
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			return nil, &InUseError{Dir: l.Dir, PID: pid}
		}
		return nil, fmt.Errorf("lock %s: %w", l.LockFile(), err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &DirLock{f: f}, nil
}

// Unlock releases the directory; nil does nothing.
func (d *DirLock) Unlock() {
	if d == nil || d.f == nil {
		return
	}
	_ = d.f.Close() // closing the file releases its lock
	d.f = nil
}
