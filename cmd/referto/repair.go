package main

import (
	"context"
	"fmt"
	"io"

	"github.com/referto/referto/api/client"
	"github.com/referto/referto/api/node/repair"
	"github.com/referto/referto/events/checkpoint"
)

func repairCmd(ctx context.Context, args []string, _ func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("repair", stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: referto repair --data DIR [--hub URL [--witness KEY]] [--backup FILE]

Bring back a venue's log that referto serve found damaged (events missing, or stored bytes
changed: /readyz and the log name the first damaged event). Stop the server first. Every message
of the stream is put back at its stream sequence: from the log where its tournament is intact, else
from the backup, else from the national hub's copy (the hub sources every venue's log; the venue
proves itself with its signing key). Each tournament's repaired log must hold every command the
venue acknowledged (DIR/heads.log), with the Merkle root it acknowledged, agree with the hub's
cosigned checkpoint and verify with the venue's key; only then is the damaged log moved aside
(DIR/nats.damaged-<time>, kept) and the repaired one put in its place. The projections are moved
aside too and rebuilt by the next start. On any failure nothing is replaced.

`)
		fs.PrintDefaults()
	}
	data := fs.String("data", "", "the venue's data directory (required; no server may run on it)")
	hubURL := fs.String("hub", "", "the national hub's HTTP API, e.g. http://hub:8090: its copy of the venue's log")
	witness := fs.String("witness", "", "the hub's witness key (its GET /v1/keys \"witness\") or a file holding it: cosignatures are checked with it")
	backupFile := fs.String("backup", "", "a backup of the venue (referto backup)")
	if err := parseFlags(fs, args); err != nil {
		return flagErr(err)
	}
	if *data == "" || *hubURL == "" && *backupFile == "" {
		return usagef(stderr, "repair needs --data and --hub or --backup (or both)")
	}
	o := repair.Options{Data: *data, Backup: *backupFile, Progress: stderr}
	if *hubURL != "" {
		o.Hub = hubLog{&client.Client{Base: *hubURL}}
	}
	if *witness != "" {
		v, err := checkpoint.ReadWitnessVerifier(*witness)
		if err != nil {
			return err
		}
		o.Witness = v
	}
	rep, err := repair.Repair(ctx, o)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "repaired %s: %d messages; the damaged log is kept in %s\n", *data, rep.Messages, rep.Aside)
	for _, t := range rep.Tournaments {
		state := "intact"
		if t.Damage != nil {
			state = fmt.Sprintf("was damaged at event %d", t.Damage.Seq)
		}
		fmt.Fprintf(stdout, "  %s: %d events, %d acknowledged, %s; %d messages kept, %d from the backup, %d from the hub",
			t.ID, t.Events, t.Acknowledged, state, t.Kept, t.FromBackup, t.FromHub)
		if t.Cosigned > 0 {
			fmt.Fprintf(stdout, "; agrees with the hub's cosigned checkpoint of %d events", t.Cosigned)
		}
		fmt.Fprintln(stdout)
	}
	if rep.ProjectionsAside != "" {
		fmt.Fprintf(stdout, "the projections were moved to %s: referto serve --data %s rebuilds them from the repaired log\n", rep.ProjectionsAside, *data)
	}
	return nil
}

// hubLog is the hub's copy of a venue's log through its HTTP API.
type hubLog struct{ c *client.Client }

func (h hubLog) VenueLog(ctx context.Context, t string, proof []byte) ([]byte, []repair.Message, error) {
	cosigned, msgs, err := h.c.VenueLog(ctx, t, proof)
	if err != nil {
		return nil, nil, err
	}
	out := make([]repair.Message, len(msgs))
	for i, m := range msgs {
		out[i] = repair.Message{StreamSeq: m.StreamSeq, Tournament: t, MsgID: m.MsgID, Request: m.Request, Seal: m.Seal, Data: m.Data}
	}
	return cosigned, out, nil
}
