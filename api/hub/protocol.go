package hub

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/referto/referto/events/eventlog"
)

// The witness protocol runs over the venue's leaf link as NATS requests
// to AddCheckpointSubject, in the manner of C2SP tlog-witness's
// add-checkpoint: the body is "old N", the consistency proof from size N
// to the checkpoint's (one base64 hash a line), an empty line, then the
// signed checkpoint. The venue names itself in VenueHeader; the answer's
// StatusHeader is tlog-witness's HTTP status: 200 with the cosignature
// lines, 409 with the size the hub last cosigned (as text), 403 a bad
// signature or a tournament of another venue, 404 a venue not
// registered, 422 an inconsistent proof (a fork) or a log that fails
// verification, 503 the hub's copy not there yet.
const (
	AddCheckpointSubject = "referto.hub.add-checkpoint"
	VenueHeader          = "Referto-Venue"
	StatusHeader         = "Referto-Status"
)

// CosignedSubject is where the hub asks venue for the last checkpoint of a
// tournament it cosigned that the venue holds: the request's body is the
// tournament's id, the answer the cosigned note (empty: none). Only the
// venue's own leaf link receives it (eventlog.VenuePermissions).
func CosignedSubject(venue string) string { return eventlog.VenueRequestPrefix + venue + ".cosigned" }

// addCheckpoint is a parsed add-checkpoint request.
type addCheckpoint struct {
	Old    uint64
	Proof  [][]byte
	Signed []byte
}

func formatAddCheckpoint(old uint64, proof [][]byte, signed []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "old %d\n", old)
	for _, h := range proof {
		b.WriteString(base64.StdEncoding.EncodeToString(h))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	b.Write(signed)
	return b.Bytes()
}

func parseAddCheckpoint(body []byte) (addCheckpoint, error) {
	head, signed, ok := bytes.Cut(body, []byte("\n\n"))
	if !ok {
		return addCheckpoint{}, errors.New("hub: add-checkpoint: no empty line before the checkpoint")
	}
	lines := strings.Split(string(head), "\n")
	n, ok := strings.CutPrefix(lines[0], "old ")
	old, err := strconv.ParseUint(n, 10, 64)
	if !ok || err != nil {
		return addCheckpoint{}, fmt.Errorf("hub: add-checkpoint: first line %q is not \"old N\"", lines[0])
	}
	r := addCheckpoint{Old: old, Signed: signed}
	for _, l := range lines[1:] {
		h, err := base64.StdEncoding.DecodeString(l)
		if err != nil || len(h) != 32 {
			return addCheckpoint{}, fmt.Errorf("hub: add-checkpoint: proof line %q is not a base64 hash", l)
		}
		r.Proof = append(r.Proof, h)
	}
	return r, nil
}
