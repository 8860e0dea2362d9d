package web

import (
	"net/http"
	"net/url"
	"time"

	"github.com/referto/referto/events"
	"github.com/referto/referto/events/fault"
	"github.com/referto/referto/projections"
)

// --- the published classification -------------------------------------------

// classGroup is one phase group of the published classification.
type classGroup struct {
	Phase events.Phase
	Rows  []classRow
}

// classRow is a published row with how its tie was settled.
type classRow struct {
	events.ClassificationRow
	Settled *projections.Settled
	Place   int
}

func (u *UI) classification(w http.ResponseWriter, r *http.Request) error {
	p, err := u.tournamentPage(r, "classification", 0)
	if err != nil {
		return err
	}
	p.Title = p.ClassificationKey()
	live, err := u.opts.Reads.Classification(p.T)
	if err != nil {
		return p.fail(refusal(err))
	}
	byPlayer := map[string]projections.ClassificationRow{}
	for _, row := range live.Rows {
		byPlayer[row.Player] = row
	}
	d := map[string]any{"Live": live}
	if n := len(p.State.Publications); n > 0 && p.State.Published != nil {
		pub := p.State.Publications[n-1]
		d["Publication"] = pub
		pubRows, checkpoint := p.State.Published.Rows, p.State.Published.Checkpoint
		var groups []*classGroup
		differs := false
		for _, row := range pubRows {
			lr := byPlayer[row.Player]
			if lr.Rank != row.Rank || int64(lr.Total) != row.Total {
				differs = true
			}
			if len(groups) == 0 || groups[len(groups)-1].Phase != row.Phase {
				groups = append(groups, &classGroup{Phase: row.Phase})
			}
			g := groups[len(groups)-1]
			g.Rows = append(g.Rows, classRow{ClassificationRow: row, Settled: lr.Settled, Place: lr.Place})
		}
		d["Groups"], d["Checkpoint"], d["Differs"] = groups, checkpoint, differs
		if len(pubRows) > 0 {
			d["Example"] = pubRows[0].Player // the recipes' example row
		}
		base := u.base(r)
		d["Base"] = base
		// The last checkpoint a hub's witness cosigned, once the venue
		// synced, and where its key is: here when this is the hub.
		if u.opts.Cosigned != nil {
			if signed, _, ok := u.opts.Cosigned(p.T); ok && signed != "" {
				d["Cosigned"], d["Hub"] = signed, "$HUB"
				if u.opts.Hub {
					d["Hub"] = base
				}
			}
		}
	}
	p.Data = d
	return u.render(w, "classification", http.StatusOK, p)
}

// --- the venue screen ------------------------------------------------------

// screenData is what the venue screen shows of a round: its tables, the
// latest results, the standings, the clock, and which panels to rotate.
type screenData struct {
	Number  int
	Round   *projections.Round
	Latest  []*projections.Table
	Results int
	Panels  []string
	DrawnAt time.Time
	// Until is when the round's last report came in, once every table
	// has one (or was annulled): the clock stops there.
	Until   time.Time
	Minutes int
	// Rotate is how many seconds each panel stays shown.
	Rotate int
}

// screenOptions are the venue screen's settings from its address:
// ?minutes=N counts the round's clock down from N minutes (default: up from
// the draw), ?rotate=S shows each panel for S seconds (default 12, at most
// an hour).
func screenOptions(q url.Values) (minutes, rotate int) {
	minutes = max(atoiOr(q.Get("minutes"), 0), 0)
	rotate = atoiOr(q.Get("rotate"), 12)
	if rotate < 1 || rotate > 3600 {
		rotate = 12
	}
	return minutes, rotate
}

func (u *UI) screenOf(p *page, n int, q url.Values) screenData {
	d := screenData{Number: n, Round: roundOf(p.State, n)}
	d.Minutes, d.Rotate = screenOptions(q)
	if d.Round == nil {
		d.Panels = []string{"standings"}
		return d
	}
	d.DrawnAt = d.Round.DrawnAt
	over, last := 0, time.Time{}
	for _, tb := range d.Round.Tables {
		if tb.Report != nil {
			d.Results++
			d.Latest = append(d.Latest, tb)
			if tb.ReportedAt.After(last) {
				last = tb.ReportedAt
			}
		}
		if tb.Report != nil || tb.Annulled != nil {
			over++
		}
	}
	if over == len(d.Round.Tables) {
		d.Until = last
	}
	// The latest results first.
	for i, j := 0, len(d.Latest)-1; i < j; i, j = i+1, j-1 {
		d.Latest[i], d.Latest[j] = d.Latest[j], d.Latest[i]
	}
	if len(d.Latest) > 8 {
		d.Latest = d.Latest[:8]
	}
	switch {
	case d.Results == 0:
		d.Panels = []string{"tables"} // the draw: who sits where
	case d.Results < len(d.Round.Tables):
		d.Panels = []string{"tables", "results", "standings"}
	default:
		d.Panels = []string{"results", "standings"} // the round is over
	}
	return d
}

// tournamentScreen is the venue screen of the round being played, which
// follows the tournament from round to round by itself.
func (u *UI) tournamentScreen(w http.ResponseWriter, r *http.Request) error {
	p, err := u.tournamentPage(r, "screen", 0)
	if err != nil {
		return err
	}
	p.Data = u.screenOf(p, len(p.State.Rounds), r.URL.Query())
	return u.render(w, "screen", http.StatusOK, p)
}

func (u *UI) screen(w http.ResponseWriter, r *http.Request) error {
	p, err := u.tournamentPage(r, "screen", 0)
	if err != nil {
		return err
	}
	n := atoiOr(r.PathValue("r"), 0)
	if n < 1 {
		return p.fail(said(p.Lang, fault.NotFound, "", "no_round"), nil)
	}
	p.Data = u.screenOf(p, n, r.URL.Query())
	return u.render(w, "screen", http.StatusOK, p)
}
