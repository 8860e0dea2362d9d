package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	natsjs "github.com/nats-io/nats.go/jetstream"

	"github.com/referto/referto/api/client"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
)

// ingest: RegisterPlayer over HTTP, k clients on k tournaments, fsync per
// write, against raw synchronous publishes of the same stored message size
// to the same embedded server with the same sync policy and concurrency.
func (b *bencher) ingest(n, k int) error {
	fmt.Fprintf(b.out, "durable ingest: %d commands per round, %d clients on %d tournaments, fsync per write\n", n, k, k)
	data, err := os.MkdirTemp(b.o.Dir, "ingest-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(data)
	node, url, stop, err := b.serve(data)
	if err != nil {
		return err
	}
	defer stop()
	r := &ingestRun{b: b, n: n, k: k, admin: newAdmin(url, k)}
	if err := r.tournaments(); err != nil {
		return err
	}
	if r.js, err = natsjs.New(node.Conn); err != nil {
		return err
	}
	if err := r.streams(); err != nil {
		return err
	}
	defer r.stopFollowers()
	if err := b.interleave(r.refRound, r.rawRound); err != nil {
		return err
	}
	r.addRows()
	return nil
}

// newAdmin is the administrator's client of the node at url, keeping a
// connection for each of k clients.
func newAdmin(url string, k int) *client.Client {
	return &client.Client{Base: url, Token: benchAdmin, HTTP: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: k}}}
}

// ingestRun is one ingest pair: referto's rounds and the raw rounds, each
// of them two baselines.
type ingestRun struct {
	b     *bencher
	n, k  int
	admin *client.Client
	arbs  []*client.Client // one per client, on its own tournament
	js    natsjs.JetStream
	msg   []byte // the stored commit of one RegisterPlayer
	stops []func()

	round, rawRounds int
	guardLast        []uint64 // per client: the last stream sequence of its subject
	ref, raw         []load
	guard            []load
}

// tournaments creates a tournament and appoints its arbiter per client.
func (r *ingestRun) tournaments() error {
	for c := range r.k {
		t := fmt.Sprintf("bench-%d", c)
		if _, err := r.admin.CreateTournament(r.b.ctx, "", client.NewTournament{ID: t, Name: "Bench", Ruleset: "rtu"}); err != nil {
			return fmt.Errorf("create %s: %w", t, err)
		}
		off, err := r.admin.AppointOfficial(r.b.ctx, t, client.Official{Name: "A", Role: events.RoleArbiter})
		if err != nil {
			return fmt.Errorf("appoint: %w", err)
		}
		r.arbs = append(r.arbs, r.admin.As(off.Token))
	}
	return nil
}

// streams makes the raw message and the raw streams.
func (r *ingestRun) streams() error {
	envs, err := events.Seal("bench-0", 1000, time.Now(), events.Actor{ID: "o1", Role: "arbiter"}, "0123456789abcdef0123456789abcdef",
		[]events.Event{events.PlayerRegistered{Player: "p0-1-1000", Name: "Mario Rossi 1000", Club: "Bologna – Asinelli", Region: "Emilia-Romagna"}})
	if err != nil {
		return err
	}
	r.msg, _ = events.EncodeCommit(envs)
	if _, err := r.js.CreateStream(r.b.ctx, natsjs.StreamConfig{Name: "RAWBENCH", Subjects: []string{"rawbench.>"}, Storage: natsjs.FileStorage}); err != nil {
		return err
	}
	// The second baseline: JetStream doing what the ledger needs of it
	// (the message id of each command, the expected last sequence of its
	// tournament's subject, a consumer following the stream as the
	// projections do), without any of referto's own code.
	if _, err := r.js.CreateStream(r.b.ctx, natsjs.StreamConfig{Name: "RAWGUARD", Subjects: []string{"rawguard.>"}, Storage: natsjs.FileStorage,
		DenyDelete: true, DenyPurge: true, Duplicates: 2 * time.Minute}); err != nil {
		return err
	}
	if err := r.follow("RAWGUARD"); err != nil {
		return err
	}
	r.guardLast = make([]uint64, r.k)
	return nil
}

// follow keeps an ordered consumer reading the stream, as the projections
// read the ledger's.
func (r *ingestRun) follow(stream string) error {
	follower, err := r.js.OrderedConsumer(r.b.ctx, stream, natsjs.OrderedConsumerConfig{})
	if err != nil {
		return err
	}
	follow, err := follower.Messages(natsjs.PullMaxMessages(1024))
	if err != nil {
		return err
	}
	r.stops = append(r.stops, follow.Stop)
	go func() {
		for {
			if _, err := follow.Next(); err != nil {
				return
			}
		}
	}()
	return nil
}

func (r *ingestRun) stopFollowers() {
	for _, stop := range r.stops {
		stop()
	}
}

// refRound is a round of RegisterPlayer over HTTP.
func (r *ingestRun) refRound() error {
	r.round++
	before := r.scrape()
	l, err := runLoad(r.n, r.k, func(c, i int) error {
		reg := &commands.RegisterPlayer{Player: fmt.Sprintf("p%d-%d-%d", r.round, c, i), Name: fmt.Sprintf("Mario Rossi %d", i),
			Club: "Bologna – Asinelli", Region: "Emilia-Romagna"}
		_, err := r.arbs[c].Command(r.b.ctx, fmt.Sprintf("bench-%d", c), "", reg)
		return err
	})
	r.ref = append(r.ref, l)
	after := r.scrape()
	mean := func(name string) float64 {
		c := after[name+"_count"] - before[name+"_count"]
		if c == 0 {
			return 0
		}
		return 1000 * (after[name+"_sum"] - before[name+"_sum"]) / c
	}
	phase := func(p string) float64 { return mean(`referto_command_phase_seconds{phase="` + p + `"}`) }
	fmt.Fprintf(r.b.out, "  referto round %d: %.0f/s; mean command %.2f ms, of which JetStream append %.2f ms; CPU %.0f µs per command\n", r.round, l.rate,
		mean("referto_command_duration_seconds"), mean("referto_jetstream_append_duration_seconds"), l.cpu)
	fmt.Fprintf(r.b.out, "    split per command: lock wait %.3f ms, decide %.3f ms, append %.3f ms, ack to unlock %.3f ms, head's record %.3f ms\n",
		phase("lock_wait"), phase("decide"), phase("append"), phase("ack_to_unlock"), phase("record"))
	return err
}

// rawRound is a round of each raw baseline: plain publishes, publishes
// with the ledger's guarantees.
func (r *ingestRun) rawRound() error {
	r.rawRounds++
	ctx := r.b.ctx
	l, err := runLoad(r.n, r.k, func(c, i int) error {
		_, err := r.js.PublishMsg(ctx, &nats.Msg{Subject: fmt.Sprintf("rawbench.%d", c), Data: r.msg})
		return err
	})
	r.raw = append(r.raw, l)
	if err != nil {
		return err
	}
	l, err = runLoad(r.n, r.k, func(c, i int) error {
		a, err := r.js.PublishMsg(ctx, &nats.Msg{Subject: fmt.Sprintf("rawguard.%d", c), Data: r.msg},
			natsjs.WithMsgID(fmt.Sprintf("%d-%d", r.rawRounds, i)), natsjs.WithExpectLastSequencePerSubject(r.guardLast[c]))
		if err == nil {
			r.guardLast[c] = a.Sequence
		}
		return err
	})
	r.guard = append(r.guard, l)
	if err != nil {
		return err
	}
	raw, guard := r.raw[len(r.raw)-1], r.guard[len(r.guard)-1]
	fmt.Fprintf(r.b.out, "  raw round %d: %.0f/s, CPU %.0f µs per publish; with the ledger's guarantees %.0f/s, %.0f µs\n",
		r.rawRounds, raw.rate, raw.cpu, guard.rate, guard.cpu)
	return err
}

// addRows adds the medians of the rounds to the table.
func (r *ingestRun) addRows() {
	b := r.b
	rr, rw := pick(r.ref, rate), pick(r.raw, rate)
	p99r, p99w := pick(r.ref, p99), pick(r.raw, p99)
	b.add(Row{What: "durable ingest, commands/s", Referto: fmt.Sprintf("%.0f/s", rr), Raw: fmt.Sprintf("%.0f/s", rw),
		Ratio: fmt.Sprintf("%.2f", rr/rw), Target: "≥ 0.80"})
	b.add(Row{What: "durable ingest, p50", Referto: fmt.Sprintf("%.2f ms", pick(r.ref, p50)), Raw: fmt.Sprintf("%.2f ms", pick(r.raw, p50))})
	b.add(Row{What: "durable ingest, p99", Referto: fmt.Sprintf("%.2f ms", p99r), Raw: fmt.Sprintf("%.2f ms", p99w),
		Ratio: fmt.Sprintf("%+.2f ms", p99r-p99w), Target: "≤ raw + 1 ms"})
	rg, p99g := pick(r.guard, rate), pick(r.guard, p99)
	b.add(Row{What: "  against JetStream with the ledger's guarantees", Referto: fmt.Sprintf("%.0f/s, p99 %.2f ms", rr, p99r),
		Raw: fmt.Sprintf("%.0f/s, p99 %.2f ms (%.2f of raw)", rg, p99g, rg/rw), Ratio: fmt.Sprintf("%.2f, %+.2f ms", rr/rg, p99r-p99g), Target: "(no target)"})
	if cr, cw := pick(r.ref, cpu), pick(r.raw, cpu); cr > 0 && cw > 0 {
		b.add(Row{What: "  CPU per command (raw: per plain publish), whole bench process", Referto: fmt.Sprintf("%.0f µs", cr), Raw: fmt.Sprintf("%.0f µs", cw),
			Ratio: fmt.Sprintf("%.1f×", cr/cw), Target: "(no target)"})
	}
}

// scrape reads the sums and counts of the node's histograms from /metrics,
// summed over their labels, and those of referto_command_phase_seconds by
// phase as well, under name{phase="…"} (empty when unreadable).
func (r *ingestRun) scrape() map[string]float64 {
	out := map[string]float64{}
	text, err := r.admin.Metrics(context.Background())
	if err != nil {
		return out
	}
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), " ")
		if !ok || strings.HasPrefix(name, "#") {
			continue
		}
		name, labels, _ := strings.Cut(name, "{")
		if !strings.HasSuffix(name, "_sum") && !strings.HasSuffix(name, "_count") {
			continue
		}
		var v float64
		if _, err := fmt.Sscan(rest, &v); err != nil {
			continue
		}
		out[name] += v
		if p, ok := strings.CutPrefix(name, "referto_command_phase_seconds"); ok {
			out["referto_command_phase_seconds{"+strings.TrimSuffix(labels, "}")+"}"+p] += v
		}
	}
	return out
}
