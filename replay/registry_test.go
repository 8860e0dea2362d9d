package replay_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/projections/ranking"
	"github.com/referto/referto/replay"
)

// TestVerifyRegistryRefusesWhatTheHubDidNotSign: a registry export
// verifies under the hub's key and folds; signed by a key not in the
// keyring, signed as another log, cut short, or with a line more or less
// than its checkpoint, it is refused.
func TestVerifyRegistryRefusesWhatTheHubDidNotSign(t *testing.T) {
	hub, _ := checkpoint.LoadOrCreateKeys(t.TempDir(), "referto", nil)
	other, _ := checkpoint.LoadOrCreateKeys(t.TempDir(), "referto", nil)
	log := ranking.NewRegistryLog()
	var export []byte
	for i, ev := range []events.Event{events.PlayersMerged{From: "100002", Into: "100001", Reason: "one person"},
		events.DisqualificationRecorded{NationalID: "100001", From: "2024-05-01", To: "2024-05-31", Reason: "art. 5"}} {
		envs, _ := events.Seal(events.RegistryID, uint64(i+1), time.Date(2024, 7, 1, 0, 0, 0, 0, time.UTC), events.Actor{ID: "admin", Role: events.RoleAdmin}, "k", []events.Event{ev})
		events.Chain(envs, log.Head().Last)
		body, _ := events.EncodeCommit(envs)
		if _, err := log.Append(bytes.TrimSuffix(body, []byte("\n"))); err != nil {
			t.Fatal(err)
		}
		export = append(export, body...)
	}
	sign := func(k *checkpoint.Keys, cp checkpoint.Checkpoint) []byte {
		s, err := checkpoint.Sign(cp, k.Signer)
		if err != nil {
			t.Fatal(err)
		}
		return []byte(s)
	}
	ring := replay.Keyring{}
	v, _ := checkpoint.NewVerifier(hub.VerifierKey)
	ring[v.Name()] = append(ring[v.Name()], v)
	signed := sign(hub, log.Checkpoint())
	reg, cp, err := replay.VerifyRegistry(export, signed, ring)
	if err != nil || cp.Size != 2 || reg.Resolve("100002") != "100001" || len(reg.Periods) != 1 {
		t.Fatalf("the hub's export: %v %+v", err, cp)
	}
	asTournament := log.Checkpoint()
	asTournament.Origin = checkpoint.Origin(events.RegistryID)
	first := export[:bytes.IndexByte(export, '\n')+1]
	for name, c := range map[string]struct{ export, signed []byte }{
		"another key's":   {export, sign(other, log.Checkpoint())},
		"a tournament's":  {export, sign(hub, asTournament)},
		"cut short":       {export[:len(export)-1], signed},
		"a line fewer":    {first, signed},
		"a changed line":  {bytes.Replace(export, []byte("art. 5"), []byte("art. 6"), 1), signed},
		"a line repeated": {append(append([]byte(nil), export...), first...), signed},
	} {
		if _, _, err := replay.VerifyRegistry(c.export, c.signed, ring); !errors.Is(err, replay.ErrRegistry) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
