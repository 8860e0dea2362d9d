package replay

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/projections/ranking"
)

// Keyring is a set of trusted verifier keys (a season's venues'), found by
// the name a signature claims.
type Keyring map[string][]note.Verifier

// ReadKeyring reads verifier keys, one a line (blank lines and lines
// starting with # skipped), from the file path.
func ReadKeyring(path string) (Keyring, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	k := Keyring{}
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		v, err := checkpoint.NewVerifier(line)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, i+1, err)
		}
		k[v.Name()] = append(k[v.Name()], v)
	}
	if len(k) == 0 {
		return nil, fmt.Errorf("%s holds no verifier key", path)
	}
	return k, nil
}

// Verifier returns the key a signed note claims to be signed by: the one
// of its name and key hash (the first 4 bytes of its first signature), or
// of its name alone, else nil. Nothing is verified here.
func (k Keyring) Verifier(signed []byte) note.Verifier {
	_, name, _ := checkpoint.OpenUnverified(signed)
	keys := k[name]
	if len(keys) == 0 {
		return nil
	}
	if i := bytes.Index(signed, []byte("\n\n— "+name+" ")); i >= 0 {
		sig, _, _ := strings.Cut(string(signed[i+len("\n\n— "+name+" "):]), "\n")
		if b, err := base64.StdEncoding.DecodeString(sig); err == nil && len(b) >= 4 {
			for _, v := range keys {
				if v.KeyHash() == binary.BigEndian.Uint32(b) {
					return v
				}
			}
		}
	}
	return keys[0]
}

// SeasonOptions are what VerifySeason reads and trusts.
type SeasonOptions struct {
	// Dir holds the season's exports: every <name>.ndjson with its signed
	// checkpoint beside it.
	Dir string
	// Keys are the trusted keys; a tournament whose checkpoint no key of
	// theirs signed fails.
	Keys Keyring
	// Workers is how many tournaments are verified at once (default
	// GOMAXPROCS).
	Workers int
	// Thresholds, when set, ranks the verified tournaments of its season
	// (with Registry's events, if any).
	Thresholds *ranking.Thresholds
	Registry   *ranking.Registry
}

// SeasonTournament is one export's verdict.
type SeasonTournament struct {
	File   string
	Events int
	Bytes  int64
	// Report is the verification's, without its State (let go as soon as
	// Ranked was read from it: a season's states do not fit in memory).
	Report *Report
	// Ranked is what the ranking reads of a verified tournament.
	Ranked ranking.Tournament
	// Failure is the first failed check ("" when verified).
	Failure string
}

// SeasonReport is what VerifySeason found.
type SeasonReport struct {
	Tournaments []SeasonTournament
	// Failed lists the exports that failed, by file name.
	Failed     []SeasonTournament
	Events     int64
	Bytes      int64
	Took       time.Duration
	Ranking    *ranking.Ranking
	RankedFrom []ranking.Tournament
}

// OK reports whether every export verified.
func (r *SeasonReport) OK() bool { return len(r.Failed) == 0 && len(r.Tournaments) > 0 }

// SeasonFiles lists the exports of a season directory, by name.
func SeasonFiles(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.ndjson"))
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	return files, nil
}

// VerifySeason verifies every export of a season directory, o.Workers at a
// time, each as Verify does with the key its checkpoint names, and ranks
// the tournaments that verified: a tournament that fails is named and
// counts for nothing.
func VerifySeason(ctx context.Context, o SeasonOptions) (*SeasonReport, error) {
	start := time.Now()
	files, err := SeasonFiles(o.Dir)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s holds no export (*.ndjson)", o.Dir)
	}
	if o.Workers < 1 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	out := &SeasonReport{Tournaments: make([]SeasonTournament, len(files))}
	// The largest exports first, so that no CPU is left with a large one
	// while the others have finished.
	order := make([]int, len(files))
	size := make([]int64, len(files))
	for i, f := range files {
		order[i] = i
		if fi, err := os.Stat(f); err == nil {
			size[i] = fi.Size()
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(size[b], size[a]) })
	next := make(chan int)
	var wg sync.WaitGroup
	for range o.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte // one export at a time, read into the same memory
			for i := range next {
				out.Tournaments[i], buf = verifyOne(files[i], o.Keys, buf)
			}
		}()
	}
	for _, i := range order {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, t := range out.Tournaments {
		out.Events += int64(t.Events)
		out.Bytes += t.Bytes
		if t.Failure != "" {
			out.Failed = append(out.Failed, t)
			continue
		}
		out.RankedFrom = append(out.RankedFrom, t.Ranked)
	}
	if o.Thresholds != nil {
		out.Ranking = ranking.Compute(o.Thresholds, out.RankedFrom, o.Registry)
	}
	out.Took = time.Since(start)
	return out, nil
}

// Thresholds chooses the thresholds the verified tournaments are ranked
// with: those of the file named, when one is, else those shipped for the
// season the tournaments name (the first that names one; nil, with no
// error, when none does). Without a file, an error says that no thresholds
// are shipped for that season: the season still verifies, unranked.
func (r *SeasonReport) Thresholds(file string) (*ranking.Thresholds, error) {
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		return ranking.ParseThresholds(file, b)
	}
	for _, t := range r.RankedFrom {
		if t.Season != "" {
			return ranking.Season(t.Season)
		}
	}
	return nil, nil
}

// Rank ranks the verified tournaments (RankedFrom) with th into Ranking,
// and returns how long that took; a nil th ranks nothing.
func (r *SeasonReport) Rank(th *ranking.Thresholds, reg *ranking.Registry) time.Duration {
	start := time.Now()
	if th != nil {
		r.Ranking = ranking.Compute(th, r.RankedFrom, reg)
	}
	return time.Since(start)
}

// PrintRanking writes the season's ranking, when there is one: what it
// was computed from and in how long (took), how many tournaments of each
// type count and how many results of each a player sums, and the first ten
// rows.
func (r *SeasonReport) PrintRanking(w io.Writer, took time.Duration) {
	rk := r.Ranking
	if rk == nil {
		return
	}
	fmt.Fprintf(w, "ranking %s (thresholds %s, sha256 %s): %d players, %d for review, %d placings without a national id (%s)\n",
		rk.Season, rk.Thresholds, rk.ThresholdsSHA256[:16], len(rk.Rows), len(rk.Review), len(rk.Unlinked), took.Round(time.Millisecond))
	for _, tc := range rk.Types {
		if tc.MaxRounds > 0 {
			fmt.Fprintf(w, "  %-16s %4d tournaments count; each player's best results up to %d rounds\n", tc.Type, tc.Tournaments, tc.MaxRounds)
		} else {
			fmt.Fprintf(w, "  %-16s %4d tournaments count; each player's best %d\n", tc.Type, tc.Tournaments, tc.Best)
		}
	}
	for _, row := range rk.Rows[:min(10, len(rk.Rows))] {
		fmt.Fprintf(w, "  %3d. %-8s %-28s %10.3f\n", row.Rank, row.NationalID, row.Name, row.Score)
	}
}

// verifyOne verifies one export with its checkpoint beside it, reading a
// small one into buf (grown as needed, and returned for the next): nothing
// of the export's bytes outlives the verification but what the ranking
// reads of it, decoded.
func verifyOne(file string, keys Keyring, buf []byte) (SeasonTournament, []byte) {
	st := SeasonTournament{File: file}
	fail := func(format string, args ...any) (SeasonTournament, []byte) {
		st.Failure = fmt.Sprintf(format, args...)
		return st, buf
	}
	cpFile, ok := FindCheckpoint(file)
	if !ok {
		return fail("no signed checkpoint beside it")
	}
	cp, err := os.ReadFile(cpFile)
	if err != nil {
		return fail("%v", err)
	}
	v := keys.Verifier(cp)
	if v == nil {
		_, name, _ := checkpoint.OpenUnverified(cp)
		return fail("its checkpoint is signed by %q, no trusted key", name)
	}
	// An export of a season is small: read whole, its lines are cut in
	// place; a large one is read as a stream.
	var sc *Scanner
	if fi, err := os.Stat(file); err == nil && fi.Size() <= wholeFile {
		f, err := os.Open(file)
		if err != nil {
			return fail("%v", err)
		}
		if int64(cap(buf)) < fi.Size() {
			buf = make([]byte, fi.Size()+fi.Size()/4)
		}
		n, err := io.ReadFull(f, buf[:fi.Size()])
		f.Close()
		if err != nil {
			return fail("%v", err)
		}
		sc, st.Bytes = NewScannerBytes(buf[:n], nil), int64(n)
		sc.DecodeInline() // every CPU verifies an export of its own
	} else {
		f, err := os.Open(file)
		if err != nil {
			return fail("%v", err)
		}
		defer f.Close()
		cr := &countingReader{r: f}
		sc = NewScanner(cr, nil)
	}
	st.Report = Verify(sc, VerifyOptions{Checkpoint: cp, Verifier: v})
	st.Events = sc.Line()
	if cr, ok := sc.r.(*countingReader); ok {
		st.Bytes = cr.n
	}
	if c, bad := st.Report.First(); bad {
		// A scan stopped early may leave a decoder still reading the
		// buffer: the next export gets a new one.
		st.Report.State, buf = nil, nil
		return fail("%s%s", where(c, ": "), c.What)
	}
	if st.Report.State == nil {
		buf = nil
		return fail("the log does not fold")
	}
	st.Ranked = ranking.FromState(st.Report.State)
	st.Report.State = nil
	return st, buf
}

// wholeFile is the largest export verifyOne reads whole.
const wholeFile = 16 << 20

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// RawRead reads every export of a season directory as bytes, o.Workers
// files at a time, and nothing more: the floor VerifySeason is measured
// against. It returns the bytes read.
func RawRead(dir string, workers int) (int64, error) {
	files, err := SeasonFiles(dir)
	if err != nil {
		return 0, err
	}
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	sizes := make([]int64, len(files))
	errs := make([]error, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 1<<20)
			for i := range next {
				f, err := os.Open(files[i])
				if err != nil {
					errs[i] = err
					continue
				}
				for {
					n, err := f.Read(buf)
					sizes[i] += int64(n)
					if err != nil {
						break
					}
				}
				f.Close()
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	var total int64
	for i := range files {
		if errs[i] != nil {
			return 0, errs[i]
		}
		total += sizes[i]
	}
	return total, nil
}

// Print writes the verdict of a season: each export that failed,
// named, then the totals.
func (r *SeasonReport) Print(w io.Writer) bool {
	for _, t := range r.Failed {
		fmt.Fprintf(w, "FAIL %s: %s\n", filepath.Base(t.File), t.Failure)
	}
	if !r.OK() {
		names := make([]string, len(r.Failed))
		for i, t := range r.Failed {
			names[i] = filepath.Base(t.File)
		}
		fmt.Fprintf(w, "verdict: FAILED: %d of %d tournaments do not verify: %s\n", len(r.Failed), len(r.Tournaments), strings.Join(names, ", "))
		return false
	}
	fmt.Fprintf(w, "verdict: OK (%d tournaments, %d events, %.0f MB, %s)\n", len(r.Tournaments), r.Events, float64(r.Bytes)/1e6, r.Took.Round(time.Millisecond))
	return true
}
