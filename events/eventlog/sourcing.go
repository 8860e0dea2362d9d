package eventlog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/referto/referto/events"
)

// Federation: a hub's stream (Options.Sourced) holds its venues'
// tournaments, each sourced by JetStream from the venue's own domain
// through the leaf link. JetStream's source consumer does the copying:
// it resumes where it stopped after the link or either server went down,
// and drops the Nats-Expected-* headers the venue's appends carried
// (nats-server stream.go, processInboundSourceMsg), so the hub's copy is
// the venue's messages, in the venue's order.

// APIPrefix is the JetStream API prefix of a domain, what a source in
// another domain names (StreamSource.External.APIPrefix).
func APIPrefix(domain string) string { return "$JS." + domain + ".API" }

// Source is one tournament a hub's stream sources from a venue's domain.
type Source struct {
	Domain     string
	Tournament string
}

// Sources lists what the stream sources, in the order added.
func (l *Log) Sources(ctx context.Context) ([]Source, error) {
	info, err := l.stream.Info(ctx)
	if err != nil {
		return nil, l.infoErr(err)
	}
	var out []Source
	for _, s := range info.Config.Sources {
		if s.External == nil {
			continue
		}
		d := strings.TrimSuffix(strings.TrimPrefix(s.External.APIPrefix, "$JS."), ".API")
		out = append(out, Source{Domain: d, Tournament: tournamentOf(s.FilterSubject)})
	}
	return out, nil
}

// AddSource makes the stream source tournament t of the stream named
// stream (the venue's, "" for the default) in the JetStream domain
// domain. One source per tournament: a source added later starts at the
// tournament's first message, whatever was sourced before, and a
// tournament never enters the stream but from its own venue. Adding a
// source already there does nothing.
func (l *Log) AddSource(ctx context.Context, domain, stream, t string) error {
	if err := events.CheckID("tournament", t); err != nil {
		return err
	}
	if stream == "" {
		stream = "REFERTO"
	}
	l.sourcing.Lock()
	defer l.sourcing.Unlock()
	info, err := l.stream.Info(ctx)
	if err != nil {
		return l.infoErr(err)
	}
	cfg := info.Config
	if slices.ContainsFunc(cfg.Sources, func(s *jetstream.StreamSource) bool { return s.FilterSubject == Subject(t) }) {
		return nil
	}
	cfg.Sources = append(cfg.Sources, &jetstream.StreamSource{Name: stream, FilterSubject: Subject(t),
		External: &jetstream.ExternalStream{APIPrefix: APIPrefix(domain)}})
	if _, err := l.js.UpdateStream(ctx, cfg); err != nil {
		return fmt.Errorf("jetstream: source %s from %s: %w", t, domain, err)
	}
	return nil
}

func (l *Log) infoErr(err error) error {
	if unavailable(err) || transient(err) {
		return fmt.Errorf("%w: %v", events.ErrUnavailable, err)
	}
	return fmt.Errorf("jetstream: stream info: %w", err)
}

// RemoteTournaments lists the tournaments the stream named stream ("" for
// the default) holds in JetStream domain domain, with each one's message
// count, asked across the leaf link. It is events.ErrUnavailable while
// the domain cannot be reached.
func (l *Log) RemoteTournaments(ctx context.Context, domain, stream string) (map[string]uint64, error) {
	if stream == "" {
		stream = "REFERTO"
	}
	js, err := jetstream.NewWithDomain(l.nc, domain)
	if err != nil {
		return nil, err
	}
	s, err := js.Stream(ctx, stream)
	if err != nil {
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			return map[string]uint64{}, nil
		}
		return nil, l.infoErr(err)
	}
	info, err := s.Info(ctx, jetstream.WithSubjectFilter(SubjectPrefix+"*"))
	if err != nil {
		return nil, l.infoErr(err)
	}
	out := make(map[string]uint64, len(info.State.Subjects))
	for subj, n := range info.State.Subjects {
		out[tournamentOf(subj)] = n
	}
	return out, nil
}

// RestartSources restarts the stream's sources from domain, to be called
// when the domain is reachable again: JetStream retries a source that
// cannot reach its stream with a backoff growing to two minutes, and a
// hub that restarted before its venues' leaf links came back would wait
// that long. Each source resumes after the last message it delivered
// (JetStream reads that from the Nats-Stream-Source headers stored), so
// nothing is lost or repeated.
func (l *Log) RestartSources(ctx context.Context, domain string) error {
	l.sourcing.Lock()
	defer l.sourcing.Unlock()
	info, err := l.stream.Info(ctx)
	if err != nil {
		return l.infoErr(err)
	}
	cfg := info.Config
	all := cfg.Sources
	cfg.Sources = slices.DeleteFunc(slices.Clone(all), func(s *jetstream.StreamSource) bool {
		return s.External != nil && s.External.APIPrefix == APIPrefix(domain)
	})
	if len(cfg.Sources) == len(all) {
		return nil
	}
	if _, err := l.js.UpdateStream(ctx, cfg); err != nil {
		return fmt.Errorf("jetstream: restart sources of %s: %w", domain, err)
	}
	cfg.Sources = all
	if _, err := l.js.UpdateStream(ctx, cfg); err != nil {
		return fmt.Errorf("jetstream: restart sources of %s: %w", domain, err)
	}
	return nil
}

// sourceHeader is the header JetStream stores on a sourced message: the
// origin stream, then the message's sequence in it.
const sourceHeader = "Nats-Stream-Source"

// ScanSourced delivers every message of tournament t the stream sourced
// (a hub's copy of a venue's log), in order, with its stream sequence in
// the venue's stream (origin): what a venue repairing its log needs to put
// each message back where it was. A message without that header is an
// error.
func (l *Log) ScanSourced(ctx context.Context, t string, fn func(origin uint64, m events.StoredCommit) error) error {
	last, err := l.LastSubjectSeq(ctx, t)
	if err != nil || last == 0 {
		return err
	}
	done := errors.New("done")
	err = l.follow(ctx, 1, t, func(m events.StoredCommit, h nats.Header, pending uint64) error {
		f := strings.Fields(h.Get(sourceHeader))
		var origin uint64
		if len(f) >= 2 {
			origin, _ = strconv.ParseUint(f[1], 10, 64)
		}
		if origin == 0 {
			return fmt.Errorf("jetstream: message %d of %s was not sourced (%s %q)", m.StreamSeq, t, sourceHeader, h.Get(sourceHeader))
		}
		if err := fn(origin, m); err != nil {
			return err
		}
		if m.StreamSeq >= last || pending == 0 {
			return done
		}
		return nil
	})
	if errors.Is(err, done) {
		return nil
	}
	return err
}
