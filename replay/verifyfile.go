package replay

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/referto/referto/events/checkpoint"
)

// OpenFile opens the export log at path for one pass (NewScanner), with
// progress, when set, made for its size in bytes; stop closes it.
func OpenFile(path string, progress func(size int64) Progress) (sc *Scanner, stop func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	var prog Progress = quiet{}
	if progress != nil {
		prog = progress(fi.Size())
	}
	return NewScanner(f, prog.Add), func() { prog.Done(); f.Close() }, nil
}

// FileOptions are what VerifyFile reads beside an export, as an auditor
// names them (referto verify's flags).
type FileOptions struct {
	// Checkpoint is the file of the signed checkpoint given with the log
	// (--checkpoint); the default is the one beside it (FindCheckpoint),
	// if there is one.
	Checkpoint string
	// Key is the trusted verifier key, or a file holding it (--key,
	// checkpoint.ReadVerifier); the default trusts none.
	Key string
	// Witness is a witness's key, or a file holding it (--witness,
	// checkpoint.ReadWitnessVerifier): the checkpoint must then carry its
	// cosignature.
	Witness string
	// Progress, when set, makes the progress report of reading size bytes
	// of the log.
	Progress func(size int64) Progress
}

// FileReport is VerifyFile's verdict on an export and the files beside it.
type FileReport struct {
	*Report
	// Log is the export's file; Events how many lines were read of it, in
	// Took.
	Log    string
	Events int
	Took   time.Duration
	// Beside is the checkpoint found beside the log when none was given
	// ("" when one was, or none was found).
	Beside string
	// Witness names the witness whose cosignature was asked for ("" when
	// none was); Cosigned is why the checkpoint does not carry it (nil
	// when it does).
	Witness  string
	Cosigned error
}

// VerifyFile verifies the export log at path (Verify) with the checkpoint
// and keys o names, and, when o names a witness, that the checkpoint is
// cosigned by it. An error is returned for what stops the verification
// from starting (a file or key that cannot be read); what it finds is in
// the report.
func VerifyFile(path string, o FileOptions) (*FileReport, error) {
	start := time.Now()
	r := &FileReport{Log: path}
	if beside, ok := FindCheckpoint(path); o.Checkpoint == "" && ok {
		o.Checkpoint, r.Beside = beside, beside
	}
	var vo VerifyOptions
	if o.Checkpoint != "" {
		b, err := os.ReadFile(o.Checkpoint)
		if err != nil {
			return nil, err
		}
		vo.Checkpoint = b
	}
	var witness note.Verifier
	var err error
	if vo.Verifier, witness, err = readKeys(o.Key, o.Witness); err != nil {
		return nil, err
	}
	if witness != nil {
		if len(vo.Checkpoint) == 0 {
			return nil, errors.New("--witness checks the checkpoint's cosignature: give the checkpoint (--checkpoint)")
		}
		r.Witness, r.Cosigned = witness.Name(), checkpoint.CheckCosigned(vo.Checkpoint, witness)
	}
	sc, stop, err := OpenFile(path, o.Progress)
	if err != nil {
		return nil, err
	}
	r.Report = Verify(sc, vo)
	stop()
	r.Events, r.Took = sc.Line(), time.Since(start)
	return r, nil
}

// Print writes the checkpoint found beside the log, whether it is cosigned
// as asked, and the log's report (Report.Print); ok is false unless the log
// verified and the checkpoint carries the cosignature asked for.
func (r *FileReport) Print(w io.Writer) (ok bool) {
	if r.Beside != "" {
		fmt.Fprintf(w, "checkpoint: %s\n", r.Beside)
	}
	switch {
	case r.Witness != "" && r.Cosigned == nil:
		fmt.Fprintf(w, "ok   the checkpoint is cosigned by witness %s\n", r.Witness)
	case r.Witness != "":
		fmt.Fprintf(w, "FAIL %v\n", r.Cosigned)
	}
	return r.Report.Print(w, r.Log, r.Events, r.Took) && r.Cosigned == nil
}

// readKeys reads the trusted verifier key and the witness key an auditor
// gives (--key, --witness), each the key itself or a file holding it; an
// empty one is nil.
func readKeys(key, witness string) (kv, wv note.Verifier, err error) {
	if key != "" {
		if kv, err = checkpoint.ReadVerifier(key); err != nil {
			return nil, nil, fmt.Errorf("--key %s: %w", key, err)
		}
	}
	if witness != "" {
		if wv, err = checkpoint.ReadWitnessVerifier(witness); err != nil {
			return nil, nil, fmt.Errorf("--witness %s: %w", witness, err)
		}
	}
	return kv, wv, nil
}
