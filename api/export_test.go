package api

import (
	"testing"
	"time"
)

// Within returns what ch gives, and fails t when it gives nothing within
// 10 s: the deadline of every wait for the server in this package's tests,
// far under go test's own, so that a wait that never ends fails with what
// it waited for.
func Within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
	}
	t.Fatalf("%s: nothing within 10 s", what)
	var none T
	return none
}
