package scoring

import (
	"fmt"
	"strings"
	"testing"

	"github.com/referto/referto/events"
)

// fin, wd, dq and elim build seats tersely: name, turn, table points (elimination order
// for elim).
func fin(name string, turn, tp int) Seat {
	return Seat{Player: name, Turn: turn, TablePoints: tp, Status: events.SeatFinished}
}
func wd(name string, turn, tp int) Seat {
	return Seat{Player: name, Turn: turn, TablePoints: tp, Status: events.SeatWithdrawn}
}
func dq(name string, turn, tp int) Seat {
	return Seat{Player: name, Turn: turn, TablePoints: tp, Status: events.SeatDisqualified}
}
func elim(name string, turn, order int) Seat {
	return Seat{Player: name, Turn: turn, Status: events.SeatEliminated, EliminatedOrder: order}
}

// off sets the off-objective points of a seat.
func off(s Seat, points int) Seat { s.OffObjectivePoints = points; return s }

// placing renders results as "A:1:11200 B:2:5500 …" (player:place:score), the
// placement order, with a trailing "?" on unresolved players.
func placing(rs []Result) string {
	var b strings.Builder
	for i, r := range rs {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s:%d:%d", r.Player, r.Place, r.Score)
		if r.Unresolved {
			b.WriteByte('?')
		}
	}
	return b.String()
}

// mustScore scores or fails the test.
func mustScore(t *testing.T, r Rules, tab Table) []Result {
	t.Helper()
	rs, err := Score(r, tab)
	if err != nil {
		t.Fatalf("Score(%+v): %v", r, err)
	}
	return rs
}
