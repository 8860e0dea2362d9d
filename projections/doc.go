// Package projections holds the pure folds of the referto ledger: the state
// of a tournament rebuilt event by event (Tournament.Apply), and the public
// views derived from it (summary, entry list, tables, standings). The
// command side decides against the same fold that feeds the Pebble store
// (projections/store) and that replay runs, so the three never disagree.
package projections
