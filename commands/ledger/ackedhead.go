package ledger

// AckedHead is what a venue answered 201 for, as far as one tournament
// goes: the log's first Size events, the commit holding the last of them
// at stream sequence StreamSeq, their Merkle root (what a checkpoint of
// that size signs) and the leaf hash of the last one (what the next event
// links to).
type AckedHead struct {
	Tournament string
	Size       uint64
	StreamSeq  uint64
	Root       []byte
	Last       []byte
}
