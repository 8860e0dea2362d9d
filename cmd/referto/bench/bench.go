package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"text/tabwriter"
	"time"

	"github.com/referto/referto/api"
	"github.com/referto/referto/api/node"
)

// Pairs are the pairs Run measures, in the order it measures them.
var Pairs = []string{"ingest", "rebuild", "verify", "reads"}

// Options configures Run; referto bench's flags fill it.
type Options struct {
	// Rounds is how many rounds of each pair run, interleaved.
	Rounds int
	// Ingest is the commands (and raw publishes) per ingest round, sent by
	// Clients concurrent clients, each on its own tournament.
	Ingest, Clients int
	// Events is the size of the log rebuilt and verified; with Scale a
	// tenth and a hundredth of it are measured too (the scale curve).
	Events int
	Scale  bool
	// Players is the size of the tournament whose standings are read,
	// Rate times a second for ReadFor.
	Players, Rate int
	ReadFor       time.Duration
	// Dir keeps the generated logs between runs; the default is a
	// temporary directory, removed at the end of the run.
	Dir string
	// Only lists the pairs to run (Pairs); empty runs them all.
	Only []string
	// Out receives each round's figures and each row as it is measured.
	Out io.Writer
	// Progress, when set, makes a progress report for generating a log of
	// max events.
	Progress func(max int64, desc string) Progress
	// CPUProfile and MemProfile, when set, are where the run's CPU profile
	// (go tool pprof) and allocation profile (go tool pprof
	// -sample_index=alloc_space) are written.
	CPUProfile, MemProfile string
}

// Progress reports the advance of a long job.
type Progress interface {
	Add(n int)
	Done()
}

// Row is one line of the final table: a measure, referto's figure, the
// raw one for the same work, their ratio and the target.
type Row struct {
	What, Referto, Raw, Ratio, Target string
}

// Run measures referto against the storage underneath it on this
// machine, in one run: each referto figure beside the raw JetStream or
// Pebble (or SHA-256) figure for the same work, interleaved round by round
// (A B, then B A, …) so that drift in the machine falls on both, with the
// medians and their ratio. It returns the table's rows.
func Run(ctx context.Context, o Options) (rows []Row, err error) {
	if o.Dir == "" {
		d, err := os.MkdirTemp("", "referto-bench")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		o.Dir = d
	}
	b := &bencher{ctx: ctx, o: o, out: o.Out}
	if b.out == nil {
		b.out = io.Discard
	}
	stop, err := o.profile()
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, stop()) }()
	run := map[string]bool{}
	for _, p := range o.Only {
		run[p] = true
	}
	if len(o.Only) == 0 {
		for _, p := range Pairs {
			run[p] = true
		}
	}
	if run["ingest"] {
		if err := b.ingest(o.Ingest, o.Clients); err != nil {
			return nil, fmt.Errorf("ingest: %w", err)
		}
	}
	if run["rebuild"] || run["verify"] {
		if err := b.logs(run["rebuild"], run["verify"]); err != nil {
			return nil, err
		}
	}
	if run["reads"] {
		// About one registration, three check-ins and three quarters of a
		// report per player over three rounds.
		data, err := b.generated(fmt.Sprintf("reads-%d", o.Players), o.Players*5+20, 3)
		if err != nil {
			return nil, fmt.Errorf("generate the read tournament: %w", err)
		}
		if err := b.reads(data, o.Rate, o.ReadFor); err != nil {
			return nil, fmt.Errorf("reads: %w", err)
		}
	}
	return b.rows, nil
}

// Short sets the sizes of a run of seconds, not minutes: small enough for
// CI to keep the benchmarks from rotting, too small for the figures to
// mean anything.
func (o *Options) Short() {
	o.Rounds, o.Ingest, o.Events, o.Players, o.ReadFor, o.Rate = 2, 200, 3000, 60, 2*time.Second, 200
}

// PrintTable writes the rows Run returned as the final table.
func PrintTable(w io.Writer, rows []Row) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "measure\treferto\traw\tratio\ttarget")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.What, r.Referto, r.Raw, r.Ratio, r.Target)
	}
	return tw.Flush()
}

// profile starts the CPU profile; stop ends it and writes the allocation
// profile.
func (o Options) profile() (stop func() error, err error) {
	stopCPU := func() error { return nil }
	if o.CPUProfile != "" {
		f, err := os.Create(o.CPUProfile)
		if err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return nil, err
		}
		stopCPU = func() error { pprof.StopCPUProfile(); return f.Close() }
	}
	return func() error {
		if o.MemProfile == "" {
			return stopCPU()
		}
		runtime.GC() // the profile counts what was allocated up to the last collection
		f, err := os.Create(o.MemProfile)
		if err == nil {
			err = errors.Join(pprof.Lookup("allocs").WriteTo(f, 0), f.Close())
		}
		if err != nil {
			err = fmt.Errorf("bench: heap profile: %w", err)
		}
		return errors.Join(err, stopCPU())
	}, nil
}

// logs rebuilds and verifies the generated logs.
func (b *bencher) logs(rebuild, verify bool) error {
	sizes := []int{b.o.Events}
	if b.o.Scale {
		sizes = []int{b.o.Events / 100, b.o.Events / 10, b.o.Events}
	}
	for _, n := range sizes {
		if n < 1000 {
			continue
		}
		data, err := b.generated(fmt.Sprintf("log-%d", n), n, 20)
		if err != nil {
			return fmt.Errorf("generate %d events: %w", n, err)
		}
		if rebuild {
			if err := b.rebuild(data, n); err != nil {
				return fmt.Errorf("rebuild: %w", err)
			}
		}
		if verify {
			if err := b.verify(data, n); err != nil {
				return fmt.Errorf("verify: %w", err)
			}
		}
	}
	return nil
}

// bencher runs the pairs and collects their figures.
type bencher struct {
	ctx  context.Context
	o    Options
	out  io.Writer
	rows []Row
}

func (b *bencher) add(r Row) {
	b.rows = append(b.rows, r)
	fmt.Fprintf(b.out, "  %s: referto %s, raw %s, ratio %s\n", r.What, r.Referto, r.Raw, r.Ratio)
}

// interleave runs a and c Rounds times, alternating which goes first.
func (b *bencher) interleave(a, c func() error) error {
	for i := range b.o.Rounds {
		first, second := a, c
		if i%2 == 1 {
			first, second = c, a
		}
		if err := first(); err != nil {
			return err
		}
		if err := second(); err != nil {
			return err
		}
	}
	return nil
}

// benchAdmin is the administrator token of the nodes bench starts.
const benchAdmin = "bench-admin"

// serve starts a node on data with the API over it, waits until it is
// ready and serves it on 127.0.0.1 until stop.
func (b *bencher) serve(data string) (*node.Node, string, func(), error) {
	n, a, err := api.Start(b.ctx, node.NodeOptions{Data: data, Logger: slog.New(slog.DiscardHandler)},
		api.Options{AdminTokenSHA256: api.TokenHash(benchAdmin)})
	if err != nil {
		return nil, "", nil, err
	}
	err = n.Runner.WaitReady(b.ctx)
	var l net.Listener
	if err == nil {
		l, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		n.Close()
		return nil, "", nil, err
	}
	srv := &http.Server{Handler: a.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	return n, "http://" + l.Addr().String(), func() { _ = srv.Close(); n.Close() }, nil
}

// generated returns a data directory holding a generated tournament "bench"
// of about n events over the given rounds, generating it once per Dir
// (name.done beside it says it is whole).
func (b *bencher) generated(name string, n, rounds int) (string, error) {
	data, done := filepath.Join(b.o.Dir, name), filepath.Join(b.o.Dir, name+".done")
	if _, err := os.Stat(done); err == nil {
		return data, nil
	}
	_ = os.RemoveAll(data)
	fmt.Fprintf(b.out, "generating %s (about %d events)…\n", name, n)
	o := GenerateOptions{Data: data, Events: n, Rounds: rounds, Tournament: "bench", Seed: 1, SyncInterval: time.Second}
	if b.o.Progress != nil {
		p := b.o.Progress(int64(n), "generate")
		defer p.Done()
		o.Progress = p.Add
	}
	if _, err := Generate(b.ctx, o); err != nil {
		return "", err
	}
	return data, os.WriteFile(done, nil, 0o600)
}
