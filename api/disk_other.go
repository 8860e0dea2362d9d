//go:build !unix

package api

import "errors"

// StatDisk is not implemented off Unix: the disk guard stays off there.
func StatDisk(string) (DiskState, error) { return DiskState{}, errors.ErrUnsupported }
