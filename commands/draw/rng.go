package draw

import (
	"crypto/sha256"
	"encoding/binary"
	"math/bits"
)

// rng is PCG-DXSM with a 128-bit LCG state, the generator math/rand/v2 calls PCG, written out
// here so that no change to the standard library can ever change a recorded draw. An auditor
// can reimplement it from this file alone.
type rng struct {
	hi, lo uint64
}

// newRNG derives the generator of one draw. The state is the first 16 bytes of
//
//	SHA-256( be64(len(seed)) || seed || be64(len(alg)) || alg || be64(round) )
//
// (be64 = 8-byte big-endian unsigned), hi from bytes 0–7 and lo from bytes 8–15, both
// big-endian. The lengths keep ("ab","c") and ("a","bc") apart.
func newRNG(seed, alg string, round int) *rng {
	h := sha256.New()
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(seed)))
	h.Write(n[:])
	h.Write([]byte(seed))
	binary.BigEndian.PutUint64(n[:], uint64(len(alg)))
	h.Write(n[:])
	h.Write([]byte(alg))
	binary.BigEndian.PutUint64(n[:], uint64(round))
	h.Write(n[:])
	sum := h.Sum(nil)
	return &rng{hi: binary.BigEndian.Uint64(sum[0:8]), lo: binary.BigEndian.Uint64(sum[8:16])}
}

// uint64 advances the state (state = state × mul + inc, mod 2^128) and returns the DXSM
// output of the new state.
func (r *rng) uint64() uint64 {
	const (
		mulHi = 2549297995355413924
		mulLo = 4865540595714422341
		incHi = 6364136223846793005
		incLo = 1442695040888963407
	)
	hi, lo := bits.Mul64(r.lo, mulLo)
	hi += r.hi*mulLo + r.lo*mulHi
	lo, c := bits.Add64(lo, incLo, 0)
	hi, _ = bits.Add64(hi, incHi, c)
	r.lo, r.hi = lo, hi

	const cheapMul = 0xda942042e4dd58b5
	hi ^= hi >> 32
	hi *= cheapMul
	hi ^= hi >> 48
	hi *= lo | 1
	return hi
}

// intn returns a uniform integer in [0, n) by rejection: outputs below 2^64 mod n are drawn
// again, so that the accepted range is a whole multiple of n, then the result is x mod n.
func (r *rng) intn(n int) int {
	if n <= 0 {
		panic("draw: intn of a non-positive bound")
	}
	bound := uint64(n)
	threshold := -bound % bound // 2^64 mod n
	for {
		if x := r.uint64(); x >= threshold {
			return int(x % bound)
		}
	}
}

// shuffle is Fisher–Yates: for i from the last index down to 1, swap element i with a uniform
// element of [0, i].
func shuffle[T any](r *rng, s []T) {
	for i := len(s) - 1; i > 0; i-- {
		j := r.intn(i + 1)
		s[i], s[j] = s[j], s[i]
	}
}
