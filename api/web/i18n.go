package web

import (
	"net/http"

	"github.com/referto/referto/events"
)

// labels are the UI's words: Italian first (the venue's language), English
// available. The words of the ledger's vocabularies (phases, statuses, the
// ways a game ends) are keyed by their constants, never spelled again here. A key missing in a language falls back to Italian, then to the
// key itself, so a new label never breaks a page.
var labels = map[string]map[string]string{
	"it": {
		"season": "Stagione", "national_id": "Tessera", "score": "Punteggio ranking", "counts": "conta",
		"not_counted": "non conta", "proof": "Prova", "proof_file": "file di prova", "place": "Posto",
		"tables": "Tavoli", "date": "Data", "season_disqualified": "squalificato nella stagione", "thresholds": "Soglie",
		"tournament_type": "Tipo",
		"app":             "referto", "tournaments": "Tornei", "login": "Accedi", "logout": "Esci", "token": "Token dell'ufficiale",
		"bad_token": "Token non riconosciuto.", "logged_as": "Ufficiale", "role": "ruolo",
		"create": "Crea torneo", "id": "Codice", "name": "Nome", "ruleset": "Regolamento", "params": "Parametri risolti",
		"overview": "Torneo", "players": "Iscritti", "rounds": "Turni", "round": "Turno", "standings": "Classifica",
		"sanctions": "Sanzioni", "contestations": "Contestazioni", "events": "Registro eventi",
		"phase": "Fase", "seq": "Evento", "registration_closed": "Iscrizioni chiuse", "registration_open": "Iscrizioni aperte",
		"register": "Iscrivi", "club": "Club", "region": "Regione", "rank": "Posizione", "status": "Stato",
		"import_csv": "Importa da CSV", "csv_help": "Una riga per giocatore: codice,nome,club,regione,posizione",
		"workbook_upload": "Importa il file Excel del torneo (.xlsx)", "workbook_help": "Il file del circolo (GestioneTorneo): un file .xls va prima salvato come .xlsx. Si controlla come fa il tool nazionale e, se c'è un problema, non si registra nulla.",
		"workbook_entry_list": "Solo la lista iscritti", "workbook_tournament": "Tutto il torneo (turni e classifica)", "workbook_file": "File",
		"workbook_missing": "Scegli il file .xlsx da importare.", "workbook_too_large": "Il file supera %d MB.",
		"workbook_entry_list_done": "Lista iscritti importata dal file «%s»: %d giocatori iscritti (evento %d).",
		"workbook_tournament_done": "Torneo importato dal file «%s»: %d giocatori, %d tavoli, %d turni; la classifica del file è pubblicata com'è, segnata come importata (evento %d).",
		"workbook_warnings":        "Avvisi del controllo del tool nazionale (da confermare)", "workbook_disagreements": "Righe della classifica del file diverse da quanto calcola il regolamento (vale la classifica del file)",
		"workbook_file_row": "nel file %d° con %s punti", "workbook_not_listed": "assente dalla classifica del file", "workbook_ruleset_row": "per il regolamento %d° con %s",
		"workbook_not_ranked": "il regolamento non lo classifica", "workbook_tie_unsolved": "(pari: servirebbe il tiro di dado)",
		"workbook_sheet_cell": "foglio %s, cella %s", "workbook_sheet": "foglio %s", "refused_workbook": "Il file non è stato importato, non è stato registrato nulla:",
		"organizer": "Organizzatore", "venue": "Sede", "from_workbook": "da un file di torneo (nessuna prova)",
		"import": "Importa", "close_registration": "Chiudi le iscrizioni", "checkin": "Appello", "present": "Presente",
		"absent": "Assente", "minutes_late": "Minuti di ritardo", "checked_in": "presente",
		"draw": "Sorteggia i tavoli", "seed": "Seme (facoltativo)", "not_drawn": "Il turno non è ancora stato sorteggiato.",
		"table": "Tavolo", "result": "Referto", "enter_result": "Inserisci referto", "recorded": "registrato",
		"screen": "Schermo di sala", "slips": "Foglietti dei tavoli", "print": "Stampa",
		"page": "Pagina", "previous_page": "Pagina precedente", "next_page": "Pagina successiva",
		"turn": "Ordine di gioco", "table_points": "Punti tavolo", "off_objective_points": "Punti fuori obiettivo",
		"objective_territories": "Territori obiettivo", "territories": "Territori", "armies": "Armate", "cards": "Carte",
		"eliminated_order": "Ordine di eliminazione", "closed_by": "Chiusura", "winner": "Vincitore", "risiko": "RisiKo!",
		string(events.SeatFinished): "in gioco a fine partita", string(events.StatusWithdrawn): "ritirato", string(events.SeatEliminated): "eliminato",
		string(events.SeatDisqualified): "squalificato", "withdrawal": "Ritiro per",
		events.WithdrawalForceMajeure: "forza maggiore", events.WithdrawalVoluntary: "senza motivo",
		events.WithdrawalRulingRefused:  "decisione rifiutata",
		string(events.ClosingObjective): "obiettivo", string(events.ClosingRoll): "tiro di chiusura", string(events.ClosingTime): "tempo",
		"save_result": "Registra il referto", "total": "Totale", "penalties": "Penalità", "games": "Partite",
		"cut": "Taglio", "qualifies": "qualificato", string(events.StatusExpelled): "Espulsi", "csv": "Esporta CSV",
		"tie_unresolved": "spareggio da tirare", "impose": "Infliggi sanzione", "kind": "Tipo", "amount": "Entità",
		"article": "Articolo", "reason": "Motivo", "revoke": "Revoca", "ruling": "Decisione", "revoked": "revocata",
		"automatic": "automatica", "ladder": "Scala disciplinare", "regime": "Regime", "offence": "Infrazione",
		"against": "Evento contestato", "claim": "Contestazione", "effect": "Effetto persistente", "by": "Presentata da",
		"file": "Presenta contestazione", "admissible": "ammissibile", "inadmissible": "inammissibile",
		"rule": "Decidi", "upheld": "accolta", "rejected": "respinta", "corrections": "Correzioni (JSON)",
		"state_here": "Il torneo a questo evento", "as_of": "Il torneo dopo l'evento", "older": "Precedenti", "newer": "Successivi",
		"type": "Tipo", "at": "Ora", "actor": "Autore", "data": "Dati", "none": "Nessuno",
		"appoint": "Nomina ufficiale", events.RoleArbiter: "arbitro", events.RoleAppeals: "commissione d'appello", events.RoleAuditor: "revisore",
		"token_once": "Token del nuovo ufficiale (mostrato una sola volta):", "publish": "Pubblica la classifica",
		"error": "Errore", "ok": "Fatto", "not_allowed": "Il tuo ruolo non può farlo.",
		"next_phase": "Qualificati alla fase successiva", "player": "Giocatore", "signature": "Firma",
		"back": "Indietro", "language": "Lingua", "create_admin_only": "Solo l'amministratore crea tornei.",
		string(events.PhaseQualifying): "qualificazione", string(events.PhaseSemifinal): "semifinale", string(events.PhaseFinal): "finale", string(events.PhaseQuarterfinal): "quarti di finale",
		string(events.PhaseRegistration): "iscrizioni", string(events.PhaseSecondChance): "seconda possibilità", string(events.PhaseFinalina): "finalina", "final_classification": "definitiva",
		string(events.StatusActive): "attivo", string(events.StatusReserve): "riserva", string(events.StatusRefused): "rifiutato",
		// Banners, by the type of the first event the ledger appended.
		"done_" + events.TypeTournamentCreated: "Torneo creato.", "done_" + events.TypeClassificationPublished: "Classifica pubblicata.",
		"done_" + events.TypePlayerRegistered: "Iscritto:", "done_imported": "Giocatori importati:", "done_" + events.TypeRegistrationClosed: "Iscrizioni chiuse.",
		"done_" + events.TypePlayerCheckedIn: "Appello registrato:", "done_" + events.TypeTablesDrawn: "Tavoli sorteggiati.",
		"done_" + events.TypeResultRecorded: "Referto registrato, tavolo", "done_" + events.TypeSanctionImposed: "Sanzione registrata.",
		"done_" + events.TypeSanctionRevoked: "Sanzione revocata.", "done_" + events.TypeContestationFiled: "Contestazione registrata.",
		"done_" + events.TypeContestationRuled: "Contestazione decisa.", "next_round": "Prossimo turno",
		"recorded_before": "già registrati", "done_again": "Già registrato da un invio precedente di questo modulo, nulla di nuovo:",
		"form_used": "Questo modulo era già stato inviato con altri valori (evento %d): non è stato registrato nulla. La pagina è stata ricaricata: invialo di nuovo.",
	},
	"en": {
		"season": "Season", "national_id": "National id", "score": "Ranking score", "counts": "counts",
		"not_counted": "does not count", "proof": "Proof", "proof_file": "proof file", "place": "Place",
		"tables": "Tables", "date": "Date", "season_disqualified": "disqualified in the season", "thresholds": "Thresholds",
		"tournament_type": "Type",
		"app":             "referto", "tournaments": "Tournaments", "login": "Log in", "logout": "Log out", "token": "Official's token",
		"bad_token": "Token not recognised.", "logged_as": "Official", "role": "role",
		"create": "Create tournament", "id": "Id", "name": "Name", "ruleset": "Ruleset", "params": "Resolved parameters",
		"overview": "Tournament", "players": "Entries", "rounds": "Rounds", "round": "Round", "standings": "Standings",
		"sanctions": "Sanctions", "contestations": "Contestations", "events": "Event log",
		"phase": "Phase", "seq": "Event", "registration_closed": "Registration closed", "registration_open": "Registration open",
		"register": "Register", "club": "Club", "region": "Region", "rank": "Rank", "status": "Status",
		"import_csv": "Import from CSV", "csv_help": "One line per player: id,name,club,region,rank",
		"workbook_upload": "Import the tournament's Excel file (.xlsx)", "workbook_help": "The club's file (GestioneTorneo): save an .xls as .xlsx first. It is checked as the national tool checks it and, if anything is wrong, nothing is recorded.",
		"workbook_entry_list": "The entry list only", "workbook_tournament": "The whole tournament (rounds and standings)", "workbook_file": "File",
		"workbook_missing": "Choose the .xlsx file to import.", "workbook_too_large": "The file is larger than %d MB.",
		"workbook_entry_list_done": "Entry list imported from the file “%s”: %d players registered (event %d).",
		"workbook_tournament_done": "Tournament imported from the file “%s”: %d players, %d tables, %d rounds; the file's standings are published as they are, marked as imported (event %d).",
		"workbook_warnings":        "Warnings of the national tool's check (to confirm)", "workbook_disagreements": "Rows of the file's standings that differ from what the ruleset computes (the file's standings stand)",
		"workbook_file_row": "in the file %d with %s points", "workbook_not_listed": "not in the file's standings", "workbook_ruleset_row": "by the ruleset %d with %s",
		"workbook_not_ranked": "the ruleset does not rank him", "workbook_tie_unsolved": "(level: a die roll would settle it)",
		"workbook_sheet_cell": "sheet %s, cell %s", "workbook_sheet": "sheet %s", "refused_workbook": "The file was not imported; nothing was recorded:",
		"organizer": "Organizer", "venue": "Venue", "from_workbook": "from a tournament file (no proof)",
		"import": "Import", "close_registration": "Close registration", "checkin": "Check-in", "present": "Present",
		"absent": "Absent", "minutes_late": "Minutes late", "checked_in": "present",
		"draw": "Draw the tables", "seed": "Seed (optional)", "not_drawn": "This round has not been drawn yet.",
		"table": "Table", "result": "Table report", "enter_result": "Enter report", "recorded": "recorded",
		"screen": "Venue screen", "slips": "Table slips", "print": "Print",
		"page": "Page", "previous_page": "Previous page", "next_page": "Next page",
		"turn": "Turn", "table_points": "Table points", "off_objective_points": "Off-objective points",
		"objective_territories": "Objective territories", "territories": "Territories", "armies": "Armies", "cards": "Cards",
		"eliminated_order": "Elimination order", "closed_by": "Closed by", "winner": "Winner", "risiko": "RisiKo!",
		string(events.SeatFinished): "finished", string(events.StatusWithdrawn): "withdrawn", string(events.SeatEliminated): "eliminated",
		string(events.SeatDisqualified): "disqualified", "withdrawal": "Withdrew for",
		events.WithdrawalForceMajeure: "force majeure", events.WithdrawalVoluntary: "without reason",
		events.WithdrawalRulingRefused:  "ruling refused",
		string(events.ClosingObjective): "objective", string(events.ClosingRoll): "closing roll", string(events.ClosingTime): "time",
		"save_result": "Record the report", "total": "Total", "penalties": "Penalties", "games": "Games",
		"cut": "Cut", "qualifies": "qualifies", string(events.StatusExpelled): "Expelled", "csv": "Export CSV",
		"tie_unresolved": "die roll owed", "impose": "Impose sanction", "kind": "Kind", "amount": "Amount",
		"article": "Article", "reason": "Reason", "revoke": "Revoke", "ruling": "Ruling", "revoked": "revoked",
		"automatic": "automatic", "ladder": "Sanction ladder", "regime": "Regime", "offence": "Offence",
		"against": "Contested event", "claim": "Claim", "effect": "Persisting effect", "by": "Raised by",
		"file": "File contestation", "admissible": "admissible", "inadmissible": "inadmissible",
		"rule": "Rule", "upheld": "upheld", "rejected": "rejected", "corrections": "Corrections (JSON)",
		"state_here": "The tournament at this event", "as_of": "The tournament after event", "older": "Earlier", "newer": "Later",
		"type": "Type", "at": "Time", "actor": "By", "data": "Data", "none": "None",
		"appoint": "Appoint official", events.RoleArbiter: "arbiter", events.RoleAppeals: "appeals committee", events.RoleAuditor: "auditor",
		"token_once": "The new official's token (shown once):", "publish": "Publish the classification",
		"error": "Error", "ok": "Done", "not_allowed": "Your role may not do this.",
		"next_phase": "Qualifiers for the next phase", "player": "Player", "signature": "Signature",
		"back": "Back", "language": "Language", "create_admin_only": "Only the administrator creates tournaments.",
		string(events.PhaseQualifying): "qualifying", string(events.PhaseSemifinal): "semifinal", string(events.PhaseFinal): "final", string(events.PhaseQuarterfinal): "quarterfinal",
		string(events.PhaseRegistration): "registration", string(events.PhaseSecondChance): "second chance", string(events.PhaseFinalina): "finalina", "final_classification": "final",
		string(events.StatusActive): "active", string(events.StatusReserve): "reserve", string(events.StatusRefused): "refused",
		"done_" + events.TypeTournamentCreated: "Tournament created.", "done_" + events.TypeClassificationPublished: "Classification published.",
		"done_" + events.TypePlayerRegistered: "Registered:", "done_imported": "Players imported:", "done_" + events.TypeRegistrationClosed: "Registration closed.",
		"done_" + events.TypePlayerCheckedIn: "Check-in recorded:", "done_" + events.TypeTablesDrawn: "Tables drawn.",
		"done_" + events.TypeResultRecorded: "Report recorded, table", "done_" + events.TypeSanctionImposed: "Sanction recorded.",
		"done_" + events.TypeSanctionRevoked: "Sanction revoked.", "done_" + events.TypeContestationFiled: "Contestation recorded.",
		"done_" + events.TypeContestationRuled: "Contestation ruled.", "next_round": "Next round",
		"recorded_before": "recorded before", "done_again": "Already recorded by an earlier sending of this form, nothing new:",
		"form_used": "This form had already been sent with other values (event %d): nothing was recorded. The page has been reloaded: send it again.",
	},
}

func tr(lang, key string) string {
	if s, ok := labels[lang][key]; ok {
		return s
	}
	if s, ok := labels["it"][key]; ok {
		return s
	}
	return key
}

// lang is the page language: ?lang=, then the cookie, then Accept-Language
// preferring English only when asked first; Italian otherwise.
func lang(r *http.Request) string {
	for _, l := range []string{r.URL.Query().Get("lang"), cookieValue(r, langCookie)} {
		if _, ok := labels[l]; ok {
			return l
		}
	}
	if al := r.Header.Get("Accept-Language"); len(al) >= 2 && al[:2] == "en" {
		return "en"
	}
	return "it"
}

func cookieValue(r *http.Request, name string) string {
	if c, err := r.Cookie(name); err == nil {
		return c.Value
	}
	return ""
}
