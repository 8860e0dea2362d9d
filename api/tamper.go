package api

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"

	"github.com/gorilla/mux"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
)

// Tamper evidence: the verifier key, signed checkpoints, inclusion and
// consistency proofs, and the export of a tournament's log byte for byte.

// inspect, after a read of tournament t's log failed or did not check,
// looks for damage there (Options.Inspect): found, the tournament is
// marked damaged, its commands refused, and the error says so.
func (s *Server) inspect(ctx context.Context, t string) error {
	if s.opts.Inspect == nil {
		return nil
	}
	if d, ok := s.opts.Inspect(ctx, t); ok {
		return &ledger.DamageError{Damage: d}
	}
	return nil
}

func (s *Server) getKeys(w http.ResponseWriter, _ *http.Request) {
	keys := map[string]any{"checkpoint": s.opts.Keys.VerifierKey,
		"format": "golang.org/x/mod/sumdb/note verifier key; checkpoints are notes of origin, size and base64 RFC 6962 root"}
	if s.opts.Hub != nil {
		keys["witness"] = s.opts.Hub.WitnessKey()
	}
	writeJSON(w, http.StatusOK, keys)
}

// sizeParam reads ?name=N, defaulting to the log's size, and checks it.
func (s *Server) sizeParam(r *http.Request, name string, size uint64) (uint64, error) {
	n, err := queryUint(r, name, size)
	if err != nil {
		return 0, err
	}
	if n < 1 || n > size {
		return 0, &commands.FieldError{Field: name, Msg: fmt.Sprintf("must be between 1 and %d, the size of the log", size)}
	}
	return n, nil
}

// signedCheckpoint signs the checkpoint of the first size events of t.
//
// A tournament whose log is damaged gets none: a checkpoint of its
// verified prefix, shorter than one signed before, would read as the log
// rewritten.
func (s *Server) signedCheckpoint(t string, size uint64) (string, error) {
	if d, ok := s.opts.Ledger.Damaged(t); ok {
		return "", &ledger.DamageError{Damage: d}
	}
	root, err := s.reader.RootAt(t, size)
	if err != nil {
		return "", err
	}
	return checkpoint.Sign(checkpoint.Checkpoint{Origin: checkpoint.Origin(t), Size: size, Root: root}, s.opts.Keys.Signer)
}

// proofCheckpoint is the checkpoint a proof of event seq is made under,
// and its size: the last one the hub's witness cosigned when it covers seq
// and cosigned is preferred, or one signed now. A hub signs no venue's
// log: there only a cosigned checkpoint (the venue's signature and the
// hub's) will do, and a proof of an event past it is not found yet.
func (s *Server) proofCheckpoint(t string, seq uint64, cosigned bool) (string, uint64, error) {
	if s.opts.Cosigned != nil && (cosigned || s.opts.Hub != nil) {
		if note, n, ok := s.opts.Cosigned(t); ok && n >= seq {
			return note, n, nil
		}
	}
	if s.opts.Hub != nil {
		return "", 0, fmt.Errorf("%w: no checkpoint of tournament %s cosigned here covers event %d yet", errNotFound, t, seq)
	}
	size, err := s.reader.Size(t)
	if err != nil {
		return "", 0, err
	}
	note, err := s.signedCheckpoint(t, size)
	return note, size, err
}

func (s *Server) getCheckpoint(w http.ResponseWriter, r *http.Request) error {
	t := mux.Vars(r)["t"]
	size, err := s.reader.Size(t)
	if err == nil {
		size, err = s.sizeParam(r, "size", size)
	}
	var note string
	if err == nil {
		note, err = s.signedCheckpoint(t, size)
	}
	if err != nil {
		return err
	}
	// Once a hub cosigned this very checkpoint, it is served cosigned.
	if s.opts.Cosigned != nil {
		if cosigned, cs, ok := s.opts.Cosigned(t); ok && cs == size {
			note = cosigned
		}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte(note))
	return nil
}

type proofResponse struct {
	Index    uint64   `json:"index"`
	Size     uint64   `json:"size"`
	LeafHash []byte   `json:"leaf_hash"`
	Hashes   [][]byte `json:"hashes"`
}

// getProof serves the RFC 6962 audit path of event seq (leaf seq-1) in the
// tree of ?size=N events (default: the whole log).
func (s *Server) getProof(w http.ResponseWriter, r *http.Request) error {
	t := mux.Vars(r)["t"]
	seq, err := strconv.ParseUint(mux.Vars(r)["seq"], 10, 64)
	if err != nil || seq < 1 {
		return &commands.FieldError{Field: "seq", Msg: "the event's seq, from 1"}
	}
	size, err := s.reader.Size(t)
	if err == nil {
		size, err = s.sizeParam(r, "size", size)
	}
	if err == nil && seq > size {
		err = &commands.FieldError{Field: "seq", Msg: fmt.Sprintf("event %d is not in a log of %d events", seq, size)}
	}
	var path [][]byte
	var leaf []byte
	if err == nil {
		leaf, path, err = s.reader.InclusionProof(t, seq, size)
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, proofResponse{Index: seq - 1, Size: size, LeafHash: leaf, Hashes: path})
	return nil
}

func (s *Server) getConsistency(w http.ResponseWriter, r *http.Request) error {
	t := mux.Vars(r)["t"]
	size, err := s.reader.Size(t)
	var from, to uint64
	if err == nil {
		to, err = s.sizeParam(r, "to", size)
	}
	if err == nil {
		from, err = s.sizeParam(r, "from", to)
	}
	var path [][]byte
	if err == nil {
		path, err = s.reader.ConsistencyProof(t, from, to)
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"from": from, "to": to, "hashes": path})
	return nil
}

// CheckpointHeader carries the export's signed checkpoint (base64 of the note).
const CheckpointHeader = "Referto-Checkpoint"

// getExport streams a tournament's whole log, one event per line exactly as
// stored, with the signed checkpoint of exactly those events in a header.
func (s *Server) getExport(w http.ResponseWriter, r *http.Request) error {
	t := mux.Vars(r)["t"]
	if _, err := s.authorize(r, t, events.RoleArbiter, events.RoleAppeals, events.RoleAuditor); err != nil {
		return err
	}
	if d, ok := s.opts.Ledger.Damaged(t); ok {
		// Its verified prefix, with a checkpoint of it, would read as the
		// whole log.
		return &ledger.DamageError{Damage: d}
	}
	size, err := s.reader.Size(t)
	var note string
	if err == nil {
		note, err = s.signedCheckpoint(t, size)
	}
	if err != nil {
		return err
	}
	var root []byte
	if cp, _, err := checkpoint.OpenUnverified([]byte(note)); err == nil {
		root = cp.Root
	}
	// The lines are checked as they go out against the root signed: a log
	// damaged since it was checked is cut off, not served.
	return s.writeExport(w, r, t, size, note, root)
}

// writeExport streams tournament t's first size events as stored
// (Reader.Export), with the signed checkpoint note of them in a header.
// An export refused before its first commit (every export slot taken)
// is answered as a problem. A read that fails after it cuts the
// response: the status line is gone, and the only honest signal left is
// a failed transfer, not a short log.
func (s *Server) writeExport(w http.ResponseWriter, r *http.Request, t string, size uint64, note string, root []byte) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	started := false
	start := func() {
		started = true
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.Header().Set(CheckpointHeader, base64.StdEncoding.EncodeToString([]byte(note)))
		w.Header().Set("Referto-Events", strconv.FormatUint(size, 10))
	}
	err := s.reader.Export(r.Context(), t, size, root, func(commit []byte) error {
		if !started {
			start()
		}
		_, err := bw.Write(commit)
		return err
	})
	if err != nil && !started {
		return err
	}
	if !started {
		start()
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil && r.Context().Err() == nil {
		s.opts.Logger.Error("export aborted", "tournament", t, "err", err)
		panic(http.ErrAbortHandler)
	}
	return nil
}
