package replay

import (
	"bufio"
	"io"
	"os"
	"strings"

	"github.com/referto/referto/events/atomicfile"
)

// CheckpointFile is where an export's signed checkpoint is kept beside its
// log: the log's name followed by .checkpoint.
func CheckpointFile(log string) string { return log + ".checkpoint" }

// FindCheckpoint finds the signed checkpoint beside the export log, if
// there is one: CheckpointFile's, or (where exports made before it wrote
// it) the log's name with .checkpoint for .ndjson.
func FindCheckpoint(log string) (string, bool) {
	for _, beside := range []string{CheckpointFile(log), strings.TrimSuffix(log, ".ndjson") + ".checkpoint"} {
		if _, err := os.Stat(beside); beside != log && err == nil {
			return beside, true
		}
	}
	return "", false
}

// WriteFiles writes an export to the file log (mode 0600) and its signed
// checkpoint to the file cp (mode 0644): fill writes the log's lines and
// returns the checkpoint. Each is written beside its destination and
// takes its place (atomicfile) only once both are whole, so a failed
// export never leaves a log or a checkpoint that looks complete.
func WriteFiles(log, cp string, fill func(io.Writer) (checkpoint string, err error)) error {
	f, err := atomicfile.Create(log, 0o600)
	if err != nil {
		return err
	}
	defer f.Abort()
	bw := bufio.NewWriterSize(f, 1<<20)
	note, err := fill(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return err
	}
	c, err := atomicfile.Create(cp, 0o644)
	if err != nil {
		return err
	}
	defer c.Abort()
	if _, err := c.WriteString(note); err != nil {
		return err
	}
	if err := f.Commit(); err != nil {
		return err
	}
	return c.Commit()
}
