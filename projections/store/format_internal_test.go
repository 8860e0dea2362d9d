package store

import (
	"encoding/binary"
	"path/filepath"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// TestAStoreOfAnotherFormatIsRebuilt: given a projection store that has
// applied part of a log, written by a referto of format 1 (no sys/format)
// or of another format, OpenVerified moves it aside to dir.stale-<time> and
// opens an empty one of this Format, which the runner rebuilds from the
// log; a store of this format, or an empty one, is opened as it is.
func TestAStoreOfAnotherFormatIsRebuilt(t *testing.T) {
	clock := func() time.Time { return time.Unix(1_800_000_000, 0) }
	for _, tc := range []struct {
		name   string
		format []byte // nil: no sys/format key
		moved  bool
	}{
		{"format 1, before the key", nil, true},
		{"another format", binary.BigEndian.AppendUint64(nil, Format+1), true},
		{"this format", binary.BigEndian.AppendUint64(nil, Format), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "projections")
			old, err := Open(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := old.db.Set(keyApplied, binary.BigEndian.AppendUint64(nil, 42), pebble.Sync); err != nil {
				t.Fatal(err)
			}
			if tc.format != nil {
				if err := old.db.Set(keyFormat, tc.format, pebble.Sync); err != nil {
					t.Fatal(err)
				}
			}
			if err := old.Close(); err != nil {
				t.Fatal(err)
			}

			st, aside, err := OpenVerified(dir, StoreOptions{Clock: clock})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			applied, err := st.Applied()
			if err != nil {
				t.Fatal(err)
			}
			if tc.moved {
				if want := dir + ".stale-1800000000"; aside != want || applied != 0 {
					t.Errorf("aside %q, applied %d; want the store moved to %s and an empty one", aside, applied, want)
				}
				if _, err := Open(aside, nil); err != nil {
					t.Errorf("the store moved aside does not open: %v", err)
				}
			} else if aside != "" || applied != 42 {
				t.Errorf("aside %q, applied %d; want the store kept as it was", aside, applied)
			}
			b, ok, err := st.get(keyFormat)
			if err != nil || !ok || binary.BigEndian.Uint64(b) != Format {
				t.Errorf("sys/format %x (present %v, %v), want %d", b, ok, err, Format)
			}
		})
	}
}
