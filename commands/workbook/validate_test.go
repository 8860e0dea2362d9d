package workbook_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/referto/referto/commands/workbook"
	"github.com/referto/referto/commands/workbook/workbooktest"
)

// Every rule of the national tool's check, each with a workbook broken for
// it: the problem is reported with its severity, sheet and cell, and its
// Italian and English text (docs/workbook.md#validation). Every problem
// of a workbook comes at once: the cases that break two rules find both.
func TestEveryValidationRuleHasItsBrokenWorkbook(t *testing.T) {
	type want struct {
		code, where string
		sev         workbook.Severity
		it          string
	}
	base := workbooktest.Primavera
	cases := []struct {
		name  string
		file  string
		build func(t testing.TB) *workbooktest.Book
		want  []want
	}{
		{"apostrophe in the file name", "Torneo dell'Aquila.xlsx", base,
			[]want{{"file_name", "", workbook.Error, "apostrofo"}}},
		{"no TORNEO", "", func(t testing.TB) *workbooktest.Book { return base(t).Delete("TORNEO") },
			[]want{{"card_missing", "TORNEO", workbook.Error, "Sheet TORNEO assente"}}},
		{"no organizer", "", func(t testing.TB) *workbooktest.Book { return base(t).Set("TORNEO", "D3", nil) },
			[]want{{"organizer_missing", "TORNEO!D3", workbook.Error, "Organizzatore"}}},
		{"no name", "", func(t testing.TB) *workbooktest.Book { return base(t).Set("TORNEO", "D4", nil) },
			[]want{{"name_missing", "TORNEO!D4", workbook.Error, "Nome del torneo"}}},
		{"unknown type", "", func(t testing.TB) *workbooktest.Book { return base(t).Set("TORNEO", "D5", "Torneo Fantasia") },
			[]want{{"type_invalid", "TORNEO!D5", workbook.Error, "corretta tipologia di Torneo"}}},
		{"rounds not a number", "", func(t testing.TB) *workbooktest.Book { return base(t).Set("TORNEO", "D6", "due") },
			[]want{{"rounds_invalid", "TORNEO!D6", workbook.Error, "Numero Turni Previsti"}}},
		{"dates out of order", "", func(t testing.TB) *workbooktest.Book {
			return base(t).Set("TORNEO", "D8", workbooktest.Day(2025, 3, 17))
		}, []want{{"dates_order", "TORNEO!D9", workbook.Error, "precede"}}},
		{"a round's date typed as text", "", func(t testing.TB) *workbooktest.Book { return base(t).Set("TORNEO", "D9", "16/03/2025") },
			[]want{{"date_text", "TORNEO!D9", workbook.Warning, "come testo"}, {"round_date", "TORNEO!D9", workbook.Error, "Data del turno 2 mancante"}}},
		{"no Iscritti", "", func(t testing.TB) *workbooktest.Book { return base(t).Delete("Iscritti") },
			[]want{{"entries_missing", "Iscritti", workbook.Error, "Sheet Iscritti assente"}}},
		{"empty Iscritti", "", func(t testing.TB) *workbooktest.Book {
			return base(t).Delete("Iscritti").Set("Iscritti", "A1", "Elenco Partecipanti")
		}, []want{{"entries_empty", "Iscritti", workbook.Error, "Lista Iscritti vuota"}}},
		{"a player without an ID", "", func(t testing.TB) *workbooktest.Book { return base(t).Set("Iscritti", "B12", "Luigi") },
			[]want{{"entry_no_id", "Iscritti!A12", workbook.Warning, "senza ID"}}},
		{"an ID not a number", "", func(t testing.TB) *workbooktest.Book { return base(t).Set("Iscritti", "A6", "tre") },
			[]want{{"id_not_numeric", "Iscritti!A6", workbook.Error, "Colonna ID con valore non numerico"}}},
		{"an ID twice", "", func(t testing.TB) *workbooktest.Book { return base(t).Set("Iscritti", "A5", 1) },
			[]want{{"id_duplicate", "Iscritti!A5", workbook.Error, "È presente l'ID 1 duplicato"}}},
		{"a date of birth typed as text", "", func(t testing.TB) *workbooktest.Book { return base(t).Set("Iscritti", "H4", "10/01/1980") },
			[]want{{"birth_text", "Iscritti!H4", workbook.Error, "Errore di formato della data di nascita a riga 4"}}},
		{"no last name", "", func(t testing.TB) *workbooktest.Book { return base(t).Set("Iscritti", "C4", nil) },
			[]want{{"name_incomplete", "Iscritti!B4", workbook.Error, "non ha Nome e Cognome"}}},
		{"neither a date of birth nor a national id", "", func(t testing.TB) *workbooktest.Book {
			return base(t).Set("Iscritti", "H4", nil).Set("Iscritti", "I4", nil)
		}, []want{{"anonymous", "Iscritti!H4", workbook.Warning, "trattato come anonimo"}}},
		{"one person twice", "", func(t testing.TB) *workbooktest.Book {
			return base(t).Set("Iscritti", "B5", "mario").Set("Iscritti", "C5", "ROSSI").Set("Iscritti", "H5", workbooktest.Day(1980, 1, 10))
		}, []want{{"same_person", "Iscritti!A5", workbook.Error, "stessi dati anagrafici"}}},
		{"no round sheet", "", func(t testing.TB) *workbooktest.Book {
			return base(t).Delete("1\u00b0 Turno").Delete("2\u00b0 Turno").Delete("Classifica Ridotta")
		}, []want{{"rounds_missing", "", workbook.Error, "'N° Turno'"}}},
		{"a round sheet not numbered", "", func(t testing.TB) *workbooktest.Book {
			return base(t).Set("Stampa 1\u00b0 Turno", "A1", "Tavolo N°1")
		}, []want{{"round_name", "Stampa 1° Turno", workbook.Error, "Inizio dello sheet \"Stampa 1° Turno\" non numerico"}}},
		{"a round sheet without tables", "", func(t testing.TB) *workbooktest.Book {
			return base(t).Set("TORNEO", "D6", 3).Set("TORNEO", "D10", workbooktest.Day(2025, 3, 17)).Set("3\u00b0 Turno", "A1", "Tavolo N°1")
		}, []want{{"round_empty", "3° Turno", workbook.Error, "non contiene alcun tavolo"}}},
		{"a seat's ID not a number", "", func(t testing.TB) *workbooktest.Book { return base(t).Set("1\u00b0 Turno", "D2", "due") },
			[]want{{"seat_id_not_numeric", "1° Turno!D2", workbook.Error, "Colonna ID con valore non numerico"}}},
		{"a score not a number", "", func(t testing.TB) *workbooktest.Book { return base(t).Set("1\u00b0 Turno", "C2", "sessanta") },
			[]want{{"score_not_numeric", "1° Turno!C2", workbook.Error, "Colonna Punteggio con valore non numerico"}}},
		{"an unknown player at a table", "", func(t testing.TB) *workbooktest.Book { return base(t).Set("2\u00b0 Turno", "A2", 99) },
			[]want{{"unknown_player", "2° Turno!A2", workbook.Error, "non è presente quello con indice 99"}}},
		{"a round beyond the declared number", "", func(t testing.TB) *workbooktest.Book { return base(t).Set("TORNEO", "D6", 1) },
			[]want{{"round_beyond", "2° Turno", workbook.Error, "supera il Numero Turni Previsti (1)"},
				{"rounds_too_many", "TORNEO!D6", workbook.Error, "Sono presenti 2 schede turno"}}},
		{"a round without its date", "", func(t testing.TB) *workbooktest.Book { return base(t).Set("TORNEO", "D9", nil) },
			[]want{{"round_date", "TORNEO!D9", workbook.Error, "Data del turno 2 mancante"}}},
		{"the last round played and no standings", "", func(t testing.TB) *workbooktest.Book { return base(t).Delete("Classifica Ridotta") },
			[]want{{"standings_missing", "Classifica Ridotta", workbook.Error, "Classifica Ridotta è assente"}}},
		{"empty standings", "", func(t testing.TB) *workbooktest.Book {
			return base(t).Delete("Classifica Ridotta").Set("Classifica Ridotta", "A1", "Pos.")
		}, []want{{"standings_empty", "Classifica Ridotta", workbook.Error, "è vuota"}}},
		{"a standings row without its id", "", func(t testing.TB) *workbooktest.Book { return base(t).Set("Classifica Ridotta", "E2", nil) },
			[]want{{"standing_id", "Classifica Ridotta!E2", workbook.Error, "ID mancante"}}},
		{"a standings row without its position", "", func(t testing.TB) *workbooktest.Book { return base(t).Set("Classifica Ridotta", "A2", nil) },
			[]want{{"standing_pos", "Classifica Ridotta!A2", workbook.Error, "posizione mancante"}}},
		{"a position past the rows", "", func(t testing.TB) *workbooktest.Book { return base(t).Set("Classifica Ridotta", "A2", "9") },
			[]want{{"standing_pos_range", "Classifica Ridotta!A2", workbook.Error, "posizione 9 maggiore del numero di righe (8)"}}},
		{"points with a decimal comma", "", func(t testing.TB) *workbooktest.Book { return base(t).Set("Classifica Ridotta", "D2", "175,5") },
			[]want{{"standing_points", "Classifica Ridotta!D2", workbook.Error, "punti mancanti o non numerici"}}},
		{"points as a formula", "", func(t testing.TB) *workbooktest.Book {
			rows := workbooktest.PrimaveraStandings()
			rows[0].Formula = "120+55"
			return base(t).Delete("Classifica Ridotta").Standings(rows...)
		}, []want{{"standing_formula", "Classifica Ridotta!D2", workbook.Error, "formula numerica"}}},
		{"a standings id not in Iscritti", "", func(t testing.TB) *workbooktest.Book { return base(t).Set("Classifica Ridotta", "E9", "99") },
			[]want{{"standing_unknown", "Classifica Ridotta!E9", workbook.Error, "non è presente nella scheda Iscritti"},
				{"played_not_listed", "Classifica Ridotta", workbook.Warning, "ID 4 ha giocato"}}},
		{"a standings row for a player who never played", "", func(t testing.TB) *workbooktest.Book {
			return base(t).Set("Iscritti", "A12", 9).Set("Iscritti", "B12", "Luigi").Set("Iscritti", "C12", "Verdi").
				Set("Iscritti", "F12", "NO").Set("Iscritti", "I12", 2000).Set("Classifica Ridotta", "E9", "9")
		}, []want{{"standing_not_played", "Classifica Ridotta!E9", workbook.Error, "non risulta aver disputato alcuna partita"}}},
		{"a player who played missing from the standings", "", func(t testing.TB) *workbooktest.Book {
			b := base(t)
			for _, c := range []string{"A9", "B9", "C9", "D9", "E9"} {
				b.Set("Classifica Ridotta", c, nil)
			}
			return b
		}, []want{{"played_not_listed", "Classifica Ridotta", workbook.Warning, "ID 4 ha giocato ma non è in Classifica Ridotta"}}},
		{"a final's placing not the standings'", "", func(t testing.TB) *workbooktest.Book {
			return base(t).Set("TORNEO", "D6", 3).Set("TORNEO", "D10", workbooktest.Day(2025, 3, 17)).
				Round(3, []workbooktest.Seat{{ID: 2, Score: 30}, {ID: 5, Score: 60}, {ID: 1, Score: 20}, {ID: 3, Score: 10}})
		}, []want{{"final_rank", "3° Turno!A2", workbook.Warning, "è 2° al tavolo finale ma 1° in classifica"}}},
		{"a finalist missing from the standings", "", func(t testing.TB) *workbooktest.Book {
			return base(t).Set("TORNEO", "D6", 3).Set("TORNEO", "D10", workbooktest.Day(2025, 3, 17)).
				Round(3, []workbooktest.Seat{{ID: 2, Score: 60}, {ID: 5, Score: 40}, {ID: 1, Score: 20}, {ID: 3, Score: 10}}).
				Set("Classifica Ridotta", "E5", nil)
		}, []want{{"final_missing", "3° Turno!J2", workbook.Error, "del tavolo finale non è in Classifica Ridotta"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name := c.file
			if name == "" {
				name = "Torneo di Primavera.xlsx"
			}
			problems := workbook.Validate(read(t, name, c.build(t).Bytes()))
			for _, w := range c.want {
				found := false
				for _, p := range problems {
					if p.Code == w.code && p.Where() == w.where && p.Severity == w.sev && strings.Contains(p.It, w.it) && p.En != "" {
						found = true
					}
				}
				if !found {
					t.Errorf("want %s %s at %q saying %q; got:\n%s", w.sev, w.code, w.where, w.it, list(problems))
				}
			}
		})
	}
}

func list(ps []workbook.Problem) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "\t%s %s\n", p.Code, p)
	}
	return b.String()
}

// The untouched hand-made workbook is valid: no error, no warning.
func TestHandMadeWorkbookIsValid(t *testing.T) {
	if ps := workbook.Validate(read(t, "Torneo di Primavera.xlsx", workbooktest.Primavera(t).Bytes())); len(ps) > 0 {
		t.Fatalf("problems:\n%s", list(ps))
	}
}

// A legacy .xls is named as one, with what to do about it.
func TestLegacyXLSIsToBeSavedAsXLSX(t *testing.T) {
	ole := append([]byte{0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1}, make([]byte, 504)...)
	_, err := workbook.Read("torneo.xls", ole)
	var fe *workbook.FileError
	if !errors.As(err, &fe) || !errors.Is(err, workbook.ErrNotXLSX) || !strings.Contains(fe.En, "save it as .xlsx") || !strings.Contains(fe.It, "salvarlo come .xlsx") {
		t.Fatalf("a legacy .xls: %v", err)
	}
	if _, err := workbook.Read("torneo.xlsx", []byte("PK\x03\x04 not really")); err == nil {
		t.Fatal("a broken file was read")
	}
}
