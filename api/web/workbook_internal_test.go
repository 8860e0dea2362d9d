package web

import (
	"fmt"
	"strings"
	"testing"

	"github.com/referto/referto/commands/workbook"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
)

// TestTheUploadsWarningsFitTheRedirect: the redirect after an accepted
// upload carries the national tool's warnings to the entry list, as many
// as fit a request the server takes (api.MaxHeaderBytes, 64 KiB, which
// this package cannot import: api imports it); the entry list
// shows each where it is, and counts the rest rather than leaving them out
// unsaid.
func TestTheUploadsWarningsFitTheRedirect(t *testing.T) {
	const requestLimit = 64 << 10
	for _, n := range []int{1, 20, 2000} {
		o := workbook.Imported{FileName: "iscritti.xlsx", Scope: events.WorkbookEntryList, Seq: 11, Players: n}
		for i := range n {
			o.Warnings = append(o.Warnings, workbook.Problem{Severity: workbook.Warning, Sheet: "Iscritti", Cell: fmt.Sprintf("H%d", i+4),
				It: fmt.Sprintf("Il giocatore \"Giocatore %d\" (ID %d) non ha né data di nascita né ID nazionale", i+1, i+1), En: "no birth date"})
		}
		target := "/ui/t/mattina/players?" + importQuery(o, "it").Encode()
		if len(target) > requestLimit/2 {
			t.Errorf("%d warnings: the redirect's address is %d bytes, past half the %d a request may take", n, len(target), requestLimit)
		}
		q := importQuery(o, "it")
		banner, notes := workbookBanner("it", q, &projections.TournamentView{}, nil)
		if want := "Lista iscritti importata dal file «iscritti.xlsx»: " + fmt.Sprint(n) + " giocatori iscritti (evento 11)."; banner != want {
			t.Errorf("%d warnings: the banner says %q, want %q", n, banner, want)
		}
		if notes == nil {
			t.Fatalf("%d warnings: no notes", n)
		}
		shown, more := 0, ""
		for _, w := range notes.Warnings {
			if w.Field == "" {
				more = w.Text
				continue
			}
			shown++
			if !strings.HasPrefix(w.Field, "foglio Iscritti, cella H") || !strings.Contains(w.Text, "non ha né data di nascita") {
				t.Errorf("%d warnings: a warning reads %q: %q", n, w.Field, w.Text)
			}
		}
		switch {
		case shown == n && more != "":
			t.Errorf("%d warnings: all shown, and yet %q", n, more)
		case shown < n && !strings.Contains(more, integer("it", n-shown)+" avvisi"):
			t.Errorf("%d warnings: %d shown, and the rest said as %q", n, shown, more)
		case n <= 20 && shown != n:
			t.Errorf("%d warnings: only %d shown", n, shown)
		}
	}
}
