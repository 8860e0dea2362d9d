package fault_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/referto/referto/events/fault"
)

type fieldError struct{ field string }

func (e *fieldError) Error() string    { return "field " + e.field }
func (e *fieldError) Code() fault.Code { return fault.Invalid }

func TestCodeOf(t *testing.T) {
	errConflict := fault.New(fault.Conflict, "pkg: conflict")
	plain := errors.New("pkg: held")
	held := fault.Mark(plain, fault.Forbidden)
	for _, c := range []struct {
		name string
		err  error
		want fault.Code
	}{
		{"nil", nil, ""},
		{"unmarked", errors.New("boom"), fault.Internal},
		{"sentinel", errConflict, fault.Conflict},
		{"wrapped sentinel", fmt.Errorf("%w: tournament t1", errConflict), fault.Conflict},
		{"marked", fmt.Errorf("%w: venue v", held), fault.Forbidden},
		{"error type", fmt.Errorf("decide: %w", &fieldError{"name"}), fault.Invalid},
		{"joined: the first", errors.Join(&fieldError{"a"}, errConflict), fault.Invalid},
		{"deadline", fmt.Errorf("wait: %w", context.DeadlineExceeded), fault.Unavailable},
		{"marked deadline", fault.Mark(context.DeadlineExceeded, fault.Conflict), fault.Conflict},
	} {
		if got := fault.CodeOf(c.err); got != c.want {
			t.Errorf("%s: CodeOf(%v) = %q, want %q", c.name, c.err, got, c.want)
		}
	}
}

func TestMarkKeepsTheError(t *testing.T) {
	plain := errors.New("pkg: held")
	held := fault.Mark(plain, fault.Forbidden)
	err := fmt.Errorf("%w: tournament t1", held)
	if got, want := err.Error(), "pkg: held: tournament t1"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	if !errors.Is(err, held) || !errors.Is(err, plain) {
		t.Errorf("errors.Is lost the marked error or what it marks")
	}
	fe := &fieldError{"name"}
	var got *fieldError
	if !errors.As(fault.Mark(fe, fault.Conflict), &got) || got != fe {
		t.Errorf("errors.As lost the marked error's type")
	}
	if fault.Mark(nil, fault.Conflict) != nil {
		t.Errorf("Mark(nil) is not nil")
	}
}

func TestSentinelsAreDistinct(t *testing.T) {
	a, b := fault.New(fault.Conflict, "a: conflict"), fault.New(fault.Conflict, "a: conflict")
	if errors.Is(a, b) {
		t.Errorf("two sentinels of the same text are the same error")
	}
	if s, ok := errors.AsType[*fault.Sentinel](fmt.Errorf("%w: x", a)); !ok || s.Error() != "a: conflict" {
		t.Errorf("the sentinel is not found in its wrapping: %v %v", s, ok)
	}
}

func TestCodesAreTheVocabulary(t *testing.T) {
	seen := map[fault.Code]bool{}
	for _, c := range fault.Codes() {
		if seen[c] || c == "" {
			t.Errorf("code %q listed twice or empty", c)
		}
		seen[c] = true
	}
	if got, want := len(seen), 9; got != want {
		t.Errorf("%d codes, want %d", got, want)
	}
}
