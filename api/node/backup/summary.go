package backup

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// PrintTaken writes what Take wrote, as referto backup reports it: the
// stream and sequences of the snapshot, the tournaments, the season
// registry (a hub's) and keys the file
// at path (size bytes) holds, where it came from (the server at from, or
// the directory data read directly when from is "") and how long it took.
func (b *Archive) PrintTaken(w io.Writer, path string, size int64, from, data string, took time.Duration) {
	src := "directly from " + data
	if from != "" {
		src = "from the server at " + from
	}
	m := b.Manifest
	fmt.Fprintf(w, "backup of stream %s, sequences %d..%d (%d commits), %s,%s%s and %s taken %s: %s, %s in %s\n",
		m.Stream, m.FirstSeq, m.LastSeq, m.Msgs, describeTournaments(m.Tournaments), describeRegistry(m.Registry), describeWorkbooks(b.Workbooks), describeKeys(b.Keys), src, path,
		byteSize(size), took.Round(time.Millisecond))
}

// PrintRestored writes what Restore did, as referto restore reports it:
// what the backup file at path held, restored into target in took, and
// what the restored log was checked against.
func (b *Archive) PrintRestored(w io.Writer, path, target string, took time.Duration) {
	m := b.Manifest
	fmt.Fprintf(w, "restored stream %s, sequences %d..%d (%d commits),%s%s and %s from %s (taken %s) into %s in %s\n",
		m.Stream, m.FirstSeq, m.LastSeq, m.Msgs, describeRegistry(m.Registry), describeWorkbooks(b.Workbooks), describeKeys(b.Keys), path, m.Created.Format(time.RFC3339), target, took.Round(time.Millisecond))
	fmt.Fprintf(w, "checked against the backup's manifest: stream sequences %d..%d; the Merkle roots of %s",
		m.FirstSeq, m.LastSeq, describeTournaments(m.Tournaments))
	if r := m.Registry; r == nil {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "the projections are rebuilt from the log when referto serve first starts on it")
	} else {
		if r.Unfolded == "" {
			fmt.Fprintf(w, "; the season registry's sequences %d..%d and the Merkle root of its %d events\n", r.FirstSeq, r.LastSeq, r.Events)
		} else {
			fmt.Fprintf(w, "; the season registry's sequences %d..%d (its log does not fold, as at the hub)\n", r.FirstSeq, r.LastSeq)
		}
		fmt.Fprintln(w, "the projections are rebuilt from the log when referto hub first starts on it")
	}
}

// describeRegistry is " the season registry (…)," for a hub's backup,
// nothing for a venue's.
func describeRegistry(r *RegistryCopy) string {
	switch {
	case r == nil:
		return ""
	case r.Unfolded != "":
		return fmt.Sprintf(" the season registry (stream %s, sequences %d..%d, set aside: its log does not fold),", r.Stream, r.FirstSeq, r.LastSeq)
	case r.Events == 1:
		return fmt.Sprintf(" the season registry (stream %s, sequences %d..%d, 1 event),", r.Stream, r.FirstSeq, r.LastSeq)
	}
	return fmt.Sprintf(" the season registry (stream %s, sequences %d..%d, %d events),", r.Stream, r.FirstSeq, r.LastSeq, r.Events)
}

// describeWorkbooks is " 3 club workbooks," for a hub's
// backup that holds some, nothing otherwise.
func describeWorkbooks(wbs []WorkbookFile) string {
	switch len(wbs) {
	case 0:
		return ""
	case 1:
		return " 1 club workbook (" + wbs[0].Name + "),"
	}
	return fmt.Sprintf(" %d club workbooks,", len(wbs))
}

func describeTournaments(ts []Tournament) string {
	var events uint64
	for _, t := range ts {
		events += t.Events
	}
	switch len(ts) {
	case 0:
		return "no tournament"
	case 1:
		return fmt.Sprintf("1 tournament (%s, %d events)", ts[0].ID, events)
	}
	return fmt.Sprintf("%d tournaments (%d events)", len(ts), events)
}

func describeKeys(keys []KeyFile) string {
	names := make([]string, 0, len(keys))
	for _, k := range keys {
		names = append(names, k.Name)
	}
	slices.Sort(names)
	return "the keys (" + strings.Join(names, ", ") + ")"
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
