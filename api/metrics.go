package api

import (
	"context"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/fault"
)

// Metrics are one server's Prometheus collectors, on a registry of its own:
// two servers in one process (tests, a benchmark) never share a count. They
// observe the node (a ledger.Observer: NodeOptions.Observer) as well as the
// HTTP requests.
type Metrics struct {
	reg *prometheus.Registry

	commands        *prometheus.CounterVec   // type, outcome
	commandSeconds  *prometheus.HistogramVec // type, outcome
	appendSeconds   *prometheus.HistogramVec // result
	conflictRetries prometheus.Counter
	phaseSeconds    *prometheus.HistogramVec // phase
	phases          [5]prometheus.Observer   // its series, in ledger.Split's order
	applied         prometheus.Counter
	appliedEvents   prometheus.Counter
	merkleSeconds   prometheus.Histogram
	httpRequests    *prometheus.CounterVec   // route, method, status
	httpSeconds     *prometheus.HistogramVec // route, method
}

// NewMetrics returns the collectors of a server, registered together with
// the Go runtime's and the process's.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		commands: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "referto_commands_total",
			Help: "Commands received, by command type (unknown when refused before it was read) and outcome: accepted, replayed, or the problem code of the refusal.",
		}, []string{"type", "outcome"}),
		commandSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "referto_command_duration_seconds",
			Help:    "Time from a command's arrival to its answer, by command type and outcome.",
			Buckets: prometheus.DefBuckets,
		}, []string{"type", "outcome"}),
		appendSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "referto_jetstream_append_duration_seconds",
			Help:    "Time of one append to JetStream until acknowledged (stored and fsynced), by result: stored, duplicate, conflict, unavailable, error.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14), // 0.5 ms to 4 s
		}, []string{"result"}),
		phaseSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "referto_command_phase_seconds",
			Help:    "Where an accepted command's time went, by phase: lock_wait (for its tournament's lock), decide (deciding, sealing, every attempt), append (until JetStream's acknowledgement, every attempt), ack_to_unlock (from the acknowledgement until the tournament is unlocked: the projections applying the commit), record (recording the acknowledged head, fsynced, before the answer).",
			Buckets: prometheus.ExponentialBuckets(1e-6, 4, 12), // 1 µs to 4.2 s
		}, []string{"phase"}),
		conflictRetries: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "referto_conflict_retries_total",
			Help: "Commands decided again because another process appended to their tournament first.",
		}),
		applied: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "referto_projection_applied_total",
			Help: "Commits (one per accepted command) applied to the projections by this process since it started, replays from a snapshot at start included.",
		}),
		appliedEvents: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "referto_projection_applied_events_total",
			Help: "Events applied to the projections by this process since it started.",
		}),
		merkleSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "referto_merkle_append_seconds",
			Help:    "Time spent appending one commit's events to its tournament's Merkle tree (hashing the interior nodes, and staging the nodes completed in the projections batch; the leaves are hashed beforehand, as the commit is decoded).",
			Buckets: prometheus.ExponentialBuckets(1e-6, 4, 10), // 1 µs to 0.26 s
		}),
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "referto_http_requests_total",
			Help: "HTTP requests answered, by route template (unmatched when no route matched), method and status.",
		}, []string{"route", "method", "status"}),
		httpSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "referto_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by route template and method.",
			Buckets: prometheus.DefBuckets,
		}, []string{"route", "method"}),
	}
	for i, p := range []string{"lock_wait", "decide", "append", "ack_to_unlock", "record"} {
		m.phases[i] = m.phaseSeconds.WithLabelValues(p)
	}
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.commands, m.commandSeconds, m.appendSeconds, m.phaseSeconds, m.conflictRetries, m.applied, m.appliedEvents, m.merkleSeconds,
		m.httpRequests, m.httpSeconds)
	return m
}

var _ ledger.Observer = (*Metrics)(nil)

// Applied counts a commit the projections applied (ledger.Observer).
func (m *Metrics) Applied(events int, merkle time.Duration) {
	m.applied.Inc()
	m.appliedEvents.Add(float64(events))
	m.merkleSeconds.Observe(merkle.Seconds())
}

// Appended times one append to the log (ledger.Observer).
func (m *Metrics) Appended(d time.Duration, ack events.Appended, err error) {
	m.appendSeconds.WithLabelValues(appendResult(ack, err)).Observe(d.Seconds())
}

// Split times the phases of an accepted command (ledger.Observer).
func (m *Metrics) Split(s ledger.Split) {
	for i, d := range []time.Duration{s.LockWait, s.Decide, s.Append, s.AckToUnlock, s.Record} {
		m.phases[i].Observe(d.Seconds())
	}
}

// Retried counts a command decided again after a conflict (ledger.Observer).
func (m *Metrics) Retried() { m.conflictRetries.Inc() }

// watchLog registers the gauges read from the log and the runner at each
// scrape.
func (m *Metrics) watchLog(log Log, rn Runner, store Store) {
	m.reg.MustRegister(&logCollector{log: log, rn: rn, store: store,
		compacting: prometheus.NewDesc("referto_projection_compacting_bytes",
			"What the projection store's compactions in progress read, about as much as they may still write: disk the disk guard's reserve does not cover.", nil, nil),
		applied: prometheus.NewDesc("referto_projection_applied_seq",
			"The last stream sequence the projections have applied.", nil, nil),
		last: prometheus.NewDesc("referto_stream_last_seq",
			"The stream's last sequence; absent while the stream cannot be read.", nil, nil),
		lag: prometheus.NewDesc("referto_projection_lag",
			"Commits in the stream not yet applied to the projections (stream last sequence minus last applied); absent while the stream cannot be read.", nil, nil),
	})
}

// scrapeTimeout bounds what a scrape or a readiness check waits for the log.
const scrapeTimeout = time.Second

// logCollector reads the stream's last sequence once per scrape.
type logCollector struct {
	log                            Log
	rn                             Runner
	store                          Store
	applied, last, lag, compacting *prometheus.Desc
}

func (c *logCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.compacting
	ch <- c.applied
	ch <- c.last
	ch <- c.lag
}

func (c *logCollector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(c.compacting, prometheus.GaugeValue, float64(c.store.CompactingBytes()))
	applied := c.rn.Applied()
	ch <- prometheus.MustNewConstMetric(c.applied, prometheus.GaugeValue, float64(applied))
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	last, err := c.log.LastSeq(ctx)
	if err != nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(c.last, prometheus.GaugeValue, float64(last))
	ch <- prometheus.MustNewConstMetric(c.lag, prometheus.GaugeValue, float64(lagOf(last, applied)))
}

// lagOf is how many stream sequences the projections are behind.
func lagOf(last, applied uint64) uint64 {
	if last > applied {
		return last - applied
	}
	return 0
}

// handler serves the registry in the Prometheus text format, two scrapes
// at a time at most.
func (m *Metrics) handler(errLog promhttp.Logger) http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorLog: errLog, ErrorHandling: promhttp.ContinueOnError,
		MaxRequestsInFlight: 2, Timeout: 10 * time.Second})
}

// appendResult names an append's result for referto_jetstream_append_duration_seconds.
func appendResult(ack events.Appended, err error) string {
	switch {
	case err == nil && ack.Duplicate:
		return "duplicate"
	case err == nil:
		return "stored"
	}
	switch code := fault.CodeOf(err); code {
	case fault.Conflict, fault.Unavailable:
		return string(code)
	}
	return "error"
}

// commandWriter records how one command request of the season registry
// ended, for referto_commands_total and referto_command_duration_seconds
// (a tournament's commands are counted by their services: counted).
// writeError tells it the problem code of a refusal.
type commandWriter struct {
	*statusWriter
	typ   string // the command type, once read
	code  string // the problem code, when refused
	start time.Time
}

// command adapts a command's route to http, as serve does a read's: h
// answers through a *commandWriter, which commandDone counts once the
// request is answered. typ is the command type when the route implies it,
// "" when the body will say.
func (s *Server) command(typ string, h func(w *commandWriter, r *http.Request) error) http.HandlerFunc {
	if typ == "" {
		typ = "unknown"
	}
	return func(w http.ResponseWriter, r *http.Request) {
		cw := &commandWriter{statusWriter: &statusWriter{ResponseWriter: w}, typ: typ, start: time.Now()}
		defer s.commandDone(cw)
		if err := h(cw, r); err != nil {
			s.writeError(cw, r, err)
		}
	}
}

// commandDone counts the command c recorded.
func (s *Server) commandDone(c *commandWriter) {
	outcome := c.code
	switch {
	case outcome != "":
	case c.status == http.StatusCreated && c.Header().Get("Idempotent-Replayed") == "true":
		outcome = "replayed"
	case c.status == http.StatusCreated:
		outcome = "accepted"
	default:
		outcome = "internal"
	}
	s.metrics.countCommand(c.typ, outcome, c.start)
}

// countCommand counts one command of type typ that arrived at start and
// ended in outcome.
func (m *Metrics) countCommand(typ, outcome string, start time.Time) {
	m.commands.WithLabelValues(typ, outcome).Inc()
	m.commandSeconds.WithLabelValues(typ, outcome).Observe(time.Since(start).Seconds())
}
