package web

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// The arbiter's actions beyond the everyday ones: everything the API takes
// is offered by a page, so that nobody needs curl on the day. Each form
// becomes one command through the command endpoint, as every form does.

// official is an appointed official as the tournament's page lists him.
type official struct {
	Official, Name, Role string
	Appointed            uint64
}

// officials lists the tournament's appointed officials, for those who may
// read them (the administrator and the officials); nil for anyone else.
func (u *UI) officials(r *http.Request, p *page) []official {
	if p.Me == nil || p.Me.Role == events.RolePlayer {
		return nil
	}
	if u.opts.Authorize(r, token(r), p.T, events.RoleArbiter, events.RoleAppeals, events.RoleAuditor) != nil {
		return nil
	}
	offs, err := u.opts.Reads.Officials(p.T)
	if err != nil {
		return nil
	}
	out := make([]official, len(offs))
	for i, o := range offs {
		out[i] = official(o)
	}
	return out
}

// tie is a tie awaiting a die roll: its players, in the order listed.
type tie struct {
	Players []string
}

// ties are the ties awaiting a die roll, in the standings and in the
// classification as it would be published now: the ones a publication or
// a draw is refused for until the arbiter records the die rolled.
func (u *UI) ties(r *http.Request, p *page) []tie {
	var out []tie
	add := func(groups map[int][]string) {
		keys := make([]int, 0, len(groups))
		for k := range groups {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			g := groups[k]
			if len(g) < 2 || slices.ContainsFunc(out, func(t tie) bool { return samePlayers(t.Players, g) }) {
				continue
			}
			out = append(out, tie{Players: g})
		}
	}
	standings := map[int][]string{}
	for _, row := range p.State.Standings.Rows {
		if row.TieGroup > 0 {
			standings[row.TieGroup] = append(standings[row.TieGroup], row.Player)
		}
	}
	add(standings)
	if cl, err := u.opts.Reads.Classification(p.T); err == nil {
		groups := map[int][]string{}
		for _, row := range cl.Rows {
			if row.TieGroup > 0 {
				groups[row.TieGroup] = append(groups[row.TieGroup], row.Player)
			}
		}
		add(groups)
	}
	return out
}

func samePlayers(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// rollForm reads a tie's die rolls: players[i] rolled roll[i].
func rollForm(f url.Values) *commands.RecordTieBreakRoll {
	c := &commands.RecordTieBreakRoll{Players: f["players"]}
	for _, v := range f["rolls"] {
		c.Rolls = append(c.Rolls, atoiOr(v, 0))
	}
	return c
}

// overviewData is what the tournament's page shows besides its state: a
// token just shown, the officials, the ties awaiting a roll.
func (u *UI) overviewData(r *http.Request, p *page, token string) map[string]any {
	d := map[string]any{"Token": token, "Officials": u.officials(r, p)}
	if p.Can(commands.TypeOf[commands.RecordTieBreakRoll]()) && !p.Closed() {
		d["Ties"] = u.ties(r, p)
	}
	return d
}

// knockoutPhases are the knockout phases a renunciation or a repechage may
// name now: the next phase's, and those of the knockout rounds drawn.
func knockoutPhases(st *projections.TournamentView) []events.Phase {
	var out []events.Phase
	add := func(ph events.Phase) {
		if ph != "" && ph != events.PhaseQualifying && ph != events.PhaseRegistration && !slices.Contains(out, ph) {
			out = append(out, ph)
		}
	}
	if st.Next != nil {
		add(st.Next.Phase)
	}
	for _, r := range st.Rounds {
		add(r.Phase)
	}
	return out
}

// playerAction reads the entry list's forms beyond registration and the
// call: a refusal, a reserve, a substitution, a withdrawal, a
// renunciation, a repechage. ok is false for an action it does not know.
func playerAction(f url.Values) (cmd commands.Command, arg string, ok bool) {
	player := f.Get("player")
	switch f.Get("_action") {
	case "refuse":
		return &commands.RefuseRegistration{Player: strings.TrimSpace(player), Name: strings.TrimSpace(f.Get("name")), Reason: f.Get("reason")}, player, true
	case "reserve":
		c := &commands.DesignateReserve{Player: strings.TrimSpace(player), Name: strings.TrimSpace(f.Get("name")), Club: f.Get("club"), Region: f.Get("region")}
		if v := f.Get("rank"); v != "" {
			c.Rank = atoiOr(v, -1)
		}
		return c, player, true
	case "substitute":
		return &commands.SubstituteReserve{Round: atoiOr(f.Get("round"), 0), Absent: f.Get("absent"), Reserve: f.Get("reserve")}, f.Get("reserve"), true
	case "withdraw":
		c := &commands.Withdraw{Player: player, Scope: f.Get("scope"), Reason: f.Get("reason"), Detail: f.Get("detail")}
		if c.Scope == "game" {
			c.Round = atoiOr(f.Get("round"), 0)
		}
		return c, player, true
	case "renounce":
		return &commands.Renounce{Player: player, Phase: events.Phase(f.Get("phase")), Reason: f.Get("reason")}, player, true
	case "repechage":
		return &commands.Repechage{Phase: events.Phase(f.Get("phase")), Replaces: f.Get("replaces")}, f.Get("replaces"), true
	}
	return nil, "", false
}

// roundAction reads a drawn round's forms: a table's turn order, an
// annulled game. ok is false for an action it does not know.
func roundAction(round int, f url.Values) (cmd commands.Command, table int, ok bool) {
	table = atoiOr(f.Get("table"), 0)
	switch f.Get("_action") {
	case "turn_order":
		var order []string
		for i := 1; i <= 5; i++ {
			if v := f.Get("order" + strconv.Itoa(i)); v != "" {
				order = append(order, v)
			}
		}
		return &commands.SetTurnOrder{Round: round, Table: table, Order: order}, table, true
	case "annul":
		return &commands.AnnulGame{Round: round, Table: table, Culprit: f.Get("culprit"), Expel: f.Get("expel") != "", Reason: f.Get("reason")}, table, true
	}
	return nil, 0, false
}
