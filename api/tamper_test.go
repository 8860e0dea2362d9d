package api_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
)

// TestTamperEvidenceAsAnAuditorSeesIt checks the log from outside: the
// verifier key, the signed checkpoint, the root recomputed from the export,
// an inclusion proof for every event, a consistency proof between two
// checkpoints, and the checkpoint a published classification embeds.
func TestTamperEvidenceAsAnAuditorSeesIt(t *testing.T) {
	s := newStack(t)
	arb := s.create("bo", "rtu")
	aud := s.appoint("bo", "auditor")
	for i := range 5 {
		s.must(201, "POST", "/v1/tournaments/bo/commands", arb, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%d","name":"P"}`, i))
	}
	var keys struct {
		Checkpoint string `json:"checkpoint"`
	}
	json.Unmarshal(s.must(200, "GET", "/v1/keys", "", nil).body, &keys)
	v, err := checkpoint.NewVerifier(keys.Checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	early, err := checkpoint.Open(s.must(200, "GET", "/v1/tournaments/bo/checkpoint?size=3", "", nil).body, v)
	if err != nil || early.Size != 3 || early.Origin != "referto/bo" {
		t.Fatalf("checkpoint at 3: %+v %v", early, err)
	}
	for i := 5; i < 8; i++ {
		s.must(201, "POST", "/v1/tournaments/bo/commands", arb, fmt.Sprintf(`{"type":"RegisterPlayer","player":"p%d","name":"P"}`, i))
	}
	cp, err := checkpoint.Open(s.must(200, "GET", "/v1/tournaments/bo/checkpoint", "", nil).body, v)
	if err != nil || cp.Size != 11 {
		t.Fatalf("current checkpoint: %+v %v", cp, err)
	}

	// The export: the stored lines, and the signed checkpoint of exactly them.
	s.must(401, "GET", "/v1/tournaments/bo/export", "", nil)
	ex := s.must(200, "GET", "/v1/tournaments/bo/export", aud, nil)
	note, _ := base64.StdEncoding.DecodeString(ex.header.Get("Referto-Checkpoint"))
	excp, err := checkpoint.Open(note, v)
	if err != nil || excp.Size != 11 || !bytes.Equal(excp.Root, cp.Root) {
		t.Fatalf("export checkpoint %+v, %v", excp, err)
	}
	tree := checkpoint.NewTree()
	var lines [][]byte
	sc := bufio.NewScanner(bytes.NewReader(ex.body))
	for sc.Scan() {
		line := bytes.Clone(sc.Bytes())
		if _, err := events.DecodeEnvelope(line); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line)
		tree.Append(line, nil)
	}
	if tree.Size() != 11 || !bytes.Equal(tree.Root(), cp.Root) {
		t.Fatalf("root of the export (%d lines) %x, checkpoint %x", tree.Size(), tree.Root(), cp.Root)
	}
	// The export is the events endpoint's NDJSON, byte for byte.
	if nd := s.must(200, "GET", "/v1/tournaments/bo/events?limit=1000", aud, nil, "Accept", "application/x-ndjson"); !bytes.Equal(nd.body, ex.body) {
		t.Error("export and events NDJSON differ")
	}

	// Inclusion proofs: each event against the checkpoint, public.
	for seq := 1; seq <= 11; seq++ {
		var p struct {
			Index    uint64   `json:"index"`
			Size     uint64   `json:"size"`
			LeafHash []byte   `json:"leaf_hash"`
			Hashes   [][]byte `json:"hashes"`
		}
		json.Unmarshal(s.must(200, "GET", fmt.Sprintf("/v1/tournaments/bo/events/%d/proof", seq), "", nil).body, &p)
		if p.Index != uint64(seq-1) || p.Size != 11 || !bytes.Equal(p.LeafHash, checkpoint.LeafHash(lines[seq-1])) {
			t.Fatalf("proof of %d: %+v", seq, p)
		}
		if err := checkpoint.VerifyInclusion(p.Index, p.Size, p.LeafHash, p.Hashes, cp.Root); err != nil {
			t.Errorf("inclusion of event %d: %v", seq, err)
		}
	}
	// Consistency: the log only grew between the two checkpoints.
	var c struct {
		From, To uint64
		Hashes   [][]byte
	}
	json.Unmarshal(s.must(200, "GET", "/v1/tournaments/bo/consistency?from=3&to=11", "", nil).body, &c)
	if err := checkpoint.VerifyConsistency(3, 11, c.Hashes, early.Root, cp.Root); err != nil {
		t.Errorf("consistency 3 → 11: %v", err)
	}
	s.must(400, "GET", "/v1/tournaments/bo/events/12/proof", "", nil)
	s.must(400, "GET", "/v1/tournaments/bo/consistency?from=4&to=99", "", nil)
	s.must(404, "GET", "/v1/tournaments/nope/checkpoint", "", nil)

	// A published classification embeds the signed checkpoint of the log
	// it was derived from: everything before the publication.
	r := s.must(201, "POST", "/v1/tournaments/bo/commands", arb, `{"type":"PublishClassification","final":false}`)
	var out struct {
		Events []struct {
			Seq  uint64          `json:"seq"`
			Data json.RawMessage `json:"data"`
		} `json:"events"`
	}
	json.Unmarshal(r.body, &out)
	var pub events.ClassificationPublished
	json.Unmarshal(out.Events[0].Data, &pub)
	pubcp, err := checkpoint.Open([]byte(pub.Checkpoint), v)
	if err != nil || pubcp.Size != out.Events[0].Seq-1 || !bytes.Equal(pubcp.Root, cp.Root) {
		t.Errorf("published checkpoint %+v, %v; want size %d and the root of the log before it", pubcp, err, out.Events[0].Seq-1)
	}
}
