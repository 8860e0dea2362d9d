// Package repair brings a venue's damaged log back (referto repair): every
// message of its stream put back at its stream sequence, from what of the
// log is intact, a backup, and the national hub's copy, checked against
// the venue's record of acknowledged heads, its own signatures and the
// hub's cosignatures before anything is replaced.
package repair

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/nats-io/nats.go"
	"golang.org/x/mod/sumdb/note"

	"github.com/referto/referto/api/hub"
	"github.com/referto/referto/api/node"
	"github.com/referto/referto/api/node/backup"
	"github.com/referto/referto/commands/ledger"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/atomicfile"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/events/eventlog"
	"github.com/referto/referto/replay"
)

// Message is one message of the venue's stream as a source holds it.
type Message struct {
	StreamSeq  uint64
	Tournament string
	MsgID      string
	Request    string
	Seal       string
	Data       []byte
}

// Hub is the national hub's copy of the venue's log (api/client.Client,
// adapted): every message of tournament t it sourced from the venue, with
// its stream sequence at the venue, and the last checkpoint of t it
// cosigned (nil when none). proof is the venue's signed request
// (api/hub.VenueLogProof).
type Hub interface {
	VenueLog(ctx context.Context, t string, proof []byte) (cosigned []byte, msgs []Message, err error)
}

// Options configures Repair.
type Options struct {
	// Data is the venue's data directory; no server may run on it.
	// Required.
	Data string
	// Backup is a backup file of the venue (referto backup); "" for none.
	Backup string
	// Hub is the national hub's copy; nil for none. At least one of
	// Backup and Hub is required.
	Hub Hub
	// Witness, when set, is the hub's witness key: every cosignature the
	// hub sends must verify with it. Without it cosignatures are not
	// checked, only the venue's signature under them.
	Witness note.Verifier
	// Clock names the moved-aside directories; the default is time.Now.
	Clock func() time.Time
	// Progress, when set, is told what is being done, a line at a time.
	Progress io.Writer
}

// Report is what a repair did.
type Report struct {
	// Tournaments, by id.
	Tournaments []Tournament
	// Messages is the stream's length after the repair.
	Messages uint64
	// Aside is where the damaged log was moved (kept, never deleted), and
	// ProjectionsAside where the projections were (rebuilt at the next
	// start); "" when there were none.
	Aside, ProjectionsAside string
}

// Tournament is one tournament's repair.
type Tournament struct {
	ID string
	// Acknowledged is how many events the venue acknowledged (its record
	// of acknowledged heads); Events how many the repaired log holds.
	Acknowledged, Events uint64
	// Damage is what was wrong in the log, nil when it was intact.
	Damage *ledger.Damage
	// Messages kept from the log, and taken from the backup and the hub.
	Kept, FromBackup, FromHub int
	// Cosigned is the size of the hub's last cosigned checkpoint the
	// repaired log was checked against (0: none).
	Cosigned uint64
}

// Repair rebuilds the stream of the data directory o.Data: each stream
// sequence from the log when its tournament's log is intact up to it,
// otherwise from the backup, otherwise from the hub's copy; every
// tournament's repaired log must hold together (seqs and links), hold all
// that was acknowledged of it with the acknowledged Merkle root, agree
// with the hub's cosigned checkpoint, and verify with the venue's key
// (replay.Verify: signatures, draws, published classifications). Only
// then is the damaged log moved aside (nats.damaged-<time>) and the
// repaired one put in its place, and the projections moved aside to be
// rebuilt. On any failure the directory is left as it was, but for a
// staging directory removed.
func Repair(ctx context.Context, o Options) (*Report, error) {
	if o.Data == "" || o.Backup == "" && o.Hub == nil {
		return nil, errors.New("repair: a data directory and a backup or a hub are required")
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	layout := node.Layout{Dir: o.Data}
	if _, err := os.Stat(layout.HubState()); err == nil {
		return nil, fmt.Errorf("repair: %s is a national hub's: its copies of the venues' logs are sourced again from them, not repaired", o.Data)
	}
	lock, err := layout.Lock()
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	keys, err := checkpoint.LoadKeys(layout.Keys())
	if err != nil {
		return nil, fmt.Errorf("repair: %w: the venue's key signs the requests to the hub and checks what comes back; restore keys/ first", err)
	}
	heads, created, err := node.OpenHeads(layout.Heads())
	if err != nil {
		return nil, err
	}
	acked := heads.All()
	heads.Close()
	if created {
		os.Remove(layout.Heads()) // none was there: leave none behind
		fmt.Fprintln(o.Progress, "no record of acknowledged heads: the repaired log is checked against the hub's cosignatures and the venue's signatures only")
	}
	r := &repairer{o: o, keys: keys, acked: acked, final: map[uint64]Message{}, byT: map[string]*Tournament{}}

	// The log as it is: what is intact of each tournament is kept.
	local, err := r.readLocal(ctx, layout)
	if err != nil {
		return nil, err
	}
	var backupMsgs map[uint64]Message
	if o.Backup != "" {
		if backupMsgs, err = r.readBackup(ctx, layout); err != nil {
			return nil, err
		}
	}
	hubMsgs := map[uint64]Message{}
	cosigned := map[string][]byte{}
	if o.Hub != nil {
		for _, t := range r.tournaments(local, backupMsgs) {
			proof, err := hub.VenueLogProof(t, o.Clock(), keys.Signer)
			if err != nil {
				return nil, err
			}
			cs, msgs, err := o.Hub.VenueLog(ctx, t, proof)
			if err != nil {
				return nil, fmt.Errorf("repair: the hub's copy of %s: %w", t, err)
			}
			for _, m := range msgs {
				m.Tournament = t
				hubMsgs[m.StreamSeq] = m
			}
			if cs != nil {
				cosigned[t] = cs
			}
			fmt.Fprintf(o.Progress, "hub: %d messages of %s\n", len(msgs), t)
		}
	}
	if err := r.assemble(local, backupMsgs, hubMsgs); err != nil {
		return nil, err
	}
	if err := r.verify(cosigned); err != nil {
		return nil, err
	}
	staging := filepath.Join(o.Data, "nats.repairing")
	if err := r.write(ctx, staging); err != nil {
		os.RemoveAll(staging)
		return nil, err
	}
	rep := &Report{Messages: r.last}
	stamp := o.Clock().Unix()
	rep.Aside = fmt.Sprintf("%s.damaged-%d", layout.NATS(), stamp)
	if err := os.Rename(layout.NATS(), rep.Aside); err != nil {
		os.RemoveAll(staging)
		return nil, err
	}
	if err := os.Rename(staging, layout.NATS()); err != nil {
		return nil, fmt.Errorf("repair: the repaired log is in %s and the damaged one in %s: %w", staging, rep.Aside, err)
	}
	if _, err := os.Stat(layout.Projections()); err == nil {
		rep.ProjectionsAside = fmt.Sprintf("%s.repaired-%d", layout.Projections(), stamp)
		if err := os.Rename(layout.Projections(), rep.ProjectionsAside); err != nil {
			return nil, err
		}
	}
	if err := atomicfile.SyncDir(o.Data); err != nil {
		return nil, err
	}
	for _, t := range slices.Sorted(maps.Keys(r.byT)) {
		rep.Tournaments = append(rep.Tournaments, *r.byT[t])
	}
	return rep, nil
}

type repairer struct {
	o     Options
	keys  *checkpoint.Keys
	acked map[string]ledger.AckedHead
	// final is the repaired stream, by stream sequence, up to last.
	final map[uint64]Message
	last  uint64
	byT   map[string]*Tournament
}

func (r *repairer) tournament(t string) *Tournament {
	tr := r.byT[t]
	if tr == nil {
		tr = &Tournament{ID: t, Acknowledged: r.acked[t].Size}
		r.byT[t] = tr
	}
	return tr
}

// readLocal reads the log in the directory and keeps of each tournament
// the commits before its first damaged event.
func (r *repairer) readLocal(ctx context.Context, layout node.Layout) (map[uint64]Message, error) {
	all, err := readLog(ctx, layout, node.LogOptions{Locked: true})
	if err != nil {
		return nil, fmt.Errorf("repair: the log in %s: %w", layout.NATS(), err)
	}
	byT := map[string][]Message{}
	for _, s := range slices.Sorted(maps.Keys(all)) {
		byT[all[s].Tournament] = append(byT[all[s].Tournament], all[s])
	}
	for t := range r.acked {
		if _, ok := byT[t]; !ok {
			byT[t] = nil
		}
	}
	kept := map[uint64]Message{}
	for _, t := range slices.Sorted(maps.Keys(byT)) {
		tr := r.tournament(t)
		c := ledger.NewChain(t, r.acked[t], nil)
		var d *ledger.Damage
		for _, m := range byT[t] {
			if d = c.Add(stored(m)); d != nil {
				break
			}
		}
		if d == nil {
			d = c.End()
		}
		for _, m := range byT[t] {
			if d == nil || m.StreamSeq < d.From() {
				kept[m.StreamSeq] = m
				tr.Kept++
			}
		}
		if d != nil {
			d.Acknowledged = r.acked[t].Size
			tr.Damage = d
			fmt.Fprintf(r.o.Progress, "log: %s\n", d)
		}
	}
	return kept, nil
}

// readBackup restores the backup beside the directory, checks it is this
// venue's (its key), and reads its log.
func (r *repairer) readBackup(ctx context.Context, layout node.Layout) (map[uint64]Message, error) {
	tmp, err := os.MkdirTemp(filepath.Dir(filepath.Clean(layout.Dir)), "."+filepath.Base(layout.Dir)+".repair-backup-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if _, err := backup.Restore(ctx, r.o.Backup, tmp); err != nil {
		return nil, fmt.Errorf("repair: backup %s: %w", r.o.Backup, err)
	}
	bl := node.Layout{Dir: tmp}
	keys, err := checkpoint.LoadKeys(bl.Keys())
	if err != nil {
		return nil, err
	}
	if keys.VerifierKey != r.keys.VerifierKey {
		return nil, fmt.Errorf("repair: backup %s is of another venue (key %s, this one's is %s)", r.o.Backup, keys.VerifierKey, r.keys.VerifierKey)
	}
	msgs, err := readLog(ctx, bl, node.LogOptions{})
	if err != nil {
		return nil, fmt.Errorf("repair: backup %s: %w", r.o.Backup, err)
	}
	fmt.Fprintf(r.o.Progress, "backup: %d messages\n", len(msgs))
	return msgs, nil
}

// readLog reads every message of the log of layout.
func readLog(ctx context.Context, layout node.Layout, o node.LogOptions) (map[uint64]Message, error) {
	lg, closeLog, err := node.OpenLog(ctx, layout, o)
	if err != nil {
		return nil, err
	}
	defer closeLog()
	last, err := lg.LastSeq(ctx)
	if err != nil {
		return nil, err
	}
	out := map[uint64]Message{}
	err = lg.Scan(ctx, 1, last, "", func(m events.StoredCommit) error {
		out[m.StreamSeq] = Message{StreamSeq: m.StreamSeq, Tournament: m.Tournament, MsgID: m.MsgID, Request: m.Request, Seal: m.Seal, Data: m.Data}
		return nil
	})
	return out, err
}

// tournaments is every tournament the venue's log held or acknowledged.
func (r *repairer) tournaments(more ...map[uint64]Message) []string {
	ts := map[string]bool{}
	for t := range r.byT {
		ts[t] = true
	}
	for _, ms := range more {
		for _, m := range ms {
			ts[m.Tournament] = true
		}
	}
	return slices.Sorted(maps.Keys(ts))
}

// assemble puts each stream sequence's message in place: the intact log's,
// else the backup's, else the hub's. Two sources that hold one sequence
// must hold the same message; a sequence none holds is a hole the stream
// cannot be rebuilt over.
func (r *repairer) assemble(local, bk, hub map[uint64]Message) error {
	for _, src := range []map[uint64]Message{local, bk, hub} {
		for s := range src {
			r.last = max(r.last, s)
		}
	}
	type source struct {
		msgs  map[uint64]Message
		name  string
		count func(*Tournament) *int
	}
	alts := []source{
		{bk, "the backup", func(t *Tournament) *int { return &t.FromBackup }},
		{hub, "the hub's copy", func(t *Tournament) *int { return &t.FromHub }},
	}
	for s := uint64(1); s <= r.last; s++ {
		m, ok := local[s]
		var count *int // the source it came from, when not the log
		for _, alt := range alts {
			a, has := alt.msgs[s]
			switch {
			case !has:
			case !ok:
				m, ok, count = a, true, alt.count(r.tournament(a.Tournament))
			case a.Tournament != m.Tournament || !bytes.Equal(a.Data, m.Data):
				return fmt.Errorf("repair: at stream sequence %d %s holds a commit of %s that is not the one taken (of %s): they are not copies of one log", s, alt.name, a.Tournament, m.Tournament)
			}
		}
		if !ok {
			return fmt.Errorf("repair: stream sequence %d is in neither the log, the backup nor the hub's copy: the stream cannot be rebuilt with every message where it was", s)
		}
		if count != nil {
			*count++
		}
		r.final[s] = m
	}
	return nil
}

// verify checks every tournament's repaired log: it holds together and
// holds what was acknowledged (ledger.Chain), agrees with the hub's last
// cosigned checkpoint, and, when anything of it came from elsewhere than
// the log, verifies with the venue's key (replay.Verify).
func (r *repairer) verify(cosigned map[string][]byte) error {
	byT := map[string][]Message{}
	for s := uint64(1); s <= r.last; s++ {
		m := r.final[s]
		byT[m.Tournament] = append(byT[m.Tournament], m)
	}
	for t := range r.acked {
		if _, ok := byT[t]; !ok {
			byT[t] = nil
		}
	}
	for _, t := range slices.Sorted(maps.Keys(byT)) {
		tr := r.tournament(t)
		var cp checkpoint.Checkpoint
		if cs := cosigned[t]; cs != nil {
			var err error
			if cp, err = checkpoint.Open(cs, r.keys.Verifier); err != nil {
				return fmt.Errorf("repair: the hub's cosigned checkpoint of %s is not signed with this venue's key: %w", t, err)
			}
			if r.o.Witness != nil {
				if err := checkpoint.CheckCosigned(cs, r.o.Witness); err != nil {
					return fmt.Errorf("repair: the hub's checkpoint of %s: %w", t, err)
				}
			}
		}
		c := ledger.NewChain(t, r.acked[t], nil)
		var lines bytes.Buffer
		var d *ledger.Damage
		var cosignedRoot []byte
		for _, m := range byT[t] {
			if d = c.Add(stored(m)); d != nil {
				break
			}
			if h := c.Head(); cp.Size > 0 && h.Size == cp.Size {
				cosignedRoot = h.Root
			}
			lines.Write(m.Data)
		}
		if d == nil {
			d = c.End()
		}
		if d != nil {
			return fmt.Errorf("repair: tournament %s cannot be repaired from what the log, the backup and the hub hold: %s", t, d)
		}
		tr.Events = c.Head().Size
		if cp.Size > 0 {
			if !bytes.Equal(cosignedRoot, cp.Root) {
				return fmt.Errorf("repair: the repaired log of %s does not have the Merkle root of the %d events the hub cosigned", t, cp.Size)
			}
			tr.Cosigned = cp.Size
		}
		if tr.FromBackup+tr.FromHub > 0 {
			// The checkpoint of the repaired log, signed now, is checked
			// against the lines (their root) beside those its
			// publications embed, signed when they were made.
			h := c.Head()
			signed, err := checkpoint.Sign(checkpoint.Checkpoint{Origin: checkpoint.Origin(t), Size: h.Size, Root: h.Root}, r.keys.Signer)
			if err != nil {
				return err
			}
			rep := replay.Verify(replay.NewScannerBytes(lines.Bytes(), nil), replay.VerifyOptions{Checkpoint: []byte(signed), Verifier: r.keys.Verifier})
			if !rep.OK() {
				c, _ := rep.First()
				return fmt.Errorf("repair: the repaired log of %s does not verify with the venue's key, at line %d: %s", t, c.Line, c.What)
			}
		}
		fmt.Fprintf(r.o.Progress, "%s: %d events (%d acknowledged): %d messages kept, %d from the backup, %d from the hub\n",
			t, tr.Events, tr.Acknowledged, tr.Kept, tr.FromBackup, tr.FromHub)
	}
	return nil
}

// write appends the repaired stream, message by message at its stream
// sequence, into a new store in dir, and checks it back against the
// acknowledged heads.
func (r *repairer) write(ctx context.Context, dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	ns, err := eventlog.StartServer(eventlog.ServerOptions{StoreDir: dir})
	if err != nil {
		return err
	}
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
	nc, err := nats.Connect("", nats.InProcessServer(ns))
	if err != nil {
		return err
	}
	defer nc.Close()
	lg, err := eventlog.Open(ctx, nc, eventlog.Options{})
	if err != nil {
		return err
	}
	lastOf := map[string]uint64{}
	for s := uint64(1); s <= r.last; s++ {
		m := r.final[s]
		ack, err := lg.AppendSealed(ctx, m.Tournament, lastOf[m.Tournament], m.MsgID, m.Request, m.Seal, m.Data)
		if err != nil {
			return fmt.Errorf("repair: append stream sequence %d: %w", s, err)
		}
		if ack.Duplicate || ack.StreamSeq != s {
			return fmt.Errorf("repair: stream sequence %d was stored at %d (duplicate %v)", s, ack.StreamSeq, ack.Duplicate)
		}
		lastOf[m.Tournament] = s
	}
	_, damage, err := ledger.CheckLog(ctx, lg, r.acked, ledger.CheckOptions{})
	if err != nil {
		return err
	}
	if len(damage) > 0 {
		return fmt.Errorf("repair: the repaired log does not check: %s", damage[0])
	}
	return nil
}

func stored(m Message) events.StoredCommit {
	return events.StoredCommit{StreamSeq: m.StreamSeq, Tournament: m.Tournament, MsgID: m.MsgID, Request: m.Request, Seal: m.Seal, Data: m.Data}
}
