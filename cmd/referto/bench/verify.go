package bench

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/referto/referto/api/node"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/replay"
)

// verify: referto verify of the exported log (Merkle root, signature,
// re-derivation) against a raw SHA-256 over the same bytes.
func (b *bencher) verify(data string, n int) error {
	fmt.Fprintf(b.out, "verify: %d events\n", n)
	logPath := filepath.Join(b.o.Dir, fmt.Sprintf("verify-%d.ndjson", n))
	if _, err := os.Stat(logPath); err != nil {
		if err := b.export(data, logPath); err != nil {
			return err
		}
	}
	info, err := os.Stat(logPath)
	if err != nil {
		return err
	}
	mb := float64(info.Size()) / (1 << 20)
	o, err := verifyOptions(node.Layout{Dir: data}, logPath)
	if err != nil {
		return err
	}
	var ref, raw []float64
	err = b.interleave(func() error {
		start := time.Now()
		if err := verifyLog(logPath, o); err != nil {
			return err
		}
		ref = append(ref, time.Since(start).Seconds())
		return nil
	}, func() error {
		start := time.Now()
		if err := hashFile(logPath); err != nil {
			return err
		}
		raw = append(raw, time.Since(start).Seconds())
		return nil
	})
	if err != nil {
		return err
	}
	mr, mw := median(ref), median(raw)
	b.add(Row{What: fmt.Sprintf("verify %d events (%.0f MB)", n, mb), Referto: fmt.Sprintf("%.2f s, %.0f MB/s", mr, mb/mr),
		Raw: fmt.Sprintf("sha256 %.2f s, %.0f MB/s", mw, mb/mw), Ratio: fmt.Sprintf("%.3f", mw/mr), Target: "≤ 5 s at 1M"})
	return nil
}

// export writes tournament "bench" of data to path and its signed
// checkpoint to path.checkpoint, as referto export does, each whole or
// not at all.
func (b *bencher) export(data, path string) error {
	layout := node.Layout{Dir: data}
	keys, err := checkpoint.LoadKeys(layout.Keys())
	if err != nil {
		return err
	}
	lg, closeLog, err := node.OpenLog(b.ctx, layout, node.LogOptions{})
	if err != nil {
		return err
	}
	defer closeLog()
	return replay.WriteFiles(path, replay.CheckpointFile(path), func(w io.Writer) (string, error) {
		cp, err := replay.Export(b.ctx, lg, "bench", w, replay.ExportOptions{})
		if err != nil {
			return "", err
		}
		return checkpoint.Sign(cp, keys.Signer)
	})
}

// verifyOptions are what referto verify --log path --key <data's verifier
// key> checks with: the checkpoint beside the log, the key.
func verifyOptions(layout node.Layout, path string) (replay.VerifyOptions, error) {
	var o replay.VerifyOptions
	pub, err := os.ReadFile(layout.CheckpointPub())
	if err == nil {
		o.Verifier, err = checkpoint.NewVerifier(string(pub))
	}
	if err == nil {
		o.Checkpoint, err = os.ReadFile(replay.CheckpointFile(path))
	}
	return o, err
}

// verifyLog is referto verify: the verdict must be OK.
func verifyLog(path string, o replay.VerifyOptions) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	rep := replay.Verify(replay.NewScanner(f, nil), o)
	if c, bad := rep.First(); bad || !rep.OK() {
		return fmt.Errorf("verify %s: line %d: %s", path, c.Line, c.What)
	}
	return nil
}

func hashFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	_, err = io.Copy(h, bufio.NewReaderSize(f, 1<<20))
	return err
}
