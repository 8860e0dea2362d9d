package api_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/referto/referto/api/node"
	"github.com/referto/referto/commands/ledger"
)

// smallDisk mounts a tmpfs of size bytes for the test and returns a bind
// mount of it (which can be made read-only while files are open), or skips
// saying why (mounting needs root or CAP_SYS_ADMIN).
func smallDisk(t *testing.T, size int) (tmpfs, data string) {
	t.Helper()
	tmpfs, data = filepath.Join(t.TempDir(), "disk"), filepath.Join(t.TempDir(), "data")
	for _, d := range []string{tmpfs, data} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", tmpfs).CombinedOutput(); err != nil {
		t.Skipf("disk-fault test skipped: cannot mount a small tmpfs here (%v: %s); it needs root or CAP_SYS_ADMIN", err, out)
	}
	t.Cleanup(func() { umount(t, tmpfs) })
	if out, err := exec.Command("mount", "--bind", tmpfs, data).CombinedOutput(); err != nil {
		t.Fatalf("bind mount: %v %s", err, out)
	}
	t.Cleanup(func() { umount(t, data) })
	return tmpfs, data
}

func umount(t *testing.T, dir string) {
	if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
		t.Errorf("umount %s: %v %s", dir, err, out)
	}
}

// fill writes a file until the filesystem has less than leave bytes free
// and returns its path.
func fill(t *testing.T, dir string, leave uint64) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for {
		var st syscall.Statfs_t
		if err := syscall.Statfs(dir, &st); err != nil {
			t.Fatal(err)
		}
		if st.Bavail*uint64(st.Bsize) < leave {
			return path
		}
		if _, err := f.Write(buf); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDiskFaultsRefuseAndRecover runs a node whose data directory is on a
// small tmpfs. With the disk nearly full, then with the filesystem
// remounted read-only, commands are refused with 503 naming the cause and
// the log is unchanged; once space returns, or the filesystem is writable
// again, the same commands are accepted, once each.
func TestDiskFaultsRefuseAndRecover(t *testing.T) {
	if testing.Short() {
		t.Skip("mounts a tmpfs: skipped in -short mode")
	}
	disk, data := smallDisk(t, 128<<20)
	var watched atomic.Pointer[string]
	watched.Store(&data)
	const reserve = 64 << 20 // below the default, which a 128 MiB disk could not hold: smaller memtables
	s := &stack{t: t, dir: data, opts: node.NodeOptions{DiskReserve: reserve, Disk: func() (ledger.DiskState, error) { return node.StatDisk(*watched.Load()) }}}
	s.start()
	t.Cleanup(s.stop)
	arb := s.create("disk", "rtu")
	for i := range 20 {
		s.must(201, "POST", "/v1/tournaments/disk/commands", arb, fmt.Sprintf(`{"type":"RegisterPlayer","player":"a%d","name":"A"}`, i))
	}
	refused := func(why, want string, from int) {
		t.Helper()
		before := s.logSize()
		for i := from; i < from+5; i++ {
			r := s.do("POST", "/v1/tournaments/disk/commands", arb, fmt.Sprintf(`{"type":"RegisterPlayer","player":"b%d","name":"B"}`, i), "Idempotency-Key", fmt.Sprintf("b%d", i))
			if r.status != 503 || !strings.Contains(string(r.body), want) || r.header.Get("Content-Type") != "application/problem+json" {
				t.Fatalf("%s: %d %s, want 503 saying %q", why, r.status, r.body, want)
			}
		}
		if after := s.logSize(); after != before {
			t.Fatalf("%s: the log went from %d to %d", why, before, after)
		}
		// Reads still work.
		s.must(200, "GET", "/v1/tournaments/disk/standings", "", nil)
	}
	accepted := func(from int) {
		t.Helper()
		for i := from; i < from+5; i++ {
			s.must(201, "POST", "/v1/tournaments/disk/commands", arb, fmt.Sprintf(`{"type":"RegisterPlayer","player":"b%d","name":"B"}`, i), "Idempotency-Key", fmt.Sprintf("b%d", i))
		}
	}

	filler := fill(t, disk, reserve/2)
	refused("a nearly full disk", "below the reserve", 0)
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	accepted(0)

	// Linux will not remount a filesystem read-only while files on it are
	// open for writing, but turns one read-only by itself on I/O errors
	// (errors=remount-ro). The guard reads that from statfs: point it at a
	// filesystem that is really read-only, then back.
	ro := filepath.Join(t.TempDir(), "ro")
	if err := os.MkdirAll(ro, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m,ro", "tmpfs", ro).CombinedOutput(); err != nil {
		t.Fatalf("mount read-only tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { umount(t, ro) })
	watched.Store(&ro)
	refused("a read-only filesystem", "read-only", 5)
	watched.Store(&data)
	accepted(5)
	players := s.must(200, "GET", "/v1/tournaments/disk/players", "", nil).json(t)["players"].([]any)
	if len(players) != 30 {
		t.Errorf("%d players after recovery, want 30 (each refused command accepted once)", len(players))
	}
}

// TestCorruptProjectionStoreIsRebuilt corrupts the Pebble store of a
// stopped node and restarts it. Bytes changed in its largest table are
// detected (block checksums), the store moved aside and rebuilt from the
// log; bytes changed in its MANIFEST Pebble reads past by itself (it keeps
// the last consistent version, whose applied seq the runner resumes from).
// Either way the node serves what it served before and takes commands.
func TestCorruptProjectionStoreIsRebuilt(t *testing.T) {
	t.Parallel()
	for _, target := range []string{".sst", "MANIFEST"} {
		mustDetect := target == ".sst"
		t.Run(target, func(t *testing.T) {
			s := newStack(t)
			arb := s.create("c", "rtu")
			for i := range 40 {
				s.must(201, "POST", "/v1/tournaments/c/commands", arb, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%d","name":"Giocatore %d"}`, i, i))
			}
			want := s.must(200, "GET", "/v1/tournaments/c/players", "", nil).body
			s.stop()

			dir := filepath.Join(s.dir, "projections")
			var victim string
			var size int64
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				info, _ := e.Info()
				if strings.Contains(e.Name(), target) && info.Size() > size {
					victim, size = filepath.Join(dir, e.Name()), info.Size()
				}
			}
			if victim == "" {
				t.Fatalf("no %s file in %s", target, dir)
			}
			f, err := os.OpenFile(victim, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteAt([]byte(strings.Repeat("\xde\xad\xbe\xef", 16)), size/2); err != nil {
				t.Fatal(err)
			}
			f.Close()

			s.start()
			if s.node.Quarantined == "" && mustDetect {
				t.Fatalf("a corrupt %s was not detected", target)
			}
			if s.node.Quarantined != "" {
				if _, err := os.Stat(s.node.Quarantined); err != nil {
					t.Errorf("the corrupt store was not kept aside: %v", err)
				}
			}
			if got := s.must(200, "GET", "/v1/tournaments/c/players", "", nil).body; !bytes.Equal(got, want) {
				t.Errorf("after the rebuild the entry list differs:\n%s\nwant\n%s", got, want)
			}
			s.must(201, "POST", "/v1/tournaments/c/commands", arb, `{"type":"RegisterPlayer","player":"late","name":"Late"}`)
		})
	}
}
