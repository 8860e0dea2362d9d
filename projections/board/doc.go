// Package board holds the RisiKo! board and the tournament objectives, and computes
// what a player's end-of-game holdings are worth in table points (docs/rules.md#3-table-report-referto).
//
// A territory is worth its neighbour count. A player's table points are the sum over
// the territories they hold that are in their secret objective; their off-objective
// points are the same sum over the territories they hold outside it. [ObjectiveSet.Compute]
// evaluates one player's [Holding]; [ObjectiveSet.CheckTable] evaluates a whole table and
// refuses a territory claimed by two players; [Computed.Check] compares the numbers a
// report states with the computed ones and names the territory sums when they disagree.
//
// # Reference data
//
// The board and the objective lists are embedded from data/map.json and
// data/objectives.json, byte-for-byte copies of the team's reference data; where every
// fact comes from, and how confident it is, is restated in docs/rules.md#reference-data.
// The ledger works only from these copies: the reference may change, and replay must
// not. Their SHA-256 digests are
//
//	map.json         cd22cba8b55cf371cb036495d4039e1cd3375fe61b91e285d6b8d1f1123c2d8c
//	objectives.json  0b70000c9c0a38100a55998e823a82ddab05b27e3bf0dfb17a351e172f06dd8a
//
// and the tests fail if either copy is edited. To take a newer version, copy the files
// again, update the digests here and in the tests, and re-run the tests.
//
// In summary (details in docs/rules.md#reference-data):
//
//   - map.json, confidence high: 42 territories, 82 undirected links (sea links
//     included), neighbour counts totalling 164. It is the RisiKo! (Editrice Giochi) map,
//     which differs from Hasbro's Risk: Cina–Medio Oriente is a link; Afghanistan–India
//     and Africa Orientale–Medio Oriente are not. [Map.Validate] checks the count, the
//     symmetry and the 164 total.
//   - objectives.json, confidence medium-low: the 16 tournament objectives of the
//     Challenge / Time Attack boxes, from a single author. Each should be worth 86; 15 are.
//     Objective 12 ("Tappeto") is worth 89 as listed, and the file carries a
//     candidate_correction (the same list without Indonesia, 86 points).
//
// # Objective sets
//
// A tournament plays with a named [ObjectiveSet]. The default set, [DefaultObjectiveSetID]
// ("rtu-16"), is the 16 objectives of the file with objective 12's candidate correction
// applied when the set is loaded ([DefaultObjectives]), so that every objective is worth
// 86, as the published invariant says every tournament objective is (metarisiko: "hanno
// tutti lo stesso valore pari a 86 punti"): the list as given breaks that invariant, and
// the correction is the only single removal that restores it and keeps the objective's
// two whole continents. The data file itself is never edited (its digest is checked
// above); objective 12 carries a [Objective.Note] saying it was corrected, and
// [CandidateCorrections] lists what was applied. A tournament that plays another list
// supplies it inline ([ParseObjectiveSet]), and whatever records a score records the
// set's ID with it.
package board
