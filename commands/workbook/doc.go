// Package workbook reads, checks and writes the club tournament workbook
// (.xlsx) that GestioneTorneo keeps and the national ranking tool publishes
// from (docs/workbook.md): the national tool's validation, every problem at
// once in Italian and English with its sheet and cell; a tournament's state
// written as a workbook the national tool accepts; and a workbook turned
// into the ordinary commands that record it in the ledger, rehearsed on a
// state of its own before any is submitted. The file format itself is
// github.com/xuri/excelize/v2's.
//
// It sits under commands, beside the ledger, because what it makes of a
// file is commands: it imports commands (and the events and projections
// they decide on, to rehearse an import and to write a state),
// projections/ranking and the ledger's Submission, and nothing that imports
// it (api, cmd) is below it, so no import runs back up the house. It
// submits nothing itself: the caller hands each command to ledger.Submit
// (or the HTTP API), so the log, the checkpoints and verify hold for an
// import as for any tournament.
package workbook
