package commands

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// Contestations (docs/rules.md#13-contestation, rur-2015 art. 20, master "gestione delle
// controversie"). A contestation names the event it contests; the ledger
// decides from the log alone whether it is admissible:
//
//   - the contested event is still open: a result until the next round's
//     draw; a draw until the first result of its round; a sanction until
//     its round ends (every table of it has a result); a provisional
//     classification until the final one is published, the final one until
//     it is published (that is: never after); a registration until the entry
//     list is closed; a check-in until its round is drawn; a renunciation,
//     a repechage or a withdrawal until the first result of the round it
//     concerns; a tie-break roll until the next draw or publication;
//   - or the claim names a direct effect that persists in the state as
//     replayed now (rur-2015 art. 20: "a meno che i loro effetti diretti non
//     permangano al momento della contestazione");
//   - and, when the ruleset says so, within contest_within minutes of the
//     event and raised by a player the event concerns (contest_by involved).

// Persisting effects a claim may name.
const (
	// EffectExpelledSeated: an expelled or withdrawn player is seated at a
	// table that has not played.
	EffectExpelledSeated = "expelled_seated"
	// EffectClassificationDiffers: the last published classification is not
	// the one the log derives now.
	EffectClassificationDiffers = "classification_differs"
	// EffectExpulsionInForce: the contested sanction still keeps the player
	// out of the tournament.
	EffectExpulsionInForce = "expulsion_in_force"
)

var effects = []string{EffectExpelledSeated, EffectClassificationDiffers, EffectExpulsionInForce}

// Effects lists the persisting effects a claim may name (FileContestation).
func Effects() []string { return slices.Clone(effects) }

// FileContestation contests an event (by seq).
type FileContestation struct {
	typed
	Against uint64 `json:"against"`
	Claim   string `json:"claim"`
	Effect  string `json:"effect,omitempty"`
	By      string `json:"by,omitempty"`
}

func (*FileContestation) CommandType() string { return "FileContestation" }

func (c *FileContestation) Check() error {
	errs := []error{checkText("claim", c.Claim, maxReason, true)}
	if c.Against < 1 {
		errs = append(errs, fieldErr("against", "required: the seq of the contested event"))
	}
	if c.Effect != "" && !slices.Contains(effects, c.Effect) {
		errs = append(errs, fieldErr("effect", "one of %s", strings.Join(effects, ", ")))
	}
	if c.By != "" {
		errs = append(errs, checkID("by", c.By))
	}
	return errors.Join(errs...)
}

// contested is what the state knows of a contested event.
type contested struct {
	kind    string
	seq     uint64
	round   int // of a draw
	open    bool
	window  string   // the rule that decides, when open or closed
	players []string // who the event concerns
	sanct   *projections.Sanction
}

// finalPublished reports whether the final classification is out: every
// window closes with it.
func finalPublished(t *projections.Tournament) bool {
	for _, p := range t.Publications {
		if p.Final {
			return true
		}
	}
	return t.Closed
}

// locate finds the contested event in the state and judges its window.
func locate(t *projections.Tournament, seq uint64) (contested, bool) {
	for _, r := range t.Rounds {
		if r.Drawn == seq {
			var seated []string
			for _, tb := range r.Tables {
				seated = append(seated, tb.Players...)
			}
			open := true
			for _, tb := range r.Tables {
				if tb.Report != nil {
					open = false
				}
			}
			return contested{kind: "draw", seq: seq, round: r.Number, open: open && !finalPublished(t), players: seated,
				window: fmt.Sprintf("docs/rules.md#13-contestation: a draw is open until the first result of its round (round %d)", r.Number)}, true
		}
		for _, tb := range r.Tables {
			if tb.Reported == seq || tb.Amended == seq {
				return contested{kind: "result", seq: seq, open: t.Round(r.Number+1) == nil && !finalPublished(t), players: tb.Players,
					window: fmt.Sprintf("docs/rules.md#13-contestation: a result is open until the next round's draw or the final classification (round %d, table %d)", r.Number, tb.Number)}, true
			}
		}
	}
	for _, s := range t.Sanctions {
		if s.Seq == seq {
			r := t.Round(s.Round)
			open := (r == nil || !r.Complete()) && !finalPublished(t)
			return contested{kind: "sanction", seq: seq, open: open, players: []string{s.Player}, sanct: s,
				window: fmt.Sprintf("docs/rules.md#13-contestation: a sanction is open until the end of its round (round %d)", s.Round)}, true
		}
	}
	for _, p := range t.Publications {
		if p.Seq == seq {
			return contested{kind: "classification", seq: seq, open: !finalPublished(t),
				window: "docs/rules.md#13-contestation: the classification is open until the final one is published"}, true
		}
	}
	for _, id := range t.Order {
		if p := t.Players[id]; p.Registered == seq {
			return contested{kind: "registration", seq: seq, open: !t.RegistrationClosed, players: []string{id},
				window: rulebookOf(t.Ruleset).registration + ": the entry list is open until the arbiters validate it"}, true
		}
	}
	for round, byPlayer := range t.CheckIns {
		for id, ci := range byPlayer {
			if ci.Seq == seq {
				return contested{kind: "check-in", seq: seq, open: t.Round(round) == nil, players: []string{id},
					window: fmt.Sprintf("docs/rules.md#11-check-in-and-lateness: a check-in is open until round %d is drawn", round)}, true
			}
		}
	}
	for _, a := range t.Acts {
		if a.Seq == seq {
			return locateAct(t, a), true
		}
	}
	return contested{}, false
}

// locateAct judges the window of a renunciation, a repechage, a withdrawal
// (docs/rules.md#131-pinned-tournament-level-windows): open, like a draw,
// until the first result of the round it concerns; and of a tie-break roll:
// open until the next draw or publication, which are the first to read it.
func locateAct(t *projections.Tournament, a projections.Act) contested {
	c := contested{seq: a.Seq, players: a.Players}
	if a.Type == events.TypeTieBreakRolled {
		c.kind, c.open = "tie-break roll", !finalPublished(t)
		for _, r := range t.Rounds {
			if r.Drawn > a.Seq {
				c.open = false
			}
		}
		for _, p := range t.Publications {
			if p.Seq > a.Seq {
				c.open = false
			}
		}
		c.window = "docs/rules.md#131-pinned-tournament-level-windows: a tie-break roll is open until the next draw or publication"
		return c
	}
	round := a.Round
	switch a.Type {
	case events.TypeRenounced:
		c.kind = "renunciation"
	case events.TypeRepechaged:
		c.kind = "repechage"
	default:
		c.kind = "withdrawal"
	}
	if round == 0 {
		round = phaseRound(t, a.Phase)
	}
	c.round, c.open = round, !finalPublished(t)
	if r := t.Round(round); r != nil {
		for _, tb := range r.Tables {
			if tb.Report != nil {
				c.open = false
			}
		}
	}
	c.window = fmt.Sprintf("docs/rules.md#131-pinned-tournament-level-windows: a %s is open until the first result of the round it concerns (round %d)", c.kind, round)
	return c
}

// persisting reports whether an effect of the contested event is present in
// the state now, and why. The effect must be the event's own (rur-2015 art.
// 20: "i loro effetti diretti"): a seat comes from the draw that made it,
// or from the expulsion of the one seated; a published classification's
// rows from that publication.
func persisting(t *projections.Tournament, effect string, ev contested) (bool, string) {
	switch effect {
	case EffectExpelledSeated:
		if ev.kind != "draw" && (ev.sanct == nil || !expelsBy(t, ev.sanct)) {
			return false, fmt.Sprintf("event %d seats no one and expels no one: a seat is the effect of a draw, or of the expulsion of the player seated", ev.seq)
		}
		if r := t.Round(len(t.Rounds)); r != nil {
			for _, tb := range r.Tables {
				for _, p := range tb.Players {
					s := t.Players[p].Status
					if tb.Report != nil || s != events.StatusExpelled && s != events.StatusWithdrawn {
						continue
					}
					if ev.kind == "draw" && ev.round == r.Number || ev.sanct != nil && ev.sanct.Player == p {
						return true, fmt.Sprintf("%s (%s) is seated at table %d of round %d, which has not played", p, s, tb.Number, r.Number)
					}
				}
			}
		}
		return false, fmt.Sprintf("no expelled or withdrawn player is seated by event %d at a table still to play", ev.seq)
	case EffectClassificationDiffers:
		if t.Published == nil {
			return false, "no classification has been published"
		}
		if ev.kind != "classification" || ev.seq != t.Publications[len(t.Publications)-1].Seq {
			return false, fmt.Sprintf("event %d is not the classification last published: contest that one", ev.seq)
		}
		cl := t.Classification()
		if len(cl.Rows) != len(t.Published.Rows) {
			return true, fmt.Sprintf("the published classification has %d rows, the log derives %d", len(t.Published.Rows), len(cl.Rows))
		}
		for i, row := range cl.Rows {
			p := t.Published.Rows[i]
			if p.Player != row.Player || p.Total != int64(row.Total) {
				return true, fmt.Sprintf("rank %d is published as %s with %s, the log derives %s with %s", row.Rank, p.Player, projections.Points(p.Total), row.Player, row.Total)
			}
		}
		return false, "the published classification is the one the log derives"
	case EffectExpulsionInForce:
		if ev.sanct != nil && expelsBy(t, ev.sanct) && !ev.sanct.Revoked && t.Players[ev.sanct.Player].Status == events.StatusExpelled && !t.Closed {
			return true, fmt.Sprintf("%s is still expelled by %s", ev.sanct.Player, ev.sanct.Sanction)
		}
		return false, "the contested event expels no one now"
	}
	return false, "unknown effect"
}

// expelsBy reports whether a sanction expels, itself or by the expulsion
// appended with it (a disqualification for an offence that also expels,
// docs/rules.md#10-sanctions): either is its direct effect.
func expelsBy(t *projections.Tournament, s *projections.Sanction) bool {
	if t.Expels(s.Kind) {
		return true
	}
	for _, x := range t.Sanctions {
		if x.Cause == s.Sanction && x.Automatic && !x.Revoked && t.Expels(x.Kind) {
			return true
		}
	}
	return false
}

func (c *FileContestation) decide(t *projections.Tournament, in Input) ([]events.Event, error) {
	if c.Against > t.Seq {
		return nil, fieldErr("against", "tournament %s has no event %d (its log ends at %d)", t.ID, c.Against, t.Seq)
	}
	ev := events.ContestationFiled{Contestation: fmt.Sprintf("c%d", len(t.Contestations)+1), Against: c.Against,
		Claim: clean(c.Claim), Effect: c.Effect, By: c.By}
	found, known := locate(t, c.Against)
	if t.Ruleset.ContestedBy() == events.ContestByInvolved {
		if c.By == "" {
			return nil, fieldErr("by", "this ruleset hears contestations only from the players the event concerns: name the player")
		}
		if !slices.Contains(found.players, c.By) {
			ev.Admissible, ev.Rule = false, fmt.Sprintf("contest_by involved: %s is not concerned by event %d", c.By, c.Against)
			return []events.Event{ev}, nil
		}
	}
	switch {
	case known && found.open:
		ev.Admissible, ev.Rule = true, found.window+": still open"
	case c.Effect != "":
		present, why := persisting(t, c.Effect, found)
		ev.Admissible, ev.Rule = present, rulebookOf(t.Ruleset).contest+": "+why
		if !present {
			ev.Rule = rulebookOf(t.Ruleset).contest + ": the effect claimed does not persist: " + why
		}
	case known:
		ev.Admissible, ev.Rule = false, found.window+": homologated"
	default:
		ev.Admissible, ev.Rule = false, rulebookOf(t.Ruleset).contest+": events of this kind are homologated at once unless a direct effect persists"
	}
	if at, ok := t.EventTime(c.Against); ok && ev.Admissible && t.Ruleset.ContestWithin > 0 {
		if limit := at.Add(time.Duration(t.Ruleset.ContestWithin) * time.Minute); in.Now.After(limit) {
			ev.Admissible, ev.Rule = false, fmt.Sprintf("contest_within %d minutes: event %d was recorded at %s, the window closed at %s",
				t.Ruleset.ContestWithin, c.Against, at.Format(time.RFC3339), limit.Format(time.RFC3339))
		}
	}
	return []events.Event{ev}, nil
}

// RuleContestation is a ruling on a contestation, by the arbiters (rur-2015
// art. 9: "giudica sulle controversie") or the appeals committee, or by the
// appeals committee alone under rulings: appeals: upheld or rejected, with
// the corrections an upheld contestation orders, appended in the same
// commit. A correction is a command payload: RecordResult (amends the
// table's report), RevokeSanction, ImposeSanction.
type RuleContestation struct {
	typed
	Contestation string            `json:"contestation"`
	Upheld       bool              `json:"upheld"`
	Ruling       string            `json:"ruling"`
	Corrections  []json.RawMessage `json:"corrections,omitempty"`
}

func (*RuleContestation) CommandType() string { return "RuleContestation" }

func (c *RuleContestation) Check() error {
	errs := []error{checkRequired("contestation", c.Contestation), checkText("ruling", c.Ruling, maxReason, true)}
	if !c.Upheld && len(c.Corrections) > 0 {
		errs = append(errs, fieldErr("corrections", "a rejected contestation orders no corrections"))
	}
	if len(c.Corrections) > 100 {
		errs = append(errs, fieldErr("corrections", "at most 100 corrections in one ruling"))
	}
	return errors.Join(errs...)
}

func (c *RuleContestation) decide(t *projections.Tournament, in Input) ([]events.Event, error) {
	filed := t.Contestation(c.Contestation)
	if filed == nil {
		return nil, notFound("contestation %s", c.Contestation)
	}
	if filed.Ruled != nil {
		return nil, conflict("contestation %s was ruled at once (upheld %v)", c.Contestation, filed.Ruled.Upheld)
	}
	if c.Upheld && !filed.Admissible {
		return nil, ruleErr(rulebookOf(t.Ruleset).contest, "contestation %s is inadmissible (%s): it can only be rejected", c.Contestation, filed.Rule)
	}
	corr, err := Corrections(t, c.Corrections, c.Contestation, in)
	if err != nil {
		return nil, err
	}
	out := []events.Event{events.ContestationRuled{Contestation: c.Contestation, Admissible: filed.Admissible, Upheld: c.Upheld,
		Ruling: clean(c.Ruling), Rule: filed.Rule, Corrections: len(corr)}}
	return append(out, corr...), nil
}

// Corrections decides the corrective events of a ruling (or of a what-if)
// against t: each payload is decided in turn against the state the previous
// ones produce. contestation names the ruling ("" for a what-if).
func Corrections(t *projections.Tournament, payloads []json.RawMessage, contestation string, in Input) ([]events.Event, error) {
	st := t
	var out []events.Event
	for i, raw := range payloads {
		field := fmt.Sprintf("corrections[%d]", i)
		cmd, err := Parse(raw)
		if err != nil {
			return nil, prefixField(field, err)
		}
		var evs []events.Event
		switch c := cmd.(type) {
		case *RecordResult:
			evs, err = c.amend(st, contestation)
		case *RevokeSanction, *ImposeSanction:
			evs, err = c.decide(st, in)
		default:
			return nil, fieldErr(field+".type", "a ruling corrects with RecordResult, RevokeSanction or ImposeSanction, not %s", cmd.CommandType())
		}
		if err != nil {
			return nil, prefixField(field, err)
		}
		// Later corrections see the earlier ones.
		if i < len(payloads)-1 {
			if st == t {
				st = t.Clone()
			}
			envs, serr := events.Seal(st.ID, st.Seq+1, in.Now, in.Actor, "what-if", evs)
			if serr != nil {
				return nil, serr
			}
			for k, env := range envs {
				if ferr := st.Apply(env, evs[k], nil); ferr != nil {
					return nil, prefixField(field, ferr)
				}
			}
		}
		out = append(out, evs...)
	}
	return out, nil
}

// prefixField places a correction's field errors under its path.
func prefixField(prefix string, err error) error {
	return mapLeaves(err, func(e error) error {
		var fe *FieldError
		if errors.As(e, &fe) {
			f := prefix
			if fe.Field != "" {
				f += "." + fe.Field
			}
			return &FieldError{Field: f, Msg: fe.Msg, Rule: fe.Rule}
		}
		return e
	})
}
