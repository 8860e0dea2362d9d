package proof

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/mod/sumdb/note"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
)

// Format names the format of a proof file.
const Format = "referto-proof/1"

// ErrRefused reports a proof file that proves nothing: malformed, changed,
// or not signed by the keys given.
var ErrRefused = errors.New("proof: refused")

// Proof is a file a player can carry: one row of a published
// classification, the publication event's stored line, its RFC 6962
// inclusion proof in the log of the signed checkpoint, so that anyone
// with the venue's key checks the row without the log. The publication is
// a ClassificationPublished, or a ClassificationImported: a club
// workbook's standings published as the file has them (Rows).
type Proof struct {
	Format     string `json:"format"`
	Tournament string `json:"tournament"`
	// Checkpoint is the signed checkpoint (a note) of the log, of at
	// least Index+1 events.
	Checkpoint string `json:"checkpoint"`
	// Cosignatures are signature lines of the same note by a witness (the
	// hub's): what verify --proof --witness checks. Empty until a witness
	// cosigns (Cosign).
	Cosignatures string `json:"cosignatures,omitempty"`
	// Index is the publication's leaf (its seq - 1); Line its stored line,
	// byte for byte; Path the audit path of that leaf in the checkpoint's
	// tree.
	Index uint64   `json:"index"`
	Line  string   `json:"line"`
	Path  [][]byte `json:"path"`
	// Row is the classification row proved: one of the publication's.
	Row events.ClassificationRow `json:"row"`
}

// Encode is the proof file's bytes: the one encoding Verify accepts.
func (p *Proof) Encode() []byte {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		panic(fmt.Sprintf("proof: encode: %v", err)) // plain data
	}
	return append(b, '\n')
}

// New makes the proof of player's row in the publication stored as
// line at leaf index, whose audit path in the tree of signed is path.
func New(tournament, signed string, index uint64, line []byte, path [][]byte, player string) (*Proof, error) {
	rows, _, err := Rows(line)
	if err != nil {
		return nil, err
	}
	for _, row := range rows {
		if row.Player == player {
			if path == nil {
				path = [][]byte{}
			}
			return &Proof{Format: Format, Tournament: tournament, Checkpoint: signed, Index: index, Line: string(line), Path: path, Row: row}, nil
		}
	}
	return nil, fmt.Errorf("player %s has no row in the classification published at event %d", player, index+1)
}

// Rows are the rows the publication stored as line states, and whether
// it is a club workbook's standings imported as the file has them: a
// ClassificationPublished's rows, or each row of a ClassificationImported
// as the row a proof states of it (ImportedRow: its rank, player, name and
// total; no phase or status, which the file does not give).
func Rows(line []byte) (rows []events.ClassificationRow, imported bool, err error) {
	_, ev, err := events.DecodeLine(line)
	if err != nil {
		return nil, false, err
	}
	switch pub := ev.(type) {
	case events.ClassificationPublished:
		return pub.Rows, false, nil
	case events.ClassificationImported:
		for _, r := range pub.Rows {
			rows = append(rows, ImportedRow(r))
		}
		return rows, true, nil
	}
	return nil, false, fmt.Errorf("event is a %s, not a published classification", ev.EventType())
}

// ImportedRow is the row a proof states of a row of an imported
// classification.
func ImportedRow(r events.ImportedRow) events.ClassificationRow {
	return events.ClassificationRow{Rank: r.Rank, Player: r.Player, Name: r.Name, Total: r.Total}
}

// Cosign adds a witness's signature over the proof's checkpoint: what the
// hub's witness does to a proof it has checked.
func Cosign(p *Proof, witness note.Signer) error {
	text, _, ok := strings.Cut(p.Checkpoint, "\n\n")
	if !ok {
		return fmt.Errorf("%w: the checkpoint has no signature block", ErrRefused)
	}
	signed, err := note.Sign(&note.Note{Text: text + "\n"}, witness)
	if err != nil {
		return err
	}
	_, sigs, _ := strings.Cut(string(signed), "\n\n")
	p.Cosignatures += sigs
	return nil
}

func refuse(format string, args ...any) (*Result, error) {
	return nil, fmt.Errorf("%w: %s", ErrRefused, fmt.Sprintf(format, args...))
}

// Result is what a proof proved.
type Result struct {
	Proof      Proof
	Checkpoint checkpoint.Checkpoint
	// Witnessed is set when a witness key was given and its cosignature
	// verified.
	Witnessed bool
	// Imported is set when the publication is a club workbook's standings,
	// imported as the file has them (events.ClassificationImported).
	Imported bool
}

// Verify checks a proof file offline: its bytes are the proof's one
// encoding (so any changed byte is refused), the checkpoint is signed by
// key (and, when witness is given, cosigned by it), the publication line
// is the leaf Index of the checkpoint's tree, and the row is one of that
// publication's rows, as it states.
//
// A RowProof (no "format" member) is checked as VerifyRow checks it.
func Verify(b []byte, key, witness note.Verifier) (*Result, error) {
	if key == nil {
		return refuse("no trusted key given (--key): the signature could be anyone's")
	}
	var probe struct {
		Format *string `json:"format"`
	}
	if json.Unmarshal(b, &probe) == nil && probe.Format == nil {
		return VerifyRow(b, key, witness)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p Proof
	if err := dec.Decode(&p); err != nil {
		return refuse("not a proof file: %v", err)
	}
	if !bytes.Equal(p.Encode(), b) {
		return refuse("the file is not as it was written (a byte changed, added or removed)")
	}
	if p.Format != Format {
		return refuse("format %q, want %s", p.Format, Format)
	}
	res, err := verifyProof(&p, key)
	if err != nil {
		return nil, err
	}
	if witness != nil {
		n, err := note.Open([]byte(p.Checkpoint+p.Cosignatures), note.VerifierList(witness))
		if err != nil || len(n.Sigs) == 0 {
			return refuse("the checkpoint is not cosigned by the witness %s", witness.Name())
		}
		res.Witnessed = true
	}
	return res, nil
}

// verifyProof checks what every proof proves: the checkpoint signed by
// key, the line the leaf Index of its tree, a publication of the
// tournament holding the row.
func verifyProof(p *Proof, key note.Verifier) (*Result, error) {
	msg := []byte(p.Checkpoint + p.Cosignatures)
	if err := strictSignatures(msg); err != nil {
		return refuse("the checkpoint: %v", err)
	}
	cp, err := checkpoint.Open(msg, key)
	if err != nil {
		return refuse("the checkpoint: %v", err)
	}
	res := &Result{Proof: *p, Checkpoint: cp}
	if cp.Origin != checkpoint.Origin(p.Tournament) {
		return refuse("the checkpoint is of %s, not %s", cp.Origin, checkpoint.Origin(p.Tournament))
	}
	if p.Index >= cp.Size {
		return refuse("event %d is not in the checkpoint's %d events", p.Index+1, cp.Size)
	}
	if err := checkpoint.VerifyInclusion(p.Index, cp.Size, checkpoint.LeafHash([]byte(p.Line)), p.Path, cp.Root); err != nil {
		return refuse("the publication is not event %d of the signed log: %v", p.Index+1, err)
	}
	env, err := events.DecodeEnvelope([]byte(p.Line))
	if err != nil {
		return refuse("the publication line: %v", err)
	}
	rows, imported, err := Rows([]byte(p.Line))
	if err != nil || env.Tournament != p.Tournament || env.Seq != p.Index+1 {
		return refuse("event %d of %s is no published classification", p.Index+1, p.Tournament)
	}
	res.Imported = imported
	for _, row := range rows {
		if row == p.Row {
			return res, nil
		}
	}
	return refuse("the publication has no row %+v", p.Row)
}

// RowProof is the proof GET /v1/tournaments/{t}/classification/rows/{player}/proof
// serves: the row, the stored line of the publication that states it, that
// line's RFC 6962 audit path in the log of Size events, the checkpoint of
// that log signed then, and the consistency proof from the checkpoint the
// publication embeds (the log it was derived from) to it. It is written as
// encoding/json writes it, one line.
type RowProof struct {
	Tournament          string                   `json:"tournament"`
	Player              string                   `json:"player"`
	Row                 events.ClassificationRow `json:"row"`
	Seq                 uint64                   `json:"seq"`
	Line                string                   `json:"line"`
	Index               uint64                   `json:"index"`
	Size                uint64                   `json:"size"`
	LeafHash            []byte                   `json:"leaf_hash"`
	Hashes              [][]byte                 `json:"hashes"`
	Checkpoint          string                   `json:"checkpoint"`
	PublishedCheckpoint string                   `json:"published_checkpoint,omitempty"`
	Consistency         [][]byte                 `json:"consistency"`
}

// VerifyRow checks a RowProof file offline as Verify checks a proof file
// (its bytes the one encoding, so any changed byte is refused), and the
// consistency proof from the checkpoint the publication embeds, when it
// has one, to the signed checkpoint. It has no slot for a witness: with
// witness given it is refused.
func VerifyRow(b []byte, key, witness note.Verifier) (*Result, error) {
	if key == nil {
		return refuse("no trusted key given (--key): the signature could be anyone's")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p RowProof
	if err := dec.Decode(&p); err != nil {
		return refuse("not a proof file: %v", err)
	}
	if again, err := json.Marshal(p); err != nil || !bytes.Equal(append(again, '\n'), b) {
		return refuse("the file is not as it was written (a byte changed, added or removed)")
	}
	if witness != nil {
		return refuse("a row proof carries no witness's cosignature")
	}
	pf := Proof{Format: Format, Tournament: p.Tournament, Checkpoint: p.Checkpoint, Index: p.Index, Line: p.Line, Path: p.Hashes, Row: p.Row}
	if p.Seq != p.Index+1 || !bytes.Equal(p.LeafHash, checkpoint.LeafHash([]byte(p.Line))) || p.Row.Player != p.Player {
		return refuse("its seq, index, leaf hash and player do not agree with its line and row")
	}
	res, err := verifyProof(&pf, key)
	if err != nil {
		return nil, err
	}
	if res.Checkpoint.Size != p.Size {
		return refuse("the checkpoint is of %d events, the proof says %d", res.Checkpoint.Size, p.Size)
	}
	if p.PublishedCheckpoint != "" {
		pc, err := checkpoint.Open([]byte(p.PublishedCheckpoint), key)
		if err == nil {
			err = strictSignatures([]byte(p.PublishedCheckpoint))
		}
		if err != nil {
			return refuse("the publication's checkpoint: %v", err)
		}
		if pc.Origin != res.Checkpoint.Origin {
			return refuse("the publication's checkpoint is of %s", pc.Origin)
		}
		if err := checkpoint.VerifyConsistency(pc.Size, p.Size, p.Consistency, pc.Root, res.Checkpoint.Root); err != nil {
			return refuse("the log the publication was derived from is not the start of the signed log: %v", err)
		}
	}
	return res, nil
}

// strictSignatures refuses a note whose signature lines are not each the
// one base64 encoding of their bytes: note.Open reads base64 leniently, so
// that a changed padding bit would leave the signature valid and the
// file changed.
func strictSignatures(msg []byte) error {
	_, sigs, ok := bytes.Cut(msg, []byte("\n\n"))
	if !ok {
		return errors.New("no signature block")
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(sigs), "\n"), "\n") {
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			return fmt.Errorf("signature line %q", line)
		}
		if _, err := base64.StdEncoding.Strict().DecodeString(line[i+1:]); err != nil {
			return fmt.Errorf("signature of %q is not in its one base64 encoding", line[:i])
		}
	}
	return nil
}
