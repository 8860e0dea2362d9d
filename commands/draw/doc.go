// Package draw forms the tables of a round: random and constrained draws, seeded draws,
// knockout bands and the validation of hand-made tables. It is pure: a Request (entrants,
// earlier games, sizes, seed) always gives the same Result, so a draw recorded in the log can
// be re-run by an auditor years later with Replay and the recorded version.
//
// # Determinism
//
// Every algorithm first sorts the entrants by player id, so the order of Request.Entrants
// never matters; bands are likewise sorted by player id inside each band. Randomness comes
// from one generator per draw: PCG-DXSM (128-bit state, the generator math/rand/v2 calls PCG,
// written out here) whose state is the first 16 bytes, big-endian, of SHA-256(be64(len(seed))
// || seed || be64(len(algorithm)) || algorithm || be64(round)), with our own rejection-sampled
// bounded integers and Fisher–Yates shuffle: nothing depends on math/rand's algorithms, on map order or on the
// clock. Constraint avoidance is a local search with a budget counted in swap evaluations,
// not time. An algorithm whose output for the same Request changes gets a new version and the
// old version stays runnable; Version reports the current one.
//
// # Table sizes
//
// Plan splits n players into tables of the Request's sizes, in preference order, using a
// fallback size only as needed (docs/rules.md#8-table-formation). rur-2015 art. 1 allows only tables of 4 ("sarà
// quindi compito del Club Organizzatore predisporre un numero adeguato di riserve"), so a
// count that is not a multiple of 4 is refused with the number of reserves to designate or
// players to withdraw. campionato-2003 §formazione tavoli prefers 4 to 5 and allows tables of
// 3 only below 11 players: Sizes [4,5] with SmallTableMax 11. Tables of 3 are then the last
// fallback (10 players sit 5+5; 6 sit 3+3; 7 sit 4+3), and 11 players cannot be seated at all
// under that text (4+4+3 is the only split): the error asks for 1 reserve or 1 withdrawal.
//
// # Algorithms
//
//   - AlgRandom, AlgRURGame1 (rur-2015 art. 8, game 1): shuffled and dealt, then swaps avoid
//     two players of one club at a table and, with lower priority, two of one region, and,
//     lowest, players who already sat together in an earlier round (Past: same Round and
//     Table). The last is our addition: no rulebook asks for it, arbiters do it.
//   - AlgRURGame2 (rur-2015 art. 8, game 2): each table one 1st, 2nd, 3rd and 4th of the
//     previous round as far as the counts allow, a missing 1st weighing most; then the club,
//     region and rematch avoidance of game 1 within that mix.
//   - AlgSeeded2003 (campionato-2003 §formazione tavoli): round 1 by national historical rank
//     (unranked last), the teste di serie one per table and the rest in serpentine order: with
//     3 tables, table 1 = seeds 1, 6, 7, 12; table 2 = 2, 5, 8, 11; table 3 = 3, 4, 9, 10.
//     Later rounds in consecutive slices (table 1 = the best 4, …) by the score of each
//     player's last game, ties by the game before it, then drawn; no games = last. Only
//     ties are drawn, and the rulebook asks for no club avoidance, so nothing is Unmet.
//   - AlgBands (rur-2015 art. 8, quarterfinals and semifinals): one player of each band per
//     table, each band drawn at random, swaps inside a band avoiding same-club tables.
//     Version 2 cites the tournament's own article (Request.Rule) where version 1 cites
//     rur-2015 art. 8: the same band draw is master's and rtu's semifinals.
//   - AlgManual: the arbiter's tables (Request.Tables), validated by CheckManual against the
//     soft constraints of Request.ManualAs.
//
// Constraints the draw could not meet are returned as Unmet (same_club, same_region,
// place_mix, rematch, band_club, band_mix), one per table and group of players, citing the
// article (the request's Rule, where the version cites it); the caller records them in the
// TablesDrawn event. Club and region names are
// compared exactly; an empty one matches nobody.
package draw
