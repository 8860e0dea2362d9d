package events

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// A line as the ledger writes it (encoding/json's encoding of an Envelope
// whose data is encoding/json's encoding of its event) is decoded here
// byte by byte, without reflection or a tokenizer: the envelope, and the
// data of the events a log holds most of (check-ins, registrations,
// reports, draws, publications). This path accepts a subset of what the
// strict decoder accepts and reads it as that decoder does: no space
// between tokens; member names without escapes, each known to the type
// and given once; strings of valid UTF-8 whose escapes name no surrogate;
// integers of at most 18 digits without a leading zero, sign or exponent
// where the field is an integer; true and false where it is a bool; null
// only where it is a list. Anything else, and every line of another type,
// makes it give up, and the line is decoded by the strict decoder
// (decodeLine), which accepts or refuses it and says why.

// plain reads b from i.
type plain struct {
	b []byte
	i int
	// names are the names of the objects skip is in, outermost first.
	names [][]byte
}

// is consumes c if it comes next.
func (p *plain) is(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// word consumes w if it comes next.
func (p *plain) word(w string) bool {
	if len(p.b)-p.i >= len(w) && string(p.b[p.i:p.i+len(w)]) == w {
		p.i += len(w)
		return true
	}
	return false
}

// name reads a member name and its colon: a string without escapes.
func (p *plain) name() ([]byte, bool) {
	s, escaped, ok := p.quoted()
	return s, ok && !escaped && p.is(':')
}

// quoted reads a string, returning its bytes between the quotes as they
// stand and whether they hold escapes. Control characters are refused,
// and so is invalid UTF-8 (which the strict decoder would replace).
func (p *plain) quoted() (s []byte, escaped, ok bool) {
	if !p.is('"') {
		return nil, false, false
	}
	b, start, ascii := p.b, p.i, true
	i := start
	for {
		// Eight bytes at a time, to the first quote, backslash, control
		// character or byte beyond ASCII among them.
		for i+8 <= len(b) {
			if m := special(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
			i += 8
		}
		if i >= len(b) {
			return nil, false, false
		}
		switch c := b[i]; {
		case c == '"':
			p.i = i + 1
			s = b[start:i]
			return s, escaped, ascii || utf8.Valid(s)
		case c == '\\':
			escaped = true
			i++
		case c < 0x20:
			return nil, false, false
		case c >= 0x80:
			ascii = false
		}
		i++
	}
}

// special has the high bit set of the bytes of w (in little-endian order)
// that are a quote, a backslash, a control character or beyond ASCII;
// above the first of them, perhaps of others too.
func special(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(x uint64) uint64 { return (x - ones) &^ x & highs } // the zero bytes of x, from the first
	return zero(w^(ones*'"')) | zero(w^(ones*'\\')) | (w-ones*0x20)&^w&highs | w&highs
}

// bytes reads a string's value.
func (p *plain) bytes() ([]byte, bool) {
	s, escaped, ok := p.quoted()
	if !ok || !escaped {
		return s, ok
	}
	return unescape(s)
}

// str reads a string.
func (p *plain) str() (string, bool) {
	s, ok := p.bytes()
	return string(s), ok
}

// unescape resolves the escapes of a string's bytes: those of JSON, but
// for \u escapes of surrogates (pairs and lone ones are the strict
// decoder's).
func unescape(s []byte) ([]byte, bool) {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		if i++; i == len(s) {
			return nil, false
		}
		switch s[i] {
		case '"', '\\', '/':
			out = append(out, s[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if len(s)-i < 5 {
				return nil, false
			}
			var r rune
			for _, h := range s[i+1 : i+5] {
				switch {
				case h >= '0' && h <= '9':
					r = r<<4 | rune(h-'0')
				case h >= 'a' && h <= 'f':
					r = r<<4 | rune(h-'a'+10)
				case h >= 'A' && h <= 'F':
					r = r<<4 | rune(h-'A'+10)
				default:
					return nil, false
				}
			}
			if r >= 0xd800 && r < 0xe000 {
				return nil, false
			}
			out = utf8.AppendRune(out, r)
			i += 4
		default:
			return nil, false
		}
	}
	return out, true
}

// int reads an integer: an optional minus, then 1 to 18 digits without a
// leading zero (or a lone 0).
func (p *plain) int() (int, bool) {
	neg := p.is('-')
	start, n := p.i, 0
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		n = n*10 + int(p.b[p.i]-'0')
		p.i++
	}
	digits := p.i - start
	if digits == 0 || digits > 18 || p.b[start] == '0' && (digits > 1 || neg) {
		return 0, false
	}
	if p.i < len(p.b) && (p.b[p.i] == '.' || p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// bool reads true or false.
func (p *plain) bool() (bool, bool) {
	switch {
	case p.word("true"):
		return true, true
	case p.word("false"):
		return false, true
	}
	return false, false
}

// object reads an object whose member names are among names (as the
// encoding writes them, in the order of the struct's fields), each at most
// once: member reads the value of names[k]. A name in its place costs one
// comparison of bytes; one out of place, a search.
func (p *plain) object(names []string, member func(k int) bool) bool {
	if !p.is('{') {
		return false
	}
	if p.is('}') {
		return true
	}
	var seen uint32
	next := 0 // the field after the last one read
	for {
		k := -1
		for j := next; j < len(names); j++ {
			if p.nameIs(names[j]) {
				k = j
				break
			}
		}
		if k < 0 {
			name, ok := p.name()
			if !ok {
				return false
			}
			if k = slices.Index(names, string(name)); k < 0 {
				return false
			}
		}
		if seen&(1<<k) != 0 || !member(k) {
			return false
		}
		seen |= 1 << k
		next = k + 1
		if p.is('}') {
			return true
		}
		if !p.is(',') {
			return false
		}
	}
}

// nameIs consumes the member name n and its colon if they come next.
func (p *plain) nameIs(n string) bool {
	b := p.b[p.i:]
	if len(b) < len(n)+3 || b[0] != '"' || b[len(n)+1] != '"' || b[len(n)+2] != ':' || string(b[1:len(n)+1]) != n {
		return false
	}
	p.i += len(n) + 3
	return true
}

// list reads an array (nil for null, empty for []), each element by elem,
// into a slice made for about size elements.
func list[T any](p *plain, size int, elem func() (T, bool)) ([]T, bool) {
	if p.word("null") {
		return nil, true
	}
	if !p.is('[') {
		return nil, false
	}
	if p.is(']') {
		return []T{}, true
	}
	out := make([]T, 0, size)
	for {
		v, ok := elem()
		if !ok {
			return nil, false
		}
		out = append(out, v)
		if p.is(']') {
			return out, true
		}
		if !p.is(',') {
			return nil, false
		}
	}
}

func (p *plain) strs() ([]string, bool) { return list(p, 4, p.str) }
func (p *plain) ints() ([]int, bool)    { return list(p, 4, p.int) }

// skip reads one JSON value of any shape and keeps nothing, as the strict
// decoder reads a draw's inputs for a fold: well-formed, and no object
// giving a name twice (an object of more than maxNames members, or values
// nested deeper than maxDepth, are left to the strict decoder).
func (p *plain) skip(depth int) bool {
	if p.i == len(p.b) || depth > maxDepth {
		return false
	}
	switch c := p.b[p.i]; {
	case c == '"':
		_, ok := p.bytes()
		return ok
	case c == '{':
		p.i++
		if p.is('}') {
			return true
		}
		first := len(p.names) // this object's names are p.names[first:]
		defer func() { p.names = p.names[:first] }()
		for {
			name, ok := p.name()
			if !ok || len(p.names)-first == maxNames {
				return false
			}
			for _, m := range p.names[first:] {
				if string(m) == string(name) {
					return false
				}
			}
			p.names = append(p.names, name)
			if !p.skip(depth + 1) {
				return false
			}
			if p.is('}') {
				return true
			}
			if !p.is(',') {
				return false
			}
		}
	case c == '[':
		p.i++
		if p.is(']') {
			return true
		}
		for {
			if !p.skip(depth + 1) {
				return false
			}
			if p.is(']') {
				return true
			}
			if !p.is(',') {
				return false
			}
		}
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	default:
		return p.word("true") || p.word("false") || p.word("null")
	}
}

const (
	maxNames = 64
	maxDepth = 32
)

// number reads a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *plain) number() bool {
	p.is('-')
	switch {
	case p.is('0'):
	case p.digits() == 0:
		return false
	}
	if p.is('.') && p.digits() == 0 {
		return false
	}
	if p.is('e') || p.is('E') {
		if !p.is('+') {
			p.is('-')
		}
		if p.digits() == 0 {
			return false
		}
	}
	return true
}

// digits reads [0-9]* and returns how many.
func (p *plain) digits() int {
	start := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	return p.i - start
}

// time reads a time in UTC, "2006-01-02T15:04:05Z" with or without 1 to 9
// digits of fractions of a second: what time.Time's encoding of a UTC time
// is, and read as the strict decoder reads it.
func (p *plain) time() (time.Time, bool) {
	s, escaped, ok := p.quoted()
	if !ok || escaped || len(s) < 20 || len(s) > 30 || s[len(s)-1] != 'Z' {
		return time.Time{}, false
	}
	num := func(at, n int) int {
		v := 0
		for _, c := range s[at : at+n] {
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	year, month, day, hour, minute, sec := num(0, 4), num(5, 2), num(8, 2), num(11, 2), num(14, 2), num(17, 2)
	if s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' ||
		year < 0 || month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour < 0 || hour > 23 ||
		minute < 0 || minute > 59 || sec < 0 || sec > 59 {
		return time.Time{}, false
	}
	nsec := 0
	if frac := s[19 : len(s)-1]; len(frac) > 0 {
		if frac[0] != '.' || len(frac) == 1 {
			return time.Time{}, false
		}
		if nsec = num(20, len(frac)-1); nsec < 0 {
			return time.Time{}, false
		}
		for range 10 - len(frac) {
			nsec *= 10
		}
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC), true
}

// daysIn is the number of days of month in year.
func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// envelopeNames are an Envelope's members.
var envelopeNames = []string{"id", "tournament", "seq", "type", "v", "at", "actor", "command_id", "prev", "data"}

// plainLine decodes line as decodeLine does, or reports false for the
// strict decoder to decode it. The data of an event without a plain
// decoder (or one it gives up on, or that comes before the type) is read
// as JSON and decoded by the strict decoder from its bytes within line.
func plainLine(line []byte, fold bool) (env Envelope, ev Event, err error, ok bool) {
	var l lineParts
	p := &plain{b: line}
	if !l.inOrder(p, fold) {
		l = lineParts{}
		p.i = 0
		if !l.anyOrder(p, fold) {
			return Envelope{}, nil, nil, false
		}
	}
	env, id, tournament := l.env, l.id, l.tournament
	if p.i != len(line) || env.Seq == 0 || env.Type == "" || env.V < 1 || !ValidID(string(tournament)) ||
		len(id) != len(tournament)+1+digitsOf(env.Seq) || string(id[:len(tournament)]) != string(tournament) ||
		id[len(tournament)] != '/' || !isDecimal(id[len(tournament)+1:], env.Seq) {
		return Envelope{}, nil, nil, false
	}
	// The envelope's strings are cut from one: a line's allocations are
	// most of what decoding it costs.
	var buf [256]byte
	all := string(append(append(append(append(buf[:0], id...), l.command...), l.prev...), l.actor...))
	env.ID, all = all[:len(id)], all[len(id):]
	env.CommandID, all = all[:len(l.command)], all[len(l.command):]
	env.Prev, env.Actor.ID = all[:len(l.prev)], all[len(l.prev):]
	env.Tournament = env.ID[:len(tournament)]
	env.Data = line[l.dataStart:l.dataEnd:l.dataEnd]
	if ev = l.ev; ev == nil {
		ev, err = decode(env, fold)
	}
	return env, ev, err, true
}

// lineParts are what a line's envelope holds, as read: the strings as
// bytes of the line (or unescaped), the data as where it lies and, when a
// plain decoder read it, its event.
type lineParts struct {
	env                                  Envelope
	id, tournament, actor, command, prev []byte
	dataStart, dataEnd                   int
	ev                                   Event
}

// inOrder reads an envelope whose members come as the ledger writes them:
// in the order of the fields, "prev" left out of the first event, the
// actor's id before its role. It reads them as anyOrder does, with a
// comparison of bytes for each name.
func (l *lineParts) inOrder(p *plain, fold bool) bool {
	var ok bool
	if !p.word(`{"id":`) {
		return false
	}
	if l.id, ok = p.bytes(); !ok || !p.word(`,"tournament":`) {
		return false
	}
	if l.tournament, ok = p.bytes(); !ok || !p.word(`,"seq":`) {
		return false
	}
	seq, ok := p.int()
	if !ok || seq <= 0 || !p.word(`,"type":`) {
		return false
	}
	l.env.Seq = uint64(seq)
	typ, ok := p.bytes()
	if !ok || !p.word(`,"v":`) {
		return false
	}
	l.env.Type = typeName(typ)
	if l.env.V, ok = p.int(); !ok || !p.word(`,"at":`) {
		return false
	}
	if l.env.At, ok = p.time(); !ok || !p.word(`,"actor":{"id":`) {
		return false
	}
	if l.actor, ok = p.bytes(); !ok || !p.word(`,"role":`) {
		return false
	}
	role, ok := p.bytes()
	if !ok || !p.word(`},"command_id":`) {
		return false
	}
	l.env.Actor.Role = knownRole(role)
	if l.command, ok = p.bytes(); !ok {
		return false
	}
	if p.word(`,"prev":`) {
		if l.prev, ok = p.bytes(); !ok {
			return false
		}
	}
	return p.word(`,"data":`) && l.data(p, fold) && p.is('}')
}

// anyOrder reads an envelope's members in any order, each at most once.
func (l *lineParts) anyOrder(p *plain, fold bool) bool {
	l.dataStart = -1
	ok := p.object(envelopeNames, func(k int) bool {
		var ok bool
		switch k {
		case 0:
			l.id, ok = p.bytes()
		case 1:
			l.tournament, ok = p.bytes()
		case 2:
			var seq int
			seq, ok = p.int()
			l.env.Seq = uint64(seq)
			ok = ok && seq > 0
		case 3:
			var typ []byte
			typ, ok = p.bytes()
			l.env.Type = typeName(typ)
		case 4:
			l.env.V, ok = p.int()
		case 5:
			l.env.At, ok = p.time()
		case 6:
			l.actor, l.env.Actor.Role, ok = p.actor()
		case 7:
			l.command, ok = p.bytes()
		case 8:
			l.prev, ok = p.bytes()
		case 9:
			ok = l.data(p, fold)
		}
		return ok
	})
	return ok && l.dataStart >= 0
}

// data reads the envelope's data: by the plain decoder of its type when it
// has one and the type came first, else as any JSON value but null.
func (l *lineParts) data(p *plain, fold bool) bool {
	l.dataStart = p.i
	if e, has, ok := plainEvent(p, l.env.Type, l.env.V, fold); has {
		if ok {
			l.ev, l.dataEnd = e, p.i
			return true
		}
		p.i = l.dataStart
	}
	ok := p.skip(0) && !p.after(l.dataStart, "null")
	l.dataEnd = p.i
	return ok
}

// typeName is a stored type name: the codec's own string when it knows it.
func typeName(b []byte) string {
	if t, ok := typeNames[string(b)]; ok {
		return t
	}
	return string(b)
}

// after reports whether the bytes from start to where p stands are w.
func (p *plain) after(start int, w string) bool { return string(p.b[start:p.i]) == w }

// plainEvent reads the data of an event of type typ and version v at p by
// its plain decoder, if it has one (has), for a decoding that will only be
// folded when fold is set (lookupFor). The decoders are called directly:
// through a func value, p would escape to the heap.
func plainEvent(p *plain, typ string, v int, fold bool) (ev Event, has, ok bool) {
	if v != 1 {
		return nil, false, false
	}
	switch {
	case typ == TypePlayerCheckedIn:
		ev, ok = plainCheckedIn(p)
	case typ == TypePlayerRegistered:
		ev, ok = plainRegistered(p)
	case typ == TypeResultRecorded:
		ev, ok = plainResult(p)
	case typ == TypeClassificationPublished:
		ev, ok = plainPublished(p)
	case typ == TypeTieBreakRolled:
		ev, ok = plainTieBreak(p)
	case typ == TypeTablesDrawn && fold:
		ev, ok = plainDrawnForFold(p)
	default:
		return nil, false, false
	}
	return ev, true, ok
}

// digitsOf is the number of decimal digits of n.
func digitsOf(n uint64) int {
	d := 1
	for ; n >= 10; n /= 10 {
		d++
	}
	return d
}

// isDecimal reports whether b is n in decimal, without leading zeros.
func isDecimal(b []byte, n uint64) bool {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] != byte('0'+n%10) {
			return false
		}
		n /= 10
	}
	return n == 0
}

var actorNames = []string{"id", "role"}

// actor reads an actor: its id's bytes and its role.
func (p *plain) actor() (id []byte, role string, ok bool) {
	ok = p.object(actorNames, func(k int) bool {
		var ok bool
		if k == 0 {
			id, ok = p.bytes()
		} else {
			var b []byte
			b, ok = p.bytes()
			role = knownRole(b)
		}
		return ok
	})
	return id, role, ok
}

// knownRole is a role, one of the constants when it is one.
func knownRole(b []byte) string {
	return known(b, RoleAdmin, RoleArbiter, RoleAppeals, RoleAuditor, RolePlayer, RoleSystem)
}

// known returns b as the one of words it spells, else as a new string.
func known[T ~string](b []byte, words ...T) T {
	for _, w := range words {
		if string(w) == string(b) {
			return w
		}
	}
	return T(b)
}

// typeNames maps each stored type name the codec knows to itself.
var typeNames = func() map[string]string {
	m := make(map[string]string, len(codec))
	for k := range codec {
		m[k.typ] = k.typ
	}
	return m
}()

// The member names of each event a plain decoder reads, in the order of
// its fields: the order encoding/json writes them in.
var (
	checkedInNames  = []string{"round", "player", "minutes_late", "admitted", "rule", "absent"}
	registeredNames = []string{"player", "name", "club", "region", "rank", "minor", "waiver", "national_id"}
	resultNames     = []string{"round", "table", "closed_by", "winner", "risiko", "players", "objective_set", "proposal"} // not rolls: a map, the strict decoder's
	seatNames       = []string{"player", "turn", "table_points", "off_objective_points", "objective_territories", "territories",
		"armies", "objective_armies", "cards", "status", "eliminated_order", "withdrawal", "objective", "territories_held"}
	publishedNames = []string{"final", "rows", "expelled", "checkpoint"}
	rowNames       = []string{"rank", "player", "name", "phase", "total", "status"}
	tieBreakNames  = []string{"players", "rolls", "signatures"}
	drawnNames     = []string{"round", "phase", "algorithm", "version", "seed", "inputs", "tables", "unmet", "reserves_seated", "seeds", "byes"} // not labels: a map
	tableNames     = []string{"table", "players"}
	unmetNames     = []string{"constraint", "table", "players", "detail"}
)

func plainCheckedIn(p *plain) (Event, bool) {
	var e PlayerCheckedIn
	ok := p.object(checkedInNames, func(k int) bool {
		var ok bool
		switch k {
		case 0:
			e.Round, ok = p.int()
		case 1:
			e.Player, ok = p.str()
		case 2:
			e.MinutesLate, ok = p.int()
		case 3:
			e.Admitted, ok = p.bool()
		case 4:
			e.Rule, ok = p.str()
		case 5:
			e.Absent, ok = p.bool()
		}
		return ok
	})
	return e, ok
}

func plainRegistered(p *plain) (Event, bool) {
	var e PlayerRegistered
	ok := p.object(registeredNames, func(k int) bool {
		var ok bool
		switch k {
		case 0:
			e.Player, ok = p.str()
		case 1:
			e.Name, ok = p.str()
		case 2:
			e.Club, ok = p.str()
		case 3:
			e.Region, ok = p.str()
		case 4:
			e.Rank, ok = p.int()
		case 5:
			e.Minor, ok = p.bool()
		case 6:
			e.Waiver, ok = p.str()
		case 7:
			e.NationalID, ok = p.str()
		}
		return ok
	})
	return e, ok
}

func plainResult(p *plain) (Event, bool) {
	var e ResultRecorded
	ok := p.object(resultNames, func(k int) bool {
		var ok bool
		switch k {
		case 0:
			e.Round, ok = p.int()
		case 1:
			e.Table, ok = p.int()
		case 2:
			var b []byte
			b, ok = p.bytes()
			e.ClosedBy = known(b, ClosingObjective, ClosingRoll, ClosingTime)
		case 3:
			e.Winner, ok = p.str()
		case 4:
			e.Risiko, ok = p.bool()
		case 5:
			e.Players, ok = list(p, 5, func() (SeatReport, bool) { return plainSeat(p) })
		case 6:
			e.ObjectiveSet, ok = p.str()
		case 7:
			e.Proposal, ok = p.str()
		}
		return ok
	})
	return e, ok
}

func plainSeat(p *plain) (SeatReport, bool) {
	var s SeatReport
	ok := p.object(seatNames, func(k int) bool {
		var ok bool
		switch k {
		case 0:
			s.Player, ok = p.str()
		case 1:
			s.Turn, ok = p.int()
		case 2:
			s.TablePoints, ok = p.int()
		case 3:
			s.OffObjectivePoints, ok = p.int()
		case 4:
			s.ObjectiveTerritories, ok = p.int()
		case 5:
			s.Territories, ok = p.int()
		case 6:
			s.Armies, ok = p.int()
		case 7:
			s.ObjectiveArmies, ok = p.int()
		case 8:
			s.Cards, ok = p.int()
		case 9:
			var b []byte
			b, ok = p.bytes()
			s.Status = known(b, SeatFinished, SeatEliminated, SeatWithdrawn, SeatDisqualified)
		case 10:
			s.EliminatedOrder, ok = p.int()
		case 11:
			s.Withdrawal, ok = p.str()
		case 12:
			s.Objective, ok = p.int()
		case 13:
			s.TerritoriesHeld, ok = p.strs()
		}
		return ok
	})
	return s, ok
}

func plainPublished(p *plain) (Event, bool) {
	var e ClassificationPublished
	ok := p.object(publishedNames, func(k int) bool {
		var ok bool
		switch k {
		case 0:
			e.Final, ok = p.bool()
		case 1:
			e.Rows, ok = list(p, 64, func() (ClassificationRow, bool) { return plainRow(p) })
		case 2:
			e.Expelled, ok = p.strs()
		case 3:
			e.Checkpoint, ok = p.str()
		}
		return ok
	})
	return e, ok
}

// phase reads a phase.
func (p *plain) phase() (Phase, bool) {
	b, ok := p.bytes()
	return known(b, PhaseQualifying, PhaseSecondChance, PhaseQuarterfinal, PhaseSemifinal, PhaseFinal, PhaseFinalina, PhaseRegistration), ok
}

func plainRow(p *plain) (ClassificationRow, bool) {
	var r ClassificationRow
	ok := p.object(rowNames, func(k int) bool {
		var ok bool
		switch k {
		case 0:
			r.Rank, ok = p.int()
		case 1:
			r.Player, ok = p.str()
		case 2:
			r.Name, ok = p.str()
		case 3:
			r.Phase, ok = p.phase()
		case 4:
			var t int
			t, ok = p.int()
			r.Total = int64(t)
		case 5:
			var b []byte
			b, ok = p.bytes()
			r.Status = known(b, StatusActive, StatusReserve, StatusWithdrawn, StatusExpelled, StatusRefused)
		}
		return ok
	})
	return r, ok
}

func plainTieBreak(p *plain) (Event, bool) {
	var e TieBreakRolled
	ok := p.object(tieBreakNames, func(k int) bool {
		var ok bool
		switch k {
		case 0:
			e.Players, ok = p.strs()
		case 1:
			e.Rolls, ok = p.ints()
		case 2:
			e.Signatures, ok = p.strs()
		}
		return ok
	})
	return e, ok
}

// plainDrawnForFold reads a draw as decodeDrawnForFold does: its inputs
// read as JSON and not kept.
func plainDrawnForFold(p *plain) (Event, bool) {
	var e TablesDrawn
	ok := p.object(drawnNames, func(k int) bool {
		var ok bool
		switch k {
		case 0:
			e.Round, ok = p.int()
		case 1:
			e.Phase, ok = p.phase()
		case 2:
			e.Algorithm, ok = p.str()
		case 3:
			e.Version, ok = p.int()
		case 4:
			e.Seed, ok = p.str()
		case 5:
			ok = p.skip(0)
		case 6:
			e.Tables, ok = list(p, 16, func() (DrawnTable, bool) { return plainTable(p) })
		case 7:
			e.Unmet, ok = list(p, 4, func() (UnmetConstraint, bool) { return plainUnmet(p) })
		case 8:
			e.ReservesSeated, ok = p.strs()
		case 9:
			e.Seeds, ok = p.strs()
		case 10:
			e.Byes, ok = p.strs()
		}
		return ok
	})
	return e, ok
}

func plainTable(p *plain) (DrawnTable, bool) {
	var t DrawnTable
	ok := p.object(tableNames, func(k int) bool {
		var ok bool
		if k == 0 {
			t.Table, ok = p.int()
		} else {
			t.Players, ok = p.strs()
		}
		return ok
	})
	return t, ok
}

func plainUnmet(p *plain) (UnmetConstraint, bool) {
	var u UnmetConstraint
	ok := p.object(unmetNames, func(k int) bool {
		var ok bool
		switch k {
		case 0:
			u.Constraint, ok = p.str()
		case 1:
			u.Table, ok = p.int()
		case 2:
			u.Players, ok = p.strs()
		case 3:
			u.Detail, ok = p.str()
		}
		return ok
	})
	return u, ok
}

// Member returns the bytes of the first member named name of the JSON
// object data, as they stand in data: nil when data has none, or is no
// object, or its tokens up to that member's end are not JSON (a name given
// twice among them included).
func Member(data []byte, name string) []byte {
	if v, ok := plainMember(data, name); ok {
		return v
	}
	return strictMember(data, name)
}

// MemberIs reports whether the first member named name of the JSON object
// data is value, one JSON value, byte for byte, with data going on after it
// as an object does (or ending there); when it is, Member(data, name) is
// value. A line as the ledger writes it is read only up to the member's
// start and compared from there: the value's own bytes are read once, by
// the comparison.
func MemberIs(data []byte, name string, value []byte) bool {
	p, ok := plainMemberStart(data, name)
	if !ok {
		return bytes.Equal(strictMember(data, name), value)
	}
	if p == nil || !bytes.HasPrefix(p.b[p.i:], value) {
		return false
	}
	// A JSON value ends where its bytes do, unless it is a number that
	// data goes on.
	p.i += len(value)
	return p.i == len(p.b) || p.is(',') || p.is('}')
}

// strictMember is Member read by the strict tokenizer.
func strictMember(data []byte, name string) []byte {
	dec := jsontext.NewDecoder(bytes.NewBuffer(data)) // parsed in place, not copied
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil
	}
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil
		}
		n := tok.String() // a token is only valid until the next read
		start := dec.InputOffset()
		if _, err := dec.ReadValue(); err != nil {
			return nil
		}
		if n == name {
			return bytes.TrimLeft(data[start:dec.InputOffset()], " \t\r\n:")
		}
	}
	return nil
}

// plainMember is Member for data as the ledger writes it; false when it
// is not.
func plainMember(data []byte, name string) ([]byte, bool) {
	p, ok := plainMemberStart(data, name)
	if !ok || p == nil {
		return nil, ok
	}
	start := p.i
	if !p.skip(1) {
		return nil, false
	}
	return data[start:p.i:p.i], true
}

// plainMemberStart reads data as the ledger writes it up to the value of
// its first member named name, and returns the reader at that value; nil
// when data has none. False when data is not as the ledger writes it up to
// there.
func plainMemberStart(data []byte, name string) (*plain, bool) {
	p := &plain{b: data}
	if !p.is('{') {
		return nil, false
	}
	if p.is('}') {
		return nil, true
	}
	for {
		n, ok := p.name()
		if !ok || len(p.names) == maxNames {
			return nil, false
		}
		for _, m := range p.names {
			if string(m) == string(n) {
				return nil, false
			}
		}
		if string(n) == name {
			return p, true
		}
		p.names = append(p.names, n)
		if !p.skip(1) {
			return nil, false
		}
		if p.is('}') {
			return nil, true
		}
		if !p.is(',') {
			return nil, false
		}
	}
}
