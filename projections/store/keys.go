package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
)

// Key layout. Every key is ASCII so that a dump reads like a table.
//
//	sys/applied                     last applied stream sequence (8 bytes, big endian)
//	sys/snapshot                    stream sequence a restart resumes after (every commit up to it is in snap/)
//	sys/format                      the Format of the code that wrote the store (8 bytes); absent: format 1
//	snapcur/<T>                     generation of the tournament's snapshot (8 bytes): the stream sequence it was taken at
//	snap/<T>/g<gen:020>/<chunk:06>  tournament state JSON as of its last_stream_seq, in 1 MiB pieces, of that generation;
//	                                pieces of other generations (an attempt cut short) are ignored and deleted
//	snap/<T>/<chunk:06>, snap/<T>   the state as older stores wrote it, in pieces or in one, without snapcur/<T>
//	idx/t/<T>                       tournament list (value: name)
//	idx/cmd/<T>/<idempotency key>   {"stream_seq":N}: the commit of that command (older stores: the whole CommitRef JSON)
//	idx/create/<idempotency key>    {"stream_seq":N}: the commit that created a tournament under that key, whichever tournament
//	idx/commit/<T>/<first seq:020>  CommitRef JSON, one per commit, for seq → stream lookups
//	idx/tok/<sha256 hex>            Principal JSON of an appointed official
//	mt/<T>/<level:02>/<index:016x>  Merkle tree node hash (32 bytes), every node of every leaf
//	v/<T>/summary                   public summary JSON
//	v/<T>/player/<P>                public entry-list row JSON
//	v/<T>/round/<r:04>              public round header JSON
//	v/<T>/round/<r:04>/table/<n:04> public table JSON (seats, result, placement)
//	v/<T>/standings                 public standings JSON
//	v/<T>/classification            public classification JSON
var (
	keyApplied  = []byte("sys/applied")
	keySnapshot = []byte("sys/snapshot")
	keyFormat   = []byte("sys/format")
)

func keySnap(t string) []byte    { return []byte("snap/" + t) }
func prefixSnap(t string) []byte { return []byte("snap/" + t + "/") }
func prefixSnapGen(t string, gen uint64) []byte {
	return append(padded([]byte("snap/"+t+"/g"), gen, 20, 10), '/')
}
func keySnapChunk(prefix []byte, i int) []byte {
	return paddedInt(bytes.Clone(prefix), i, 6)
}
func keySnapCur(t string) []byte      { return []byte("snapcur/" + t) }
func prefixSnapCur() []byte           { return []byte("snapcur/") }
func keyTournament(t string) []byte   { return []byte("idx/t/" + t) }
func keyCommand(t, key string) []byte { return []byte("idx/cmd/" + t + "/" + key) }
func keyCreation(key string) []byte   { return []byte("idx/create/" + key) }
func keyCommit(t string, first uint64) []byte {
	return padded([]byte("idx/commit/"+t+"/"), first, 20, 10)
}
func prefixCommit(t string) []byte  { return []byte("idx/commit/" + t + "/") }
func keyToken(hash string) []byte   { return []byte("idx/tok/" + hash) }
func keySummary(t string) []byte    { return []byte("v/" + t + "/summary") }
func keyPlayer(t, p string) []byte  { return []byte("v/" + t + "/player/" + p) }
func prefixPlayers(t string) []byte { return []byte("v/" + t + "/player/") }
func prefixTournaments() []byte     { return []byte("idx/t/") }
func prefixSnaps() []byte           { return []byte("snap/") }

func u64(v uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], v)
	return b[:]
}

// upperBound returns the smallest key greater than every key with prefix p.
func upperBound(p []byte) []byte {
	out := append([]byte(nil), p...)
	for i := len(out) - 1; i >= 0; i-- {
		if out[i] < 0xff {
			out[i]++
			return out[:i+1]
		}
	}
	return nil
}

func keyRound(t string, r int) []byte { return paddedInt([]byte("v/"+t+"/round/"), r, 4) }
func keyTable(t string, r, n int) []byte {
	return paddedInt(append(keyRound(t, r), "/table/"...), n, 4)
}
func prefixTables(t string, r int) []byte { return append(keyRound(t, r), "/table/"...) }
func keyStandings(t string) []byte        { return []byte("v/" + t + "/standings") }
func keyClassification(t string) []byte   { return []byte("v/" + t + "/classification") }

func keyNode(t string, level uint, index uint64) []byte {
	k := make([]byte, 0, len("mt/")+len(t)+len("/00/")+16)
	k = padded(append(append(append(k, "mt/"...), t...), '/'), uint64(level), 2, 10)
	return padded(append(k, '/'), index, 16, 16)
}

// padded appends v in base 10 or 16 (lower case), padded with zeros to
// width digits: what fmt's %0<width>d and %0<width>x write for v, without
// fmt (keys are built for every event a rebuild folds).
func padded(dst []byte, v uint64, width, base int) []byte {
	var digits [20]byte
	d := strconv.AppendUint(digits[:0], v, base)
	for range width - len(d) {
		dst = append(dst, '0')
	}
	return append(dst, d...)
}

// paddedInt is padded in base 10 for an int, negative ones as fmt's %0<width>d
// writes them (only a forged log could number a round or a table so).
func paddedInt(dst []byte, v, width int) []byte {
	if v < 0 {
		return fmt.Appendf(dst, "%0*d", width, v)
	}
	return padded(dst, uint64(v), width, 10)
}
