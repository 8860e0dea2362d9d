// Package storetest gives the projection store's tests a disk of a fixed
// capacity: a Pebble filesystem that counts the space its files take, as a
// real filesystem allocates it (what was written and what was
// preallocated), and fails a write that would go past the capacity with
// ENOSPC, as a full disk does.
package storetest

import (
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// DiskFS is a vfs.FS of a fixed capacity over another one. It counts the
// files written through it (files it only reads are not counted). Safe for
// concurrent use.
type DiskFS struct {
	vfs.FS
	// SlowTables, when set, is slept before every write to a table
	// (*.sst): flushes then fall behind a burst of writes, as on a slow
	// disk, and the write-ahead logs pile up.
	SlowTables time.Duration

	mu        sync.Mutex
	capacity  int64
	files     map[string]int64 // allocated bytes by path
	used      int64
	walUsed   int64 // of the write-ahead logs (*.log)
	walPeak   int64
	usedPeak  int64
	refusals  int // writes failed with ENOSPC
	refusedAt []string
}

// NewDiskFS is a disk of capacity bytes over fs.
func NewDiskFS(fs vfs.FS, capacity int64) *DiskFS {
	return &DiskFS{FS: fs, capacity: capacity, files: map[string]int64{}}
}

// Free is the space left.
func (d *DiskFS) Free() uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return uint64(max(d.capacity-d.used, 0))
}

// SetCapacity changes the capacity, as freeing space elsewhere on the disk
// would.
func (d *DiskFS) SetCapacity(n int64) {
	d.mu.Lock()
	d.capacity = n
	d.mu.Unlock()
}

// Stats reports the peak space taken, the peak taken by write-ahead logs,
// and how many writes were refused for lack of space (and which files).
func (d *DiskFS) Stats() (usedPeak, walPeak int64, refusals int, refused []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.usedPeak, d.walPeak, d.refusals, append([]string(nil), d.refusedAt...)
}

func isWAL(name string) bool { return strings.HasSuffix(name, ".log") }

// grow makes name's allocation at least size, or refuses with ENOSPC.
func (d *DiskFS) grow(name string, size int64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	delta := size - d.files[name]
	if delta <= 0 {
		return nil
	}
	if d.used+delta > d.capacity {
		d.refusals++
		if len(d.refusedAt) < 16 {
			d.refusedAt = append(d.refusedAt, name)
		}
		return &os.PathError{Op: "write", Path: name, Err: syscall.ENOSPC}
	}
	d.files[name] = size
	d.used += delta
	d.usedPeak = max(d.usedPeak, d.used)
	if isWAL(name) {
		d.walUsed += delta
		d.walPeak = max(d.walPeak, d.walUsed)
	}
	return nil
}

// drop forgets name's allocation.
func (d *DiskFS) drop(name string) {
	d.used -= d.files[name]
	if isWAL(name) {
		d.walUsed -= d.files[name]
	}
	delete(d.files, name)
}

// move carries oldname's allocation to newname.
func (d *DiskFS) move(oldname, newname string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := d.files[oldname]
	d.drop(oldname)
	d.drop(newname)
	d.files[newname] = n
	d.used += n
	if isWAL(newname) {
		d.walUsed += n
		d.walPeak = max(d.walPeak, d.walUsed)
	}
}

func (d *DiskFS) wrap(name string, f vfs.File, err error) (vfs.File, error) {
	if err != nil {
		return nil, err
	}
	return &diskFile{File: f, fs: d, name: name}, nil
}

func (d *DiskFS) Create(name string, c vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := d.FS.Create(name, c)
	if err == nil {
		d.mu.Lock()
		d.drop(name)
		d.mu.Unlock()
	}
	return d.wrap(name, f, err)
}

func (d *DiskFS) OpenReadWrite(name string, c vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	f, err := d.FS.OpenReadWrite(name, c, opts...)
	if err == nil {
		if fi, serr := f.Stat(); serr == nil {
			if gerr := d.grow(name, fi.Size()); gerr != nil {
				f.Close()
				return nil, gerr
			}
		}
	}
	return d.wrap(name, f, err)
}

func (d *DiskFS) ReuseForWrite(oldname, newname string, c vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := d.FS.ReuseForWrite(oldname, newname, c)
	if err == nil {
		d.move(oldname, newname)
	}
	return d.wrap(newname, f, err)
}

func (d *DiskFS) Rename(oldname, newname string) error {
	err := d.FS.Rename(oldname, newname)
	if err == nil {
		d.move(oldname, newname)
	}
	return err
}

func (d *DiskFS) Remove(name string) error {
	err := d.FS.Remove(name)
	if err == nil {
		d.mu.Lock()
		d.drop(name)
		d.mu.Unlock()
	}
	return err
}

func (d *DiskFS) RemoveAll(dir string) error {
	err := d.FS.RemoveAll(dir)
	if err == nil {
		d.mu.Lock()
		for name := range d.files {
			if name == dir || strings.HasPrefix(name, dir+"/") {
				d.drop(name)
			}
		}
		d.mu.Unlock()
	}
	return err
}

func (d *DiskFS) GetDiskUsage(string) (vfs.DiskUsage, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	free := uint64(max(d.capacity-d.used, 0))
	return vfs.DiskUsage{AvailBytes: free, TotalBytes: uint64(d.capacity), UsedBytes: uint64(d.used)}, nil
}

func (d *DiskFS) Unwrap() vfs.FS { return d.FS }

// diskFile counts what is written to a file.
type diskFile struct {
	vfs.File
	fs   *DiskFS
	name string
	pos  int64
}

func (f *diskFile) slow() {
	if f.fs.SlowTables > 0 && strings.HasSuffix(f.name, ".sst") {
		time.Sleep(f.fs.SlowTables)
	}
}

func (f *diskFile) Write(p []byte) (int, error) {
	f.slow()
	if err := f.fs.grow(f.name, f.pos+int64(len(p))); err != nil {
		return 0, err
	}
	n, err := f.File.Write(p)
	f.pos += int64(n)
	return n, err
}

func (f *diskFile) WriteAt(p []byte, off int64) (int, error) {
	f.slow()
	if err := f.fs.grow(f.name, off+int64(len(p))); err != nil {
		return 0, err
	}
	return f.File.WriteAt(p, off)
}

func (f *diskFile) Preallocate(off, length int64) error {
	if err := f.fs.grow(f.name, off+length); err != nil {
		return err
	}
	return f.File.Preallocate(off, length)
}

var (
	_ vfs.FS   = (*DiskFS)(nil)
	_ vfs.File = (*diskFile)(nil)
)
