package replay

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"

	"golang.org/x/mod/sumdb/note"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/draw"
	"github.com/referto/referto/events"
	"github.com/referto/referto/events/checkpoint"
	"github.com/referto/referto/projections"
)

// Check is one finding of a verification, in the order checked.
type Check struct {
	OK   bool
	Line int // the line it concerns, 0 for the whole log
	What string
	// Upto, when set, makes the finding a range: some line among
	// Line..Upto is at fault, not necessarily Line itself.
	Upto int
}

// Report is the outcome of Verify.
type Report struct {
	Checks []Check
	// Unsigned is set when no trusted key was given: roots were compared
	// with the checkpoints, but nobody checked who signed them, so the
	// report proves nothing and fails.
	Unsigned bool
	// State is the tournament as every event of the log folded into it, nil
	// when one did not: what the season's ranking reads of a verified log.
	State *projections.Tournament
}

// OK reports whether every check passed.
func (r *Report) OK() bool {
	for _, c := range r.Checks {
		if !c.OK {
			return false
		}
	}
	return true
}

// First returns the most specific failed check: the earliest line found at
// fault itself; else, since every range check claims "a changed line lies
// in here", the intersection of the ranges, stated by the narrowest one
// that reaches it; else the first failure.
func (r *Report) First() (Check, bool) {
	var exact, first *Check
	lo, hi := 0, 0
	var ranges []*Check
	for i := range r.Checks {
		c := &r.Checks[i]
		if c.OK {
			continue
		}
		if first == nil {
			first = c
		}
		switch {
		case c.Line > 0 && c.Upto == 0:
			if exact == nil || c.Line < exact.Line {
				exact = c
			}
		case c.Upto > 0 && c.Upto == c.Line:
			if exact == nil || c.Line < exact.Line {
				exact = c
			}
		case c.Upto > 0:
			if len(ranges) == 0 || c.Line > lo {
				lo = c.Line
			}
			if len(ranges) == 0 || c.Upto < hi {
				hi = c.Upto
			}
			ranges = append(ranges, c)
		}
	}
	if exact != nil {
		c := *exact
		c.Upto = 0
		return c, true
	}
	if len(ranges) > 0 {
		best := ranges[0]
		for _, c := range ranges {
			if c.Upto-c.Line < best.Upto-best.Line {
				best = c
			}
		}
		if lo <= hi && (best.Line != lo || best.Upto != hi) {
			return Check{Line: lo, Upto: hi, What: fmt.Sprintf("a line among %d..%d was changed, removed or reordered (%s)", lo, hi, best.What)}, true
		}
		return *best, true
	}
	if first != nil {
		return *first, true
	}
	return Check{}, false
}

func (r *Report) addRange(from, upto int, format string, args ...any) {
	r.Checks = append(r.Checks, Check{OK: false, Line: from, Upto: upto, What: fmt.Sprintf(format, args...)})
}

func (r *Report) add(ok bool, line int, format string, args ...any) {
	r.Checks = append(r.Checks, Check{OK: ok, Line: line, What: fmt.Sprintf(format, args...)})
}

// VerifyOptions are what a verification trusts.
type VerifyOptions struct {
	// Checkpoint is a signed checkpoint given beside the export; optional.
	Checkpoint []byte
	// Verifier is the trusted key; without it signatures are reported as
	// not checked (and the verdict fails).
	Verifier note.Verifier
}

// drawCheck is a recorded draw being checked: what deciding it again from
// the state found (msg), and, when that agreed, the finding of its search
// re-run beside the fold (rerun).
type drawCheck struct {
	line, prev int // its line, and the line of the draw before it (0: none)
	d          events.TablesDrawn
	msg        string
	rerun      chan string
}

// checkpointAt is a signed checkpoint to check, and where it came from.
type checkpointAt struct {
	signed []byte
	from   string
	line   int
}

// Verify checks an export without trusting its server: every line is linked
// to the one before it, every event decodes and folds, every recorded draw
// re-runs to the recorded tables and is what the events before it decide,
// the Merkle root of the lines matches every signed checkpoint (the one
// given and the ones published classifications embed), and every published
// classification is the one the events before it derive.
//
// The export is read once, line by line: memory holds the state, not the
// log. sc is closed; Verify reads it from the start (no Scan before).
func Verify(sc *Scanner, o VerifyOptions) *Report {
	defer sc.Close()
	// A draw's inputs (tens of MB of JSON in a large tournament) are
	// decoded only when they are not, byte for byte, the inputs deciding
	// the draw again gives (recordedInputs).
	sc.SkipDrawInputs()
	v := newVerifier(o)
	v.inline = sc.inline
	defer v.settleDraws(math.MaxInt, true) // no search outlives Verify
	for sc.Scan() {
		v.line(sc)
	}
	v.settleDraws(math.MaxInt, true)
	if err := sc.Err(); err != nil {
		// A line that is no event of this log, out of place: nothing
		// after it can be checked against it.
		var le *LineError
		if errors.As(err, &le) {
			v.r.add(false, le.Line, "%v", le.Err)
		} else {
			v.r.add(false, 0, "reading the export: %v", err)
		}
		return v.r
	}
	return v.verdict(sc.Line(), o)
}

// verifier is a verification under way: what the lines scanned so far
// showed, and what the verdict will weigh.
type verifier struct {
	r    *Report
	st   *projections.Tournament
	tree *checkpoint.Tree
	// roots are kept at the sizes checkpoints name: the given one's
	// (given), known before the scan, and size L-1 for a publication at
	// line L.
	roots map[uint64][]byte
	given uint64
	cps   []checkpointAt
	// broken are the lines whose link to the line before fails; links
	// lists them in order.
	broken map[int]bool
	links  []int
	// foldOK: every line so far decoded and folded; after the first that
	// did not, lines are only linked and hashed.
	foldOK               bool
	draws, publications  int
	lastDraw, drawFailed int   // the line of the last draw, and of the first that failed
	lastPub              int   // the line of the last publication
	settle               []int // findings at a line the lines before it could explain
	pending              []*drawCheck
	slots                chan struct{} // the searches of draws re-run beside the fold, at most one per CPU
	// inline: draws are re-run on the verifying goroutine, as the scanner
	// decodes there (Scanner.DecodeInline).
	inline bool
	// encoded holds the inputs of the last draw encoded again: one buffer
	// for the draws of a log (recordedInputs.equal).
	encoded []byte
}

func newVerifier(o VerifyOptions) *verifier {
	v := &verifier{r: &Report{}, tree: checkpoint.NewTree(), roots: map[uint64][]byte{0: checkpoint.EmptyRoot()},
		broken: map[int]bool{}, foldOK: true, slots: make(chan struct{}, runtime.GOMAXPROCS(0))}
	if len(o.Checkpoint) > 0 {
		v.cps = append(v.cps, checkpointAt{signed: o.Checkpoint, from: "the checkpoint given"})
		if cp, _, err := checkpoint.OpenUnverified(o.Checkpoint); err == nil {
			v.given = cp.Size
		}
	}
	return v
}

// line checks the line sc holds: its link and leaf, then, while the log
// still folds, its event.
func (v *verifier) line(sc *Scanner) {
	v.settleDraws(math.MaxInt, false)
	line, env := sc.Line(), sc.Envelope()
	if v.st == nil {
		v.st = projections.New(env.Tournament)
	}
	if env.Type == events.TypeClassificationPublished || env.Type == events.TypeClassificationImported {
		v.roots[uint64(line-1)] = v.tree.Root() // what the publication claims to derive from
	}
	if !linked(env.Prev, v.tree.Last()) {
		v.broken[line] = true
		v.links = append(v.links, line)
	}
	_ = v.tree.AppendLeaf(sc.LeafHash(), nil)
	if uint64(line) == v.given {
		v.roots[v.given] = v.tree.Root()
	}
	if !v.foldOK {
		return
	}
	ev, err := sc.Event()
	if err != nil {
		v.stop(line, "event %s does not decode: %v", env.ID, err)
		return
	}
	if pub, ok := ev.(events.ClassificationPublished); ok {
		v.publication(line, env, pub)
	}
	if imp, ok := ev.(events.ClassificationImported); ok {
		v.importedPublication(line, env, imp)
	}
	if d, ok := ev.(events.TablesDrawn); ok {
		if err := v.draw(line, env, d); err != nil {
			v.stop(line, "event %s does not decode: %v", env.ID, err)
			return
		}
	}
	if err := v.st.Apply(env, ev, nil); err != nil {
		v.settleDraws(line, true)
		v.r.addRange(1, line, "event %s cannot follow the events before it: %v", env.ID, err)
		v.settle = append(v.settle, len(v.r.Checks)-1)
		v.foldOK = false
	}
}

// linked reports whether prev is events.LinkTo(last), encoded on the stack.
func linked(prev string, last []byte) bool {
	var buf [64]byte
	if n := base64.StdEncoding.EncodedLen(len(last)); last != nil && n <= len(buf) {
		base64.StdEncoding.Encode(buf[:n], last)
		return prev == string(buf[:n])
	}
	return prev == events.LinkTo(last)
}

// stop reports that line is no event, after the findings of the draws
// before it, and folds no further.
func (v *verifier) stop(line int, format string, args ...any) {
	v.settleDraws(line, true)
	v.r.add(false, line, format, args...)
	v.foldOK = false
}

// publication checks a published classification against the one the state
// before it derives, and keeps the checkpoint it embeds.
func (v *verifier) publication(line int, env events.Envelope, pub events.ClassificationPublished) {
	v.publications++
	if pub.Checkpoint != "" {
		v.cps = append(v.cps, checkpointAt{signed: []byte(pub.Checkpoint), from: fmt.Sprintf("the classification published at line %d", line), line: line})
	}
	v.lastPub = line
	if msg := classificationDiffers(v.st, pub); msg != "" {
		// The publication, or any line before it, is at fault; settled
		// by the verdict once the roots are known.
		v.settleDraws(line, true)
		v.r.addRange(1, line, "the classification published at line %d is not the one events 1..%d derive: %s", line, env.Seq-1, msg)
		v.settle = append(v.settle, len(v.r.Checks)-1)
	}
}

// draw decides a recorded draw again from the state and, when that agrees,
// starts re-running its search beside the fold on its recorded inputs. It
// returns the error that its line does not decode.
func (v *verifier) draw(line int, env events.Envelope, d events.TablesDrawn) error {
	v.draws++
	// Deciding the draw again from the state re-runs it on the inputs the
	// state gives: only when that disagrees with the record does
	// re-running the recorded inputs tell more.
	rec := recordedInputs{env: env, buf: &v.encoded}
	req, msg := redecideDraw(v.st, d, env, rec.equal)
	d, err := rec.draw(d)
	if err != nil {
		return err
	}
	dc := &drawCheck{line: line, prev: v.lastDraw, d: d, msg: msg}
	switch {
	case msg == "" && v.inline:
		dc.rerun = make(chan string, 1)
		dc.rerun <- rerunDraw(req, d)
	case msg == "":
		dc.rerun = make(chan string, 1)
		v.slots <- struct{}{}
		go func() {
			defer func() { <-v.slots }()
			dc.rerun <- rerunDraw(req, d)
		}()
	}
	v.pending = append(v.pending, dc)
	v.lastDraw = line
	return nil
}

// settleDraws adds the findings of the draws up to line through, in line
// order, waiting for their searches; with wait false, only of those at the
// head whose search is done (a clean log's draws, and the inputs they hold,
// are let go as the scan goes on).
func (v *verifier) settleDraws(through int, wait bool) {
	for len(v.pending) > 0 && v.pending[0].line <= through {
		dc := v.pending[0]
		msg := dc.msg
		if dc.rerun != nil {
			if wait {
				msg = <-dc.rerun
			} else {
				select {
				case msg = <-dc.rerun:
				default:
					return
				}
			}
		}
		v.pending[0] = nil
		v.pending = v.pending[1:]
		if msg != "" {
			v.drawDiffers(dc, msg)
		}
	}
}

// drawDiffers reports a recorded draw that is not what deciding it again
// gives.
func (v *verifier) drawDiffers(dc *drawCheck, msg string) {
	if err := commands.ReplayDraw(dc.d); err != nil {
		v.r.add(false, dc.line, "the draw of round %d does not re-run to the recorded tables: %v", dc.d.Round, err)
		return
	}
	// The first draw that differs follows a draw that agreed: what changed
	// lies between them. A later one may only inherit that change.
	from := dc.prev + 1
	if v.drawFailed > 0 {
		from = 1
	} else {
		v.drawFailed = dc.line
	}
	v.r.addRange(from, dc.line, "the draw of round %d at line %d is not what the events before it decide (%s)", dc.d.Round, dc.line, msg)
	v.settle = append(v.settle, len(v.r.Checks)-1)
}

// verdict weighs what the scan of n lines found against the signed
// checkpoints: which lines a verified root proves, and so where each
// finding lies.
func (v *verifier) verdict(n int, o VerifyOptions) *Report {
	r := v.r
	r.Checks = slices.Insert(r.Checks, 0, Check{OK: true, What: fmt.Sprintf("log: %d events of tournament %s, seqs 1..%d", n, v.st.ID, n)})
	for i := range v.settle {
		v.settle[i]++
	}
	if v.foldOK {
		r.State = v.st
		r.add(true, 0, "every event decodes and follows; %d draws re-run to their recorded tables; %d classifications published", v.draws, v.publications)
	}
	r.add(true, 0, "Merkle root of the %d leaves: %x", v.tree.Size(), v.tree.Root())
	r.Unsigned = o.Verifier == nil
	if r.Unsigned {
		r.add(false, 0, "no trusted key given (--key, as served at GET /v1/keys): the signatures could be anyone's, so nothing below is proved")
	}
	good, bad, unusable := r.checkCheckpoints(v.st.ID, n, v.cps, v.roots, o.Verifier)
	// Lines up to the largest verified root are the server's own.
	covered := 0
	for _, g := range good {
		covered = max(covered, int(g))
	}
	// A finding at line L that the lines before it could explain (a fold
	// error, a draw or a classification that does not follow) is L's own
	// when a verified root proves lines 1..L-1.
	for _, i := range v.settle {
		if c := &r.Checks[i]; c.Upto-1 <= covered {
			c.Line, c.Upto = c.Upto, 0
		}
	}
	r.reportLinks(v.links, v.broken, n, covered)
	v.coverage(n, o, good, bad, unusable, covered)
	return r
}

// coverage reports the lines no verified root proves: up to a root that
// does not match, or after the last one that does.
func (v *verifier) coverage(n int, o VerifyOptions, good, bad []uint64, unusable bool, covered int) {
	r := v.r
	switch {
	case len(bad) > 0:
		// A root mismatch says some line up to its size changed; the
		// largest verified root below narrows where.
		slices.Sort(bad)
		from := 1
		for _, g := range good {
			if g < bad[0] {
				from = max(from, int(g)+1)
			}
		}
		r.addRange(from, int(bad[0]), "a line among %d..%d was changed, removed or reordered: the signed root of %d events does not match", from, bad[0], bad[0])
	case r.Unsigned || unusable || covered >= n:
	case len(o.Checkpoint) > 0:
		r.addRange(covered+1, n, "lines %d..%d are not covered by the checkpoint given: events added after it was signed?", covered+1, n)
	case covered > 0 && v.lastPub == covered+1:
		// Only a publication's own checkpoint anchors the log: the
		// publication line is proved by the re-derivation, what follows it
		// by nothing.
		if n > v.lastPub {
			r.add(true, 0, "lines %d..%d, after the last publication, are covered by no signature: give the export's checkpoint (--checkpoint) to cover them", v.lastPub+1, n)
		}
	default:
		r.addRange(covered+1, n, "lines %d..%d are not covered by any signed checkpoint", covered+1, n)
	}
}

// reportLinks turns the lines whose link fails into findings. Line L's link
// fails when line L-1's bytes or L's own link changed. So a first break at
// L alone says line L-1 changed (had L's link changed, L's bytes changed
// and L+1's link would fail too); breaks at L and L+1 say L's link changed
// or both L-1 and L did: one of L-1..L is the first. Lines up to covered
// are proved by a verified root: a break after them is the breaking line's.
func (r *Report) reportLinks(links []int, broken map[int]bool, n, covered int) {
	if len(links) == 0 {
		r.add(true, 0, "every line is linked to the one before it")
		return
	}
	for _, b := range links {
		switch {
		case broken[b-1]:
			// Explained with the break before it.
		case b == 1:
			r.add(false, 1, "line 1 is linked to an event before it: the export does not start the log")
		case b-1 <= covered:
			r.add(false, b, "line %d was changed or added: it is not linked to line %d, which a signed checkpoint proves", b, b-1)
		case broken[b+1]:
			r.addRange(b-1, b, "line %d is not linked to line %d, nor line %d to line %d: line %d's link was changed, or lines %d and %d both were", b, b-1, b+1, b, b, b-1, b)
		case b == n:
			r.addRange(b-1, b, "line %d is linked to a different line %d: line %d was changed, or line %d's link", b, b-1, b-1, b)
		default:
			r.add(false, b-1, "line %d was changed: line %d is linked to a different line %d", b-1, b, b-1)
		}
	}
}

// checkCheckpoints checks each signed checkpoint: signature, origin, and
// root at its size. It returns the sizes whose roots matched and those
// whose roots did not, both under a verified signature, and whether one
// could not be used at all (forged, for another log, or covering lines the
// export lacks): what is left uncovered then says nothing more. Without a
// key nothing a checkpoint says is trusted: its findings concern the whole
// log and locate nothing.
func (r *Report) checkCheckpoints(tournament string, n int, cps []checkpointAt, roots map[uint64][]byte, v note.Verifier) (good, bad []uint64, unusable bool) {
	if len(cps) == 0 {
		r.add(false, 0, "no signed checkpoint: give the export's with --checkpoint (no publication embeds one)")
		return nil, nil, true
	}
	sort.SliceStable(cps, func(a, b int) bool { return cps[a].line < cps[b].line })
	at := func(line int) int {
		if v == nil {
			return 0
		}
		return line
	}
	for _, c := range cps {
		var cp checkpoint.Checkpoint
		var err error
		signed := "signature ok"
		if v != nil {
			cp, err = checkpoint.Open(c.signed, v)
		} else {
			var name string
			cp, name, err = checkpoint.OpenUnverified(c.signed)
			signed = "signature NOT checked (signed as " + name + ")"
		}
		if err != nil {
			unusable = true
			r.add(false, c.line, "%s: %v", c.from, err)
			continue
		}
		switch {
		case cp.Origin != checkpoint.Origin(tournament):
			unusable = true
			r.add(false, c.line, "%s is for %s, not %s", c.from, cp.Origin, checkpoint.Origin(tournament))
		case cp.Size > uint64(n):
			unusable = true
			r.add(false, at(n+1), "the export ends at line %d but %s covers %d events: events removed from the end", n, c.from, cp.Size)
		case roots[cp.Size] == nil:
			unusable = true
			r.add(false, c.line, "%s names size %d, not a size this export was checked at", c.from, cp.Size)
		case !bytes.Equal(roots[cp.Size], cp.Root):
			if v != nil {
				bad = append(bad, cp.Size)
			}
			r.add(false, 0, "%s (size %d, %s): its root %x is not the root of lines 1..%d (%x)", c.from, cp.Size, signed, cp.Root, cp.Size, roots[cp.Size])
		default:
			if v != nil {
				good = append(good, cp.Size)
			}
			r.add(true, c.line, "%s: size %d, %s, root matches", c.from, cp.Size, signed)
		}
	}
	return good, bad, unusable
}

// classificationDiffers compares a publication with the classification the
// state before it derives; "" when they agree.
func classificationDiffers(st *projections.Tournament, pub events.ClassificationPublished) string {
	cl := st.Classification()
	if len(cl.Rows) != len(pub.Rows) {
		return fmt.Sprintf("%d rows published, %d derived", len(pub.Rows), len(cl.Rows))
	}
	for i, row := range cl.Rows {
		if p, d := pub.Rows[i], row.Published(); p != d {
			want, _ := json.Marshal(d)
			got, _ := json.Marshal(p)
			return fmt.Sprintf("row %d published %s, derived %s", i+1, got, want)
		}
	}
	if fmt.Sprint(cl.Expelled) != fmt.Sprint(pub.Expelled) {
		return fmt.Sprintf("expelled published %v, derived %v", pub.Expelled, cl.Expelled)
	}
	return ""
}

// redecideDraw decides the draw again from the state the log gives before
// it, with its recorded seed (or hand-made tables), and compares the event
// with the recorded one: a result changed after the draw was made shows
// here as different inputs. The search is not run here: the decision gets
// the recorded tables in its place and gives back the request it made, for
// rerunDraw to run beside the fold. "" when they agree.
func redecideDraw(st *projections.Tournament, d events.TablesDrawn, env events.Envelope, sameInputs func(events.DrawInputs) bool) (draw.Request, string) {
	cmd := &commands.DrawTables{Round: d.Round, Seed: d.Seed}
	if d.Algorithm == "manual" {
		cmd.Tables = d.Tables
		cmd.Seed = ""
	}
	var req draw.Request
	in := commands.Input{Now: env.At, Actor: env.Actor, Seed: d.Seed, Draw: func(r draw.Request) (draw.Result, error) {
		req = cloneRequest(r)
		return commands.RecordedDraw(d), nil
	}}
	evs, err := commands.Decide(st, cmd, in)
	if err != nil {
		return req, fmt.Sprintf("deciding it again is refused: %v", err)
	}
	again, ok := evs[len(evs)-1].(events.TablesDrawn)
	if !ok {
		return req, "deciding it again gives no draw"
	}
	if !sameInputs(again.Inputs) {
		return req, "its inputs differ"
	}
	if !slices.EqualFunc(d.Tables, again.Tables, func(a, b events.DrawnTable) bool { return a.Table == b.Table && slices.Equal(a.Players, b.Players) }) {
		return req, "its tables differ"
	}
	for _, part := range []struct {
		name       string
		have, want any
	}{{"seeds", d.Seeds, again.Seeds}, {"byes", d.Byes, again.Byes}, {"reserves seated", d.ReservesSeated, again.ReservesSeated},
		{"algorithm", d.Algorithm, again.Algorithm}} {
		if !sameJSON(part.have, part.want) {
			return req, "its " + part.name + " differ"
		}
	}
	return req, ""
}

// recordedInputs are the inputs a draw's line records, which the scan left
// undecoded (Scanner.SkipDrawInputs).
type recordedInputs struct {
	env     events.Envelope
	buf     *[]byte // where equal encodes the inputs again, when set
	checked bool
	inputs  events.DrawInputs
	err     error // the line does not decode
}

// equal reports whether the recorded inputs are again's. The same bytes as
// again's encoding (the ledger's, encoding/json's) are the same inputs, and
// that is the rule for a log the ledger wrote; anything else (bytes another
// encoder wrote, or other inputs) is decoded and compared field by field,
// an empty list the same as none.
func (ri *recordedInputs) equal(again events.DrawInputs) bool {
	ri.checked = true
	var buf []byte
	if ri.buf != nil {
		buf = (*ri.buf)[:0]
	}
	if cap(buf) < len(ri.env.Data) { // the inputs are part of the data
		buf = make([]byte, 0, len(ri.env.Data))
	}
	buf = appendInputsJSON(buf, again)
	if ri.buf != nil {
		*ri.buf = buf
	}
	if events.MemberIs(ri.env.Data, "inputs", buf) {
		ri.inputs = again
		return true
	}
	ri.decode()
	return ri.err == nil && ri.inputs.Equal(again)
}

func (ri *recordedInputs) decode() {
	ev, err := events.Decode(ri.env)
	if err != nil {
		ri.err = err
		return
	}
	ri.inputs = ev.(events.TablesDrawn).Inputs
}

// draw returns d with its recorded inputs, decoding the line if equal did
// not tell them, or the error that the line does not decode: the draw
// then is no event, as when it was decoded whole.
func (ri *recordedInputs) draw(d events.TablesDrawn) (events.TablesDrawn, error) {
	if !ri.checked {
		ri.checked = true
		ri.decode()
	}
	d.Inputs = ri.inputs
	return d, ri.err
}

// appendInputsJSON appends in as encoding/json encodes it, as the ledger
// wrote it, without reflection: the inputs of a late draw of a large
// tournament are tens of MB, and encoding/json took 2 of verify's CPU
// seconds over the million-event log. A string it cannot be sure of is
// encoded by encoding/json itself; should the two ever differ, the inputs
// are only decoded and compared field by field (recordedInputs.equal).
func appendInputsJSON(dst []byte, in events.DrawInputs) []byte {
	dst = append(dst, `{"entrants":`...)
	dst = appendSlice(dst, in.Entrants, func(dst []byte, e events.DrawEntrant) []byte {
		dst = appendString(append(dst, `{"player":`...), e.Player)
		if e.Club != "" {
			dst = appendString(append(dst, `,"club":`...), e.Club)
		}
		if e.Region != "" {
			dst = appendString(append(dst, `,"region":`...), e.Region)
		}
		if e.Rank != 0 {
			dst = strconv.AppendInt(append(dst, `,"rank":`...), int64(e.Rank), 10)
		}
		return append(dst, '}')
	})
	dst = appendSlice(append(dst, `,"sizes":`...), in.Sizes, appendInt)
	if in.SmallTableMax != 0 {
		dst = strconv.AppendInt(append(dst, `,"small_table_max":`...), int64(in.SmallTableMax), 10)
	}
	if len(in.Past) > 0 {
		dst = appendSlice(append(dst, `,"past":`...), in.Past, func(dst []byte, g events.DrawGame) []byte {
			dst = strconv.AppendInt(append(dst, `{"round":`...), int64(g.Round), 10)
			dst = strconv.AppendInt(append(dst, `,"table":`...), int64(g.Table), 10)
			dst = appendSlice(append(dst, `,"players":`...), g.Players, appendString)
			dst = appendSlice(append(dst, `,"places":`...), g.Places, appendInt)
			dst = appendSlice(append(dst, `,"scores":`...), g.Scores, func(dst []byte, v int64) []byte { return strconv.AppendInt(dst, v, 10) })
			return append(dst, '}')
		})
	}
	if len(in.Bands) > 0 {
		dst = appendSlice(append(dst, `,"bands":`...), in.Bands, func(dst []byte, b []string) []byte { return appendSlice(dst, b, appendString) })
	}
	if in.ManualAs != "" {
		dst = appendString(append(dst, `,"manual_as":`...), in.ManualAs)
	}
	if in.Rule != "" {
		dst = appendString(append(dst, `,"rule":`...), in.Rule)
	}
	return append(dst, '}')
}

// appendSlice appends s as a JSON array (null when nil, as encoding/json).
func appendSlice[T any](dst []byte, s []T, elem func([]byte, T) []byte) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, v := range s {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = elem(dst, v)
	}
	return append(dst, ']')
}

func appendInt(dst []byte, v int) []byte { return strconv.AppendInt(dst, int64(v), 10) }

// appendString appends s quoted as encoding/json quotes it: printable
// ASCII other than the characters it escapes as is, anything else by
// encoding/json.
func appendString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(dst, q...)
		}
	}
	return append(append(append(dst, '"'), s...), '"')
}

// rerunDraw runs the search of a draw on the request deciding it again
// made, and compares the outcome with the recorded one: with redecideDraw's
// agreement, the draw is then what the events before it decide. "" when
// they agree.
func rerunDraw(req draw.Request, d events.TablesDrawn) (msg string) {
	defer func() {
		if p := recover(); p != nil {
			msg = fmt.Sprintf("re-running it fails: %v", p)
		}
	}()
	res, err := draw.Draw(req)
	if err != nil {
		return fmt.Sprintf("deciding it again is refused: %v", err)
	}
	rec := commands.RecordedDraw(d)
	if !slices.EqualFunc(rec.Tables, res.Tables, func(a, b draw.Table) bool { return a.Table == b.Table && slices.Equal(a.Players, b.Players) }) {
		return "its tables differ"
	}
	for _, part := range []struct {
		name       string
		have, want any
	}{{"algorithm", rec.Algorithm, res.Algorithm}, {"algorithm version", rec.Version, res.Version},
		{"seed", rec.Seed, res.Seed}, {"unmet constraints", rec.Unmet, res.Unmet}} {
		if !sameJSON(part.have, part.want) {
			return "its " + part.name + " differ"
		}
	}
	return ""
}

func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// cloneRequest copies what a draw request may share with the state it was
// made from: the search runs on it while the fold goes on changing that
// state. Its entrants and past games are made for the request
// (commands.Input.Draw), and are not copied: the past of a late draw of a
// large tournament is tens of MB.
func cloneRequest(r draw.Request) draw.Request {
	r.Sizes = slices.Clone(r.Sizes)
	bands := make([][]string, len(r.Bands))
	for i, b := range r.Bands {
		bands[i] = slices.Clone(b)
	}
	if r.Bands != nil {
		r.Bands = bands
	}
	tables := make([]draw.Table, len(r.Tables))
	for i, t := range r.Tables {
		tables[i] = draw.Table{Table: t.Table, Players: slices.Clone(t.Players)}
	}
	if r.Tables != nil {
		r.Tables = tables
	}
	return r
}
