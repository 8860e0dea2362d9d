package registry_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"golang.org/x/mod/sumdb/note"

	"github.com/referto/referto/api/hub/registry"
	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/eventlog"
	"github.com/referto/referto/projections/ranking"
	"github.com/referto/referto/replay"
)

// roster is a hub holding tournament t1, whose players p1 and p2 were
// registered with national ids 100001 and 100002, and p3 without one.
type roster struct{}

func (roster) Tournament(t string) bool { return t == "t1" }
func (roster) Player(t, p string) (string, bool) {
	id, ok := map[string]string{"p1": "100001", "p2": "100002", "p3": ""}[p]
	return id, ok && t == "t1"
}
func (roster) NationalID(id string) bool { return id == "100001" || id == "100002" }

// hub is an embedded JetStream and the hub's checkpoint key.
type hub struct {
	t    *testing.T
	nc   *nats.Conn
	keys *checkpoint.Keys
}

func newHub(t *testing.T) *hub {
	t.Helper()
	ns, err := eventlog.StartServer(eventlog.ServerOptions{StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	nc, err := nats.Connect("", nats.InProcessServer(ns))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	keys, err := checkpoint.LoadOrCreateKeys(t.TempDir(), "referto", nil)
	if err != nil {
		t.Fatal(err)
	}
	return &hub{t: t, nc: nc, keys: keys}
}

func (h *hub) open() *registry.Keeper {
	h.t.Helper()
	r, err := registry.Open(context.Background(), registry.Options{Conn: h.nc, Keys: h.keys, Roster: roster{},
		Clock: func() time.Time { return time.Date(2024, 7, 1, 10, 0, 0, 0, time.UTC) }})
	if err != nil {
		h.t.Fatal(err)
	}
	return r
}

func submit(t *testing.T, r *registry.Keeper, key, body string) (ledger.Outcome, error) {
	t.Helper()
	cmd, err := commands.ParseRegistry([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	actor := events.Actor{ID: "admin", Role: events.RoleAdmin}
	fp, _ := ledger.Fingerprint("POST /v1/registry/commands", events.RegistryID, actor, []byte(body))
	return r.Submit(context.Background(), registry.Submission{Command: cmd, Actor: actor, Key: key, Request: fp})
}

// TestRegistryIsALogFoldedAgainOnOpen: commands become sealed, linked
// events of the registry's log; a registry opened again on the same
// stream (a restart) folds it to the same registry; a key replays its
// command and refuses another request; the export verifies offline under
// the hub's key.
func TestRegistryIsALogFoldedAgainOnOpen(t *testing.T) {
	h := newHub(t)
	r := h.open()
	link := `{"type":"LinkNationalID","tournament":"t1","player":"p3","national_id":"100003"}`
	for i, body := range []string{link,
		`{"type":"MergePlayers","from":"100002","into":"100001","reason":"one person"}`,
		`{"type":"RecordDisqualification","national_id":"100001","from":"2024-05-01","to":"2024-05-31","reason":"art. 5"}`} {
		o, err := submit(t, r, string(rune('a'+i)), body)
		if err != nil || o.Seq != uint64(i+1) || o.Replayed || o.Events[0].Tournament != events.RegistryID {
			t.Fatalf("command %d: %v %+v", i+1, err, o)
		}
	}
	if o, err := submit(t, r, "a", link); err != nil || !o.Replayed || o.Seq != 1 {
		t.Errorf("a retry: %v %+v", err, o)
	}
	var reused *ledger.KeyReusedError
	if _, err := submit(t, r, "a", `{"type":"LinkNationalID","tournament":"t1","player":"p3","national_id":"100004"}`); !errors.As(err, &reused) || reused.Seq != 1 {
		t.Errorf("a key reused for another request: %v", err)
	}
	if _, err := submit(t, r, "z", link); !errors.Is(err, events.ErrConflict) {
		t.Errorf("the same link again: %v", err)
	}
	reg, n, _ := r.Registry()
	again := h.open()
	reg2, n2, _ := again.Registry()
	if n != 3 || n2 != 3 || reg2.Resolve("100002") != "100001" || len(reg2.Linked) != 1 || len(reg2.Periods) != 1 || reg.Resolve("100002") != "100001" {
		t.Fatalf("reopened: %d and %d events, %+v", n, n2, reg2)
	}
	if o, err := submit(t, again, "a", link); err != nil || !o.Replayed {
		t.Errorf("a retry after a restart: %v %+v", err, o)
	}
	// The export verifies offline under the hub's key, and folds alike.
	var buf bytes.Buffer
	var signed string
	if err := again.Export(context.Background(), &buf, func(s string, _ uint64) { signed = s }); err != nil {
		t.Fatal(err)
	}
	ring := replay.Keyring{}
	v, _ := checkpoint.NewVerifier(h.keys.VerifierKey)
	ring[v.Name()] = append(ring[v.Name()], v)
	folded, cp, err := replay.VerifyRegistry(buf.Bytes(), []byte(signed), ring)
	if err != nil || cp.Size != 3 || folded.Resolve("100002") != "100001" {
		t.Fatalf("the export: %v %+v", err, cp)
	}
}

// TestASecondWriterDecidesOnWhatTheFirstWrote: a registry sharing its log
// with another writer folds what the other appended before it decides
// (and, racing it for the log, its append expects the last sequence it
// folded, so the loser decides again).
func TestASecondWriterDecidesOnWhatTheFirstWrote(t *testing.T) {
	h := newHub(t)
	a, b := h.open(), h.open()
	if _, err := submit(t, a, "1", `{"type":"MergePlayers","from":"100002","into":"100001","reason":"one person"}`); err != nil {
		t.Fatal(err)
	}
	// b opened before the merge: on what it had folded, it would take
	// this merge back; it catches up and refuses it as the cycle it is.
	var fe *commands.FieldError
	if _, err := submit(t, b, "2", `{"type":"MergePlayers","from":"100001","into":"100002","reason":"back"}`); !errors.As(err, &fe) || fe.Field != "into" {
		t.Fatalf("the second writer: %v", err)
	}
	if o, err := submit(t, b, "3", `{"type":"RecordDisqualification","national_id":"100001","from":"2024-05-01","to":"2024-05-31","reason":"x"}`); err != nil || o.Seq != 2 {
		t.Fatalf("after catching up: %v %+v", err, o)
	}
}

// TestAMessageTheHubDidNotWriteIsPassedOver: a message on the registry's
// subject without the hub's seal (a writer that is not the hub: a venue
// whose server carries the subject) is no event of the registry: the
// registry folds, decides, appends and exports as if it were not there,
// opened again too.
func TestAMessageTheHubDidNotWriteIsPassedOver(t *testing.T) {
	h := newHub(t)
	r := h.open()
	if _, err := submit(t, r, "1", `{"type":"MergePlayers","from":"100002","into":"100001","reason":"one person"}`); err != nil {
		t.Fatal(err)
	}
	// A forged event, well formed and linked: only the seal tells it.
	var buf bytes.Buffer
	var signed string
	r.Export(context.Background(), &buf, func(s string, _ uint64) { signed = s })
	log := ranking.NewRegistryLog()
	log.Append(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	envs, _ := events.Seal(events.RegistryID, 2, time.Now(), events.Actor{ID: "admin", Role: events.RoleAdmin}, "forged",
		[]events.Event{events.DisqualificationRecorded{NationalID: "100001", From: "2024-01-01", To: "2024-12-31", Reason: "forged"}})
	events.Chain(envs, log.Head().Last)
	forged, _ := events.EncodeCommit(envs)
	if _, err := h.nc.Request(eventlog.RegistryPrefix+events.RegistryID, forged, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	for _, reg := range []*registry.Keeper{r, h.open()} {
		o, err := submit(t, reg, "2", `{"type":"RecordDisqualification","national_id":"100001","from":"2024-05-01","to":"2024-05-31","reason":"x"}`)
		if err != nil || o.Seq != 2 || o.Events[0].Data == nil {
			t.Fatalf("a command after the forged message: %v %+v", err, o)
		}
		folded, n, err := reg.Registry()
		if err != nil || n != 2 || len(folded.Periods) != 1 || folded.Periods[0].Reason != "x" {
			t.Fatalf("folded: %v, %d events, %+v", err, n, folded.Periods)
		}
	}
	buf.Reset()
	if err := h.open().Export(context.Background(), &buf, func(s string, _ uint64) { signed = s }); err != nil {
		t.Fatal(err)
	}
	ring := replay.Keyring{}
	v, _ := checkpoint.NewVerifier(h.keys.VerifierKey)
	ring[v.Name()] = []note.Verifier{v}
	if _, cp, err := replay.VerifyRegistry(buf.Bytes(), []byte(signed), ring); err != nil || cp.Size != 2 || bytes.Contains(buf.Bytes(), []byte("forged")) {
		t.Errorf("the export: %v, %d events:\n%s", err, cp.Size, buf.Bytes())
	}
}

// TestASnapshotCarriesTheHeadOfItsInstant: while commands go on, every
// snapshot of the registry's stream comes with the head of the log as it
// stood when JetStream took it (as many events as the snapshot holds
// commits, the last of them the one linked to), and Fold, reading the
// stream with no hub, finds the registry's own head.
func TestASnapshotCarriesTheHeadOfItsInstant(t *testing.T) {
	h := newHub(t)
	r := h.open()
	ctx := context.Background()
	done := make(chan error, 1)
	go func() {
		for i := range 40 {
			body := fmt.Sprintf(`{"type":"RecordDisqualification","national_id":"%d","from":"2024-05-01","to":"2024-05-31","reason":"x"}`, 100100+i)
			if _, err := submit(t, r, fmt.Sprint(i), body); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	taken := 0
	for running := true; running; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			running = false
		default:
		}
		var st eventlog.StreamState
		var head registry.Head
		var size int
		err := r.Snapshot(ctx, func(info eventlog.SnapshotInfo, hd registry.Head) error {
			var err error
			st, err = info.StreamState()
			head = hd
			return err
		}, func(b []byte) error { size += len(b); return nil })
		if err != nil {
			t.Fatal(err)
		}
		taken++
		if head.Unfolded != "" || head.Events != st.LastSeq || st.Msgs != st.LastSeq || (st.Msgs > 0 && (len(head.Root) == 0 || len(head.Last) == 0 || size == 0)) {
			t.Fatalf("snapshot %d: %d commits (%d bytes), head %+v", taken, st.Msgs, size, head)
		}
	}
	cp, _, err := r.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	folded, err := registry.Fold(ctx, h.nc, h.keys)
	if err != nil || folded.Events != 40 || folded.Unfolded != "" {
		t.Fatalf("Fold: %v %+v", err, folded)
	}
	if !strings.Contains(cp, base64.StdEncoding.EncodeToString(folded.Root)) {
		t.Errorf("Fold's root %x is not the one the registry signs:\n%s", folded.Root, cp)
	}
}

// TestExistingOpensOnlyARegistryThatIsThere: at a node whose JetStream has
// no registry stream (a venue), opening with Existing and Fold say so with
// events.ErrNoLog, and make none.
func TestExistingOpensOnlyARegistryThatIsThere(t *testing.T) {
	h := newHub(t)
	ctx := context.Background()
	for range 2 {
		if _, err := registry.Open(ctx, registry.Options{Conn: h.nc, Keys: h.keys, Roster: roster{}, Existing: true}); !errors.Is(err, events.ErrNoLog) {
			t.Fatalf("Open, Existing, without a stream: %v", err)
		}
	}
	if _, err := registry.Fold(ctx, h.nc, h.keys); !errors.Is(err, events.ErrNoLog) {
		t.Errorf("Fold without a stream: %v", err)
	}
	h.open() // makes it
	if _, err := registry.Open(ctx, registry.Options{Conn: h.nc, Keys: h.keys, Roster: roster{}, Existing: true}); err != nil {
		t.Errorf("Open, Existing, with a stream: %v", err)
	}
}
