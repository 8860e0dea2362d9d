//go:build !unix

package node

import (
	"errors"

	"github.com/referto/referto/commands/ledger"
)

// StatDisk reports errors.ErrUnsupported off Unix: the disk guard stays off there.
func StatDisk(string) (ledger.DiskState, error) { return ledger.DiskState{}, errors.ErrUnsupported }
