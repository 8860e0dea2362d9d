package node

import (
	"fmt"

	"github.com/referto/referto/events/eventlog"
	"github.com/referto/referto/projections/store"
)

// LogDiskHeadroom is what the log may still write once the guard refuses
// commands: the largest commit (eventlog.DefaultMaxPayload; a few in
// flight are far smaller) and JetStream's block index and stream state.
const LogDiskHeadroom = eventlog.DefaultMaxPayload + 8<<20

// DefaultDiskReserve is the free space below which commands are refused:
// the worst case of the projection store with its default memtables
// (store.DiskHeadroom: write-ahead logs, preallocated and recycled, and
// memtables being flushed: 342 MiB) and the log's (LogDiskHeadroom): 381 MiB. JetStream
// and Pebble both treat a write that fails for lack of space as a fault, so
// the ledger stops taking commands while there is still room for
// everything already accepted to be applied, and resumes by itself once
// space returns. A smaller reserve (NodeOptions.DiskReserve) gets smaller
// memtables (MemTableSizeFor).
const DefaultDiskReserve = store.DefaultDiskHeadroom + LogDiskHeadroom

// MemTableSizeFor is the memtable size of a projection store that fits,
// with the log, in a disk reserve of reserve bytes; an error names the
// least reserve that fits.
func MemTableSizeFor(reserve uint64) (uint64, error) {
	if reserve > LogDiskHeadroom {
		if size, ok := store.MemTableSizeFor(reserve - LogDiskHeadroom); ok {
			return size, nil
		}
	}
	least := LogDiskHeadroom + store.DiskHeadroom(store.MinMemTableSize)
	return 0, fmt.Errorf("node: a disk reserve of %d MiB is less than the log and the projections can need once commands are refused: at least %d MiB",
		reserve>>20, (least+1<<20-1)>>20)
}
