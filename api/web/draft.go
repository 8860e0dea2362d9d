package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/fault"
)

// A draw is first a draft: the arbiter sees the tables the ledger would
// draw, and the constraints they break, before anything is recorded
// (POST /v1/tournaments/{t}/draft appends nothing). He may draw again with
// another seed, or move players by hand and see what the tables then
// break; only "Conferma" records the draw, with the draft's seed or
// tables, and only if the tournament has not moved since the draft
// (If-Match on the seq the draft was decided on).

// draftView is a draft as the round page shows it.
type draftView struct {
	// Seq is the tournament's seq the draft was decided on.
	Seq uint64
	// Seed is the seed it was drawn with ("" for tables made by hand).
	Seed string
	// Tables are its tables; Records say every event it would append
	// (the draw, the reserves it seats, a repechage it performs).
	Tables  []events.DrawnTable
	Records []record
	// Unmet says the constraints the tables break, as sentences.
	Unmet []string
	// ByHand marks tables the arbiter made (or moved) himself.
	ByHand bool
}

// draft asks the ledger what cmd would append now, appending nothing.
func (u *UI) draft(r *http.Request, p *page, cmd *commands.DrawTables) (*draftView, *Problem, error) {
	if u.opts.Commands.Draft == nil {
		return nil, nil, errNoService
	}
	body, err := commands.Encode(cmd)
	if err != nil {
		return nil, nil, err
	}
	seq, evs, err := u.opts.Commands.Draft(r.Context(), u.commandCall(r, p.T, body, ""))
	if err != nil {
		return nil, u.problemFor(r, err), nil
	}
	d := &draftView{Seq: seq, ByHand: len(cmd.Tables) > 0}
	for i, ev := range evs {
		if td, ok := ev.(events.TablesDrawn); ok {
			d.Tables, d.Seed = td.Tables, td.Seed
			if d.ByHand {
				d.Seed = ""
			}
			for _, un := range td.Unmet {
				d.Unmet = append(d.Unmet, p.Unmet(un))
			}
			continue
		}
		d.Records = append(d.Records, p.recordOf(events.Envelope{Seq: seq + uint64(i) + 1, Type: ev.EventType(), V: 1}, ev, nil))
	}
	return d, nil, nil
}

// handTables reads tables moved by hand: "table<N>" holds the codes of
// table N's players, in seat order, separated by commas or spaces.
func handTables(f url.Values) []events.DrawnTable {
	var out []events.DrawnTable
	for n := 1; n <= 10000; n++ {
		v, ok := f["table"+strconv.Itoa(n)]
		if !ok {
			break
		}
		tb := events.DrawnTable{Table: n}
		for _, code := range strings.FieldsFunc(strings.Join(v, ","), func(r rune) bool { return r == ',' || r == ' ' || r == ';' }) {
			tb.Players = append(tb.Players, code)
		}
		out = append(out, tb)
	}
	return out
}

// drawPost takes the round page's draw forms: a draft (with a seed typed
// or none: the server picks one), a draft of tables moved by hand, and the
// confirmation that records the draft's draw.
func (u *UI) drawPost(w http.ResponseWriter, r *http.Request) error {
	t, n, f := r.PathValue("t"), atoiOr(r.PathValue("r"), 0), r.PostForm
	cmd := &commands.DrawTables{Round: n, Seed: strings.TrimSpace(f.Get("seed"))}
	if f.Get("by_hand") != "" {
		cmd.Seed, cmd.Tables = "", handTables(f)
	}
	if f.Get("_action") == "confirm" {
		// Recorded only if nothing changed since the draft: the same seed
		// (or tables) then seats the same tables.
		a, prob, err := u.command(r, t, cmd, `"`+f.Get("draft_seq")+`"`)
		if err == nil && prob == nil {
			return done(w, r, fmt.Sprintf("%srounds/%d", tPath(t), n), flashOf(a, ""))
		}
		if prob == nil || prob.Code != fault.PreconditionFailed {
			return u.roundRefused(r, prob, err)
		}
	}
	p, err := u.roundPage(r, "round")
	if err != nil {
		return err
	}
	if f.Get("_action") == "confirm" {
		// The tournament moved on: a new draft of the same draw.
		p.Problem = said(p.Lang, fault.PreconditionFailed, "", "draft_stale")
	}
	return u.showDraft(w, r, p, cmd)
}

// showDraft renders the round page with cmd's draft, or its refusal.
func (u *UI) showDraft(w http.ResponseWriter, r *http.Request, p *page, cmd *commands.DrawTables) error {
	d, prob, err := u.draft(r, p, cmd)
	if err != nil || prob != nil {
		return p.refused("round", prob, err)
	}
	p.Data.(map[string]any)["Draft"] = d
	status := http.StatusOK
	if p.Problem != nil {
		status = p.Problem.Status
	}
	return u.render(w, "round", status, p)
}
