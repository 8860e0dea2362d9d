// Package atomicfile writes a file whole or not at all, in a way that
// survives a power cut: the bytes go to a temporary file beside the
// destination, which is synced, renamed over the destination, and then the
// directory is synced, so that the rename itself is on disk (as Pebble's
// vfs/atomicfs moves its markers). A reader sees the old file or the new
// one, never half of either, and after the call returns a power cut loses
// neither.
package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// File is a file being written to take path's place: write it (it is an
// *os.File, readable and seekable too), then Commit, or Abort to leave
// path as it was. Abort after Commit does nothing, so it may be deferred.
type File struct {
	*os.File
	path string
	done bool
}

// Create starts a file that will replace path, with mode perm, in path's
// directory.
func Create(path string, perm fs.FileMode) (*File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".partial-*")
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &File{File: f, path: path}, nil
}

// Commit syncs the file, closes it, renames it over its destination and
// syncs the directory. On an error the destination is as it was, or, if
// only the directory's sync failed, is the new file not yet made durable.
func (f *File) Commit() error {
	if f.done {
		return errors.New("atomicfile: " + f.path + " already committed or aborted")
	}
	f.done = true
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	return SyncDir(filepath.Dir(f.path))
}

// Abort closes and removes the temporary file; the destination is left as
// it was. After Commit it does nothing.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.Close()
	os.Remove(f.Name())
}

// Write replaces path with b, mode perm, whole or not at all.
func Write(path string, b []byte, perm fs.FileMode) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.File.Write(b); err != nil {
		return err
	}
	return f.Commit()
}

// SyncDir fsyncs a directory: what was renamed or created in it stays so
// after a power cut.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
