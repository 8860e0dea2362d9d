//go:build !unix

package ledger

import "errors"

// StatDisk reports errors.ErrUnsupported off Unix: the disk guard stays off there.
func StatDisk(string) (DiskState, error) { return DiskState{}, errors.ErrUnsupported }
