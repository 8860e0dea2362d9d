package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// NewTournament is the body of POST /v1/tournaments.
type NewTournament struct {
	ID      string          `json:"id"`
	Name    string          `json:"name"`
	Ruleset string          `json:"ruleset"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// Outcome is a command's answer (201): the tournament's seq after it and
// its events, or the original's when the idempotency key was seen before.
type Outcome struct {
	Seq uint64 `json:"seq"`
	// Events are the command's envelopes as JSON (Envelopes decodes them).
	Events json.RawMessage `json:"events"`
	// Replayed is true when the key already stood for this request: the
	// original outcome, nothing appended.
	Replayed bool `json:"-"`
}

// Envelopes decodes the outcome's events.
func (o Outcome) Envelopes() ([]events.Envelope, error) {
	var envs []events.Envelope
	return envs, json.Unmarshal(o.Events, &envs)
}

// CreateTournament creates a tournament (the administrator), under the
// idempotency key when not empty.
func (c *Client) CreateTournament(ctx context.Context, key string, t NewTournament) (Outcome, error) {
	return c.command(ctx, "/v1/tournaments", key, t)
}

// Command sends cmd to tournament t, under the idempotency key when not
// empty: its payload is commands.Encode's, which writes the "type" from
// the command's own CommandType.
func (c *Client) Command(ctx context.Context, t, key string, cmd commands.Command) (Outcome, error) {
	body, err := commands.Encode(cmd)
	if err != nil {
		return Outcome{}, err
	}
	return c.CommandJSON(ctx, t, key, body)
}

// CommandJSON sends a command payload as it is, its "type" included, to
// tournament t, under the idempotency key when not empty: for what tests
// the wire format, or replays recorded requests byte for byte.
func (c *Client) CommandJSON(ctx context.Context, t, key string, payload json.RawMessage) (Outcome, error) {
	return c.command(ctx, "/v1/tournaments/"+url.PathEscape(t)+"/commands", key, payload)
}

func (c *Client) command(ctx context.Context, path, key string, payload any) (Outcome, error) {
	var h http.Header
	if key != "" {
		h = http.Header{"Idempotency-Key": {key}}
	}
	var o Outcome
	header, err := c.do(ctx, request{method: http.MethodPost, path: path, header: h, body: payload}, &o)
	if err == nil {
		o.Replayed = header.Get("Idempotent-Replayed") == "true"
	}
	return o, err
}

// Official is the body of an appointment.
type Official struct {
	Name string `json:"name"`
	Role string `json:"role"`
}

// Appointed is an appointment's answer; the token is shown this once.
type Appointed struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Role  string `json:"role"`
	Token string `json:"token"`
	Seq   uint64 `json:"seq"`
}

// AppointOfficial appoints an official of tournament t (the
// administrator).
func (c *Client) AppointOfficial(ctx context.Context, t string, o Official) (Appointed, error) {
	var a Appointed
	_, err := c.do(ctx, request{method: http.MethodPost, path: "/v1/tournaments/" + url.PathEscape(t) + "/officials", body: o}, &a)
	return a, err
}

// Get decodes the JSON document at path into out: for what the typed
// reads do not cover, or to compare documents whole.
func (c *Client) Get(ctx context.Context, path string, out any) error {
	_, err := c.do(ctx, request{method: http.MethodGet, path: path}, out)
	return err
}

func tpath(t, rest string) string { return "/v1/tournaments/" + url.PathEscape(t) + rest }

// Tournament is GET /v1/tournaments/{t}.
func (c *Client) Tournament(ctx context.Context, t string) (projections.Summary, error) {
	var s projections.Summary
	return s, c.Get(ctx, tpath(t, ""), &s)
}

// Players is the entry list.
type Players struct {
	Tournament string                  `json:"tournament"`
	Players    []projections.PlayerRow `json:"players"`
}

// Players is GET /v1/tournaments/{t}/players.
func (c *Client) Players(ctx context.Context, t string) (Players, error) {
	var p Players
	return p, c.Get(ctx, tpath(t, "/players"), &p)
}

// RoundTables is a drawn round with its tables.
type RoundTables struct {
	projections.RoundView
	Tables []projections.TableView `json:"tables"`
}

// Tables is GET /v1/tournaments/{t}/rounds/{r}/tables.
func (c *Client) Tables(ctx context.Context, t string, round int) (RoundTables, error) {
	var r RoundTables
	return r, c.Get(ctx, tpath(t, fmt.Sprintf("/rounds/%d/tables", round)), &r)
}

// Standings is GET /v1/tournaments/{t}/standings: as they stand, or as
// they stood right after event at (when not 0).
func (c *Client) Standings(ctx context.Context, t string, at uint64) (projections.Standings, error) {
	path := tpath(t, "/standings")
	if at > 0 {
		path += fmt.Sprintf("?at=%d", at)
	}
	var s projections.Standings
	return s, c.Get(ctx, path, &s)
}

// Classification is GET /v1/tournaments/{t}/classification.
func (c *Client) Classification(ctx context.Context, t string) (projections.Classification, error) {
	var cl projections.Classification
	return cl, c.Get(ctx, tpath(t, "/classification"), &cl)
}

// Events is a page of tournament t's envelopes from seq from, at most
// limit (the server allows 1,000), decoded strictly from the stored lines.
func (c *Client) Events(ctx context.Context, t string, from uint64, limit int) ([]events.Envelope, error) {
	res, err := c.open(ctx, request{method: http.MethodGet, path: tpath(t, fmt.Sprintf("/events?from=%d&limit=%d", from, limit)),
		header: http.Header{"Accept": {"application/x-ndjson"}}})
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	var envs []events.Envelope
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		env, err := events.DecodeEnvelope(bytes.Clone(sc.Bytes()))
		if err != nil {
			return nil, fmt.Errorf("event %d of the page from %d: %w", len(envs)+1, from, err)
		}
		envs = append(envs, env)
	}
	return envs, sc.Err()
}

// AllEvents is every event of tournament t, a page of 1,000 at a time.
func (c *Client) AllEvents(ctx context.Context, t string) ([]events.Envelope, error) {
	var all []events.Envelope
	for {
		page, err := c.Events(ctx, t, uint64(len(all))+1, 1000)
		all = append(all, page...)
		if err != nil || len(page) < 1000 {
			return all, err
		}
	}
}

// Checkpoint is the signed checkpoint of tournament t's whole log.
func (c *Client) Checkpoint(ctx context.Context, t string) ([]byte, error) {
	res, err := c.open(ctx, request{method: http.MethodGet, path: tpath(t, "/checkpoint")})
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	return io.ReadAll(res.Body)
}

// Keys is GET /v1/keys: the checkpoint verifier key.
type Keys struct {
	Checkpoint string `json:"checkpoint"`
	Format     string `json:"format"`
	// Witness is, at a hub, its cosignature verifier key.
	Witness string `json:"witness,omitempty"`
}

// RegisterVenue is POST /v1/venues at a hub (the administrator): the
// venue's checkpoint verifier key, as its GET /v1/keys serves it.
func (c *Client) RegisterVenue(ctx context.Context, venue, key string) error {
	_, err := c.do(ctx, request{method: http.MethodPost, path: "/v1/venues", body: map[string]string{"venue": venue, "key": key}}, nil)
	return err
}

// IssueVenueLink is POST /v1/venues/{venue}/link at a hub (the
// administrator): a new password for the venue's leaf link, shown once;
// the venue's server connects as nats://VENUE:PASSWORD@HUB:PORT.
func (c *Client) IssueVenueLink(ctx context.Context, venue, reason string) (password string, err error) {
	var out struct {
		Password string `json:"password"`
	}
	_, err = c.do(ctx, request{method: http.MethodPost, path: "/v1/venues/" + url.PathEscape(venue) + "/link", body: map[string]string{"reason": reason}}, &out)
	return out.Password, err
}

// VenueDecision is the body of POST /v1/venues/{venue}/decisions: the
// decision ("key", "lift_flag", "lift_quarantine"), the tournament of a
// lifted quarantine, a new key, and why.
type VenueDecision struct {
	Decision   string `json:"decision"`
	Tournament string `json:"tournament,omitempty"`
	Key        string `json:"key,omitempty"`
	Reason     string `json:"reason"`
}

// DecideAboutVenue is POST /v1/venues/{venue}/decisions at a hub (the
// administrator): the decision as the hub recorded it, as JSON
// (api/hub.Decision).
func (c *Client) DecideAboutVenue(ctx context.Context, venue string, d VenueDecision) (json.RawMessage, error) {
	var out json.RawMessage
	_, err := c.do(ctx, request{method: http.MethodPost, path: "/v1/venues/" + url.PathEscape(venue) + "/decisions", body: d}, &out)
	return out, err
}

// Venues is GET /v1/venues at a hub: its venues and their tournaments,
// as JSON (api/hub.Venue and Tournament).
func (c *Client) Venues(ctx context.Context) (json.RawMessage, error) {
	var v json.RawMessage
	return v, c.Get(ctx, "/v1/venues", &v)
}

// Keys is GET /v1/keys.
func (c *Client) Keys(ctx context.Context) (Keys, error) {
	var k Keys
	return k, c.Get(ctx, "/v1/keys", &k)
}

// Export is a tournament's log as the server sends it, still arriving.
type Export struct {
	// Body is the stored lines; the caller closes it.
	Body io.ReadCloser
	// Checkpoint is the signed checkpoint of the log sent.
	Checkpoint []byte
	// Events is how many events the server announced.
	Events string
	// Size is the body's length, -1 when unknown.
	Size int64
}

// CheckpointHeader carries an export's signed checkpoint, base64.
const CheckpointHeader = "Referto-Checkpoint"

// Export starts the export of tournament t (an official's token).
func (c *Client) Export(ctx context.Context, t string) (*Export, error) {
	return c.export(ctx, tpath(t, "/export"))
}

// ExportRegistry starts the export of a national hub's season registry
// (no token needed).
func (c *Client) ExportRegistry(ctx context.Context) (*Export, error) {
	return c.export(ctx, "/v1/registry/export")
}

func (c *Client) export(ctx context.Context, path string) (*Export, error) {
	res, err := c.open(ctx, request{method: http.MethodGet, path: path})
	if err != nil {
		return nil, err
	}
	note, err := base64.StdEncoding.DecodeString(res.Header.Get(CheckpointHeader))
	if err != nil {
		res.Body.Close()
		return nil, fmt.Errorf("the %s header is not base64: %w", CheckpointHeader, err)
	}
	return &Export{Body: res.Body, Checkpoint: note, Events: res.Header.Get("Referto-Events"), Size: res.ContentLength}, nil
}

// VenueMessage is one message of a venue's log as a national hub holds it
// (GET /v1/venue-logs/{tournament}).
type VenueMessage struct {
	// StreamSeq is its stream sequence in the venue's stream.
	StreamSeq uint64 `json:"stream_seq"`
	MsgID     string `json:"msg_id"`
	Request   string `json:"request"`
	Seal      string `json:"seal"`
	Data      []byte `json:"data"`
}

// VenueLog reads back from a national hub the venue's own messages of
// tournament t, proving the venue with proof (a note signed with its
// checkpoint key: api/hub.VenueLogProof), and the last checkpoint of
// t the hub cosigned (nil when none). A transfer cut short is an error.
func (c *Client) VenueLog(ctx context.Context, t string, proof []byte) (cosigned []byte, msgs []VenueMessage, err error) {
	h := http.Header{}
	h.Set("Referto-Venue-Proof", base64.StdEncoding.EncodeToString(proof))
	res, err := c.open(ctx, request{method: http.MethodGet, path: "/v1/venue-logs/" + url.PathEscape(t), header: h})
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	if cosigned, err = base64.StdEncoding.DecodeString(res.Header.Get("Referto-Cosigned-Checkpoint")); err != nil {
		return nil, nil, fmt.Errorf("the Referto-Cosigned-Checkpoint header is not base64: %w", err)
	}
	dec := json.NewDecoder(res.Body)
	for {
		var m VenueMessage
		if err := dec.Decode(&m); err == io.EOF {
			break
		} else if err != nil {
			return nil, nil, fmt.Errorf("venue log of %s: %w", t, err)
		}
		msgs = append(msgs, m)
	}
	if len(cosigned) == 0 {
		cosigned = nil
	}
	return cosigned, msgs, nil
}

// Backup copies the server's backup (the administrator's token) to w.
// The server answers once JetStream has started the snapshot; the body
// then flows as fast as it is read. A transfer cut short is an error.
func (c *Client) Backup(ctx context.Context, w io.Writer) error {
	res, err := c.open(ctx, request{method: http.MethodGet, path: "/v1/admin/backup"})
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if _, err := io.Copy(w, res.Body); err != nil {
		return fmt.Errorf("the transfer failed: %w", err)
	}
	return nil
}

// BackupHTTP is an HTTP client for Backup: the proxy of the environment,
// and a minute for the server to start the snapshot, however long the
// transfer then takes.
func BackupHTTP() *http.Client {
	return &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, ResponseHeaderTimeout: time.Minute}}
}

// Ready reports whether the server is ready (GET /readyz answers 200).
func (c *Client) Ready(ctx context.Context) bool {
	_, err := c.do(ctx, request{method: http.MethodGet, path: "/readyz"}, nil)
	return err == nil
}

// Healthy is GET /healthz.
func (c *Client) Healthy(ctx context.Context) error {
	_, err := c.do(ctx, request{method: http.MethodGet, path: "/healthz"}, nil)
	return err
}

// Metrics is GET /metrics, in Prometheus's text format.
func (c *Client) Metrics(ctx context.Context) ([]byte, error) {
	res, err := c.open(ctx, request{method: http.MethodGet, path: "/metrics"})
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	return io.ReadAll(res.Body)
}
