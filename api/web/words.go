package web

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/referto/referto/commands"
	"github.com/referto/referto/commands/draw"
	"github.com/referto/referto/events"
	"github.com/referto/referto/projections"
	"github.com/referto/referto/projections/ranking"
)

// more are the words of the pages issue 22 added: the players' own pages,
// the published classification, the venue screen, the ruleset's
// parameters and their values, the draw's warnings and the refusals.
// Keys that name a word of a vocabulary are built from its constant.
var more = map[string]map[string]string{
	"it": {
		"or": "o", "and": "e", "because": "", "not_recorded": "Non registrato:", "refused_invalid": "Non registrato, un valore non va:",
		"refused_rule_violation": "Non consentito dal regolamento:", "refused_conflict": "Non registrato:", "refused_forbidden": "Non consentito:",
		"refused_unauthorized": "Serve l'accesso:", "refused_not_found": "Non trovato:", "ledger_words": "Parole del registro (in inglese)",
		"closed": "Torneo chiuso", "closed_note": "Il torneo è chiuso: la classifica finale è pubblicata. Restano possibili solo le contestazioni e le loro decisioni.",
		"login_to_act":   "Accedi per registrare e modificare: senza accesso la pagina si può solo leggere.",
		"classification": "Classifica finale", "classification_provisional": "Classifica provvisoria", "provisional": "provvisoria", "published": "Pubblicata", "not_published": "Nessuna classifica è ancora stata pubblicata.",
		"settled_by": "Parità risolta", "group": "Gruppo", "verify": "Come verificarla", "proof": "Prova", "download_proof": "scarica la prova",
		"checkpoint": "Checkpoint firmato", "checkpoint_help": "Il registro da cui la classifica è stata calcolata, firmato dal server: origine, numero di eventi, radice Merkle, firma.",
		"cosigned": "Checkpoint controfirmato dall'hub", "cosigned_help": "L'ultimo checkpoint del registro che il testimone dell'hub nazionale ha controfirmato, dopo averlo confrontato con i precedenti: la firma del server e, sotto, quella del testimone.",
		"verify_row_help":     "Chiunque può verificare una riga senza fidarsi del server e senza accedere: scarica la chiave pubblica del server e la prova della riga (il suo link «scarica la prova»; qui quella della prima riga), poi verify la controlla offline.",
		"verify_witness_help": "Per controllare anche la controfirma del testimone: la chiave del testimone (GET /v1/keys dell'hub, «witness») e il file di prova del giocatore, che porta la controfirma.",
		"hub_help":            "HUB è l'indirizzo dell'hub nazionale che ha controfirmato il registro.",
		"verify_log_help":     "Ricalcolare tutto (ogni referto, ogni sorteggio e questa classifica) richiede l'esportazione dell'intero registro, che solo un ufficiale del torneo (arbitro, commissione d'appello, revisore) può scaricare, con il suo token:",
		"row_proof_help":      "Per ogni riga, la prova scaricabile contiene la riga di registro della pubblicazione, il suo percorso Merkle fino alla radice di un checkpoint firmato ora, e la prova di coerenza con il checkpoint incorporato.",
		"live_differs":        "Attenzione: la classifica calcolata ora differisce da quella pubblicata (una decisione successiva l'ha cambiata).",
		"rule_best_score":     "punteggio singolo più alto", "rule_earlier": "ottenuto prima (turno)", "rule_scores": "punteggi a confronto",
		"rule_wins": "più vittorie", "rule_medals": "più piazzamenti", "rule_cirki_wins": "più vittorie", "rule_cirki_games": "più partite giocate",
		"rule_cirki_out": "meno eliminazioni o ritiri", "rule_cirki_others_out": "più avversari eliminati ai tavoli vinti", "rule_roll": "tiro di dado",
		"vs": "contro", "event": "evento",
		"my_page": "La mia pagina", "your_table": "Il tuo tavolo", "seat": "Posto", "turn_order": "Ordine di gioco", "not_seated": "Non sei seduto a un tavolo in questo turno.",
		"your_scores": "I tuoi punteggi", "your_sanctions": "Sanzioni che ti riguardano", "your_contestations": "Le tue contestazioni",
		"report_table": "Referto del tavolo", "propose": "Proponi il referto", "confirm": "Confermo", "dispute": "Contesto", "dispute_reason": "Perché (obbligatorio)",
		"proposal_by": "Proposto da", "waiting_for": "Aspetta la conferma di", "status_" + string(projections.ProposalPending): "in attesa di conferme", "status_" + string(projections.ProposalReady): "confermato da tutti: pronto",
		"status_" + string(projections.ProposalDisputed): "contestato", "status_" + string(projections.ProposalFlagged): "fuori dai limiti del tabellone", "status_" + string(projections.ProposalSuperseded): "sostituito", "status_" + string(projections.ProposalRecorded): "registrato",
		"record_proposal": "Registra", "record_proposal_help": "Confermato da tutti i giocatori del tavolo: registralo con un clic.",
		"open_in_form": "Apri nel modulo del referto", "you_confirmed": "Hai confermato.", "live": "aggiornata in tempo reale",
		"links": "Link personali", "links_help": "Ogni giocatore riceve un link personale (con QR) per vedere il suo tavolo e riportare il referto dal telefono. Stampa i foglietti e consegnali: chi ha il foglietto può agire per quel giocatore.",
		"issue_links": "Crea i link mancanti", "reissue": "Nuovo link", "revoke_link": "Revoca", "no_link": "nessun link", "link_elsewhere": "emesso da un altro server: creane uno nuovo per stamparlo",
		"entry_slip": "Foglietto del giocatore", "scan_help": "Inquadra il QR con il telefono per aprire la tua pagina.", "code": "Codice",
		"checkin_scan": "Appello con il codice", "checkin_scan_help": "Scansiona il QR del foglietto (lettore USB o fotocamera) oppure scrivi il codice del giocatore, poi Invio.",
		"scan_camera": "Usa la fotocamera", "code_unknown": "Codice non riconosciuto: nessun giocatore ha questo codice o questo link.",
		"seat_tickets": "Biglietti dei posti", "screen_tables": "Tavoli", "screen_results": "Ultimi risultati", "screen_standings": "Classifica",
		"round_clock": "Tempo del turno", "started_at": "iniziato alle", "ended_at": "finito alle",
		"public_url": "Indirizzo che i telefoni aprono", "loopback_title": "I telefoni non possono aprire questi link.",
		"loopback_help": "I codici QR puntano a %s, che solo il computer del server raggiunge. Avvia referto in ascolto sulla rete della sala (referto serve --addr 0.0.0.0:8080) o indica l'indirizzo che i telefoni usano (--public-url http://192.168.1.20:8080), poi ristampa i foglietti: la guida operativa lo spiega in «La rete della sala».", "time_left": "mancano", "all_results": "Tutti i tavoli hanno il referto.",
		"results_in": "referti arrivati", "flagged": "da verificare", "ready": "pronto", "proposals": "Proposte dei giocatori",
		"cut_unknown": "Chi si qualifica alla fase successiva si saprà a fine turno.", "no_next_phase": "Nessuna fase successiva.",
		"done_" + events.TypeResultProposed: "Referto proposto: ora lo confermano gli altri giocatori del tavolo.", "done_" + events.TypeProposalConfirmed: "Conferma registrata.",
		"done_" + events.TypeProposalDisputed: "Contestazione registrata: l'arbitro verificherà il tavolo.", "done_" + events.TypePlayerTokenIssued: "Link personali creati:",
		"done_" + events.TypePlayerTokenRevoked: "Link revocato.", "join_failed": "Questo link personale non è valido o è stato revocato: chiedi un nuovo foglietto all'arbitro.",
		"param_scoring": "Formula di punteggio", "param_bonus": "Bonus del vincitore", "param_tie_chain": "Spareggio al tavolo", "param_tie_at_top": "Parità al primo posto",
		"param_tiebreak": "Spareggio in classifica", "param_discards": "Scarti", "param_table_sizes": "Giocatori per tavolo", "param_small_table_max": "Tavoli da 3 sotto i",
		"param_qualifying_rounds": "Turni di qualificazione", "param_knockout": "Fasi finali", "param_draw": "Sorteggio", "param_sanctions": "Regime delle sanzioni",
		"param_objectives": "Obiettivi", "param_late_penalty_after": "Penalità di ritardo oltre", "param_late_refuse_after": "Escluso oltre",
		"param_withdrawal_malus": "Malus per ritiro", "param_army_limit": "Limite di armate", "param_annulment": "Partita annullata", "param_closings": "Chiusure ammesse",
		"param_contest_within": "Contestazioni entro", "param_contest_by": "Chi contesta", "param_disqualified": "Squalifica", "param_rulings": "Chi decide le contestazioni",
		"param_self_report":                        "Referti dei giocatori",
		"formula_" + string(events.FormulaTPBonus): "punti tavolo + bonus", "formula_" + string(events.FormulaConv150): "conversione 150", "formula_" + string(events.FormulaConv200): "conversione 200", "formula_" + string(events.FormulaConv2003): "conversione 2003",
		"formula_" + string(events.FormulaStandard): "punti standard", "formula_" + string(events.FormulaFaentino): "faentino", "formula_" + string(events.FormulaSpartaco): "Spartaco", "formula_" + string(events.FormulaMaialino): "maialino",
		"formula_" + string(events.FormulaVeronese): "veronese", "formula_" + string(events.FormulaTriestino): "triestino", "formula_" + string(events.FormulaWins): "vittorie", "formula_" + string(events.FormulaMedals): "medagliere", "formula_" + string(events.FormulaCirki): "CIRKI 3/1/0",
		"knockout_" + string(events.KnockoutNone): "nessuna", "knockout_" + string(events.KnockoutRUR): "quarti (oltre 130), semifinali e finale (RUR)", "knockout_" + string(events.KnockoutSemis16): "semifinali a 16 e finale",
		"knockout_" + string(events.KnockoutFinal4): "finale dei primi 4", "knockout_" + string(events.KnockoutFinal4Plus8): "finale dei primi 4 e finalina 5°–8°", "knockout_" + string(events.KnockoutFinalLT32One): "1° in finale, 3 semifinali (2°–12°)",
		"knockout_" + string(events.KnockoutFinalLT32Two): "primi 2 in finale, 2 semifinali (3°–10°)", "knockout_" + string(events.KnockoutDirect): "eliminazione diretta", "knockout_" + string(events.KnockoutDirectSecondChance): "eliminazione diretta con seconda possibilità",
		"tiechain_" + string(events.TieChainRUR): "fuori obiettivo, poi ordine inverso di gioco (RUR)", "tiechain_" + string(events.TieChain2003): "territori obiettivo, territori, armate e carte (2003)", "tiechain_" + string(events.TieChainRTU): "catena RTU fino al dado",
		"tieattop_" + string(events.TieAtTopChain): "decide la catena", "tieattop_" + string(events.TieAtTopSplitBonus): "bonus diviso", "tiebreak_" + string(events.TiebreakRUR): "punteggio singolo più alto, poi chi lo ha ottenuto prima, poi il dado (RUR art. 1)",
		"tiebreak_" + string(events.TiebreakCirki): "vittorie, partite, eliminazioni (CIRKI)", "drawalg_" + string(events.DrawRUR): "RUR (club e regioni separati)", "drawalg_" + string(events.DrawSeeded2003): "per teste di serie (2003)", "drawalg_" + string(events.DrawRandom): "casuale",
		"regime_" + string(events.RegimeRUR): "RUR", "regime_" + string(events.Regime2003): "Campionato 2003", "regime_" + string(events.RegimeMaster): "scala Master", "regime_" + string(events.RegimeArbiter): "a giudizio dell'arbitro",
		"annulment_" + events.AnnulNextRound: "punteggio del turno successivo (2003)", "annulment_" + events.AnnulNone: "nessun rimedio: il colpevole è espulso",
		"disq_" + events.DisqualifiedLast: "ultimo con 0 punti, espulso", "disq_" + events.DisqualifiedWithdrawn: "come un ritirato (RUR art. 29)", "disq_" + events.DisqualifiedGame: "ultimo con 0 punti, resta in torneo",
		"rulings_" + events.RulingsArbiters: "arbitri e commissione d'appello", "rulings_" + events.RulingsAppeals: "solo la commissione d'appello",
		"selfreport_" + events.SelfReportArbiter: "confermati da tutti, li registra l'arbitro", "selfreport_" + events.SelfReportConfirmed: "confermati da tutti, si registrano da soli",
		"contestby_" + string(events.ContestByAnyone): "chiunque", "contestby_" + string(events.ContestByInvolved): "solo i giocatori coinvolti", "minutes": "min", "none_dash": "—",
		"unmet_same_club": "Tavolo %d: %s sono dello stesso club.", "unmet_same_region": "Tavolo %d: %s sono della stessa regione.",
		"unmet_place_mix": "Tavolo %d: non riunisce un primo, un secondo, un terzo e un quarto della partita precedente (%s).",
		"unmet_band_club": "Tavolo %d: %s sono dello stesso club.", "unmet_band_mix": "Tavolo %d: non ha un giocatore per fascia (%s).",
		"unmet_rematch": "Tavolo %d: %s si sono già incontrati.", "unmet_other": "Tavolo %d: vincolo non rispettato (%s).",
		string(events.SanctionReminder): "richiamo", string(events.SanctionWarning): "ammonizione", string(events.SanctionTurnLoss): "perdita del turno", string(events.SanctionCardLoss): "perdita di carte",
		string(events.SanctionArmyLoss): "perdita di armate", string(events.SanctionArmyCap): "limite di armate", string(events.SanctionClassificationPoints): "punti in classifica",
		string(events.SanctionDisqualification): "squalifica", string(events.SanctionExpulsion): "espulsione",
		"effect_" + commands.EffectExpelledSeated: "un espulso seduto a un tavolo", "effect_" + commands.EffectClassificationDiffers: "la classifica non segue dai referti",
		"effect_" + commands.EffectExpulsionInForce: "un'espulsione in vigore",
		"draw_warnings": "Vincoli del sorteggio non rispettati", "annulled": "partita annullata", "amended": "corretto all'evento",
		"call_optional": "L'appello è facoltativo: senza appello il sorteggio usa la lista degli iscritti; registrata una presenza o un'assenza per questo turno, il sorteggio aspetta che ogni iscritto attivo sia presente o assente.",
		"from_proposal": "dalla proposta dei giocatori", "seed_word": "seme", "nav_links": "Link", "nav_screen": "Schermo", "nav_events": "Registro", "at_table": "al tavolo", "refused_precondition_failed": "Il torneo è cambiato nel frattempo:", "algorithm": "Algoritmo", "edition": "Edizione",
		// Why a result does not count in the national ranking, by
		// ranking.Why's code, its arguments numbered as in English.
		"why_" + ranking.WhyNoFinal:        "nessuna classifica finale pubblicata",
		"why_" + ranking.WhyNoType:         "nessun tipo di torneo registrato",
		"why_" + ranking.WhyNoThresholds:   "%[1]s non ha soglie in %[2]s",
		"why_" + ranking.WhyFewTables:      "troppo pochi tavoli: %[1]s, un %[2]s ne richiede %[3]s nella stagione %[4]s",
		"why_" + ranking.WhyHeld:           "trattenuto dall'hub nazionale: %[1]s",
		"why_" + ranking.WhyQuarantined:    "in quarantena all'hub nazionale: %[1]s",
		"why_" + ranking.WhyUnverified:     "l'hub nazionale non ha ancora verificato alcun checkpoint del suo registro",
		"why_" + ranking.WhyPastCheckpoint: "la classifica finale (evento %[1]s) è oltre l'ultimo checkpoint verificato dall'hub nazionale (%[2]s eventi)",
		"why_" + ranking.WhyNoNationalID:   "nessuna tessera",
		"why_" + ranking.WhyDisqualified:   "periodo di squalifica dal %[1]s al %[2]s: %[3]s",
		"why_" + ranking.WhyRoundsCap:      "oltre il limite di %[1]s turni di %[2]s (%[3]s già contati)",
		"why_" + ranking.WhyPastBest:       "oltre i migliori %[1]s risultati di %[2]s",
	},
	"en": {
		"or": "or", "and": "and", "because": "", "not_recorded": "Not recorded:", "refused_invalid": "Not recorded, a value is wrong:",
		"refused_rule_violation": "The rules do not allow it:", "refused_conflict": "Not recorded:", "refused_forbidden": "Not allowed:",
		"refused_unauthorized": "Log in first:", "refused_not_found": "Not found:", "ledger_words": "The ledger's own words",
		"closed": "Tournament closed", "closed_note": "The tournament is closed: the final classification is published. Only contestations and their rulings may still change it.",
		"login_to_act":   "Log in to record and change things: without it the page is read-only.",
		"classification": "Final classification", "classification_provisional": "Provisional classification", "provisional": "provisional", "published": "Published", "not_published": "No classification has been published yet.",
		"settled_by": "Tie settled by", "group": "Group", "verify": "How to verify it", "proof": "Proof", "download_proof": "download the proof",
		"checkpoint": "Signed checkpoint", "checkpoint_help": "The log the classification was derived from, signed by the server: origin, number of events, Merkle root, signature.",
		"cosigned": "Checkpoint cosigned by the hub", "cosigned_help": "The last checkpoint of the log that the national hub's witness cosigned, after checking it against the ones before: the server's signature and, below it, the witness's.",
		"verify_row_help":     "Anyone can verify a row without trusting the server and without logging in: fetch the server's public key and the row's proof (its “download the proof” link; here the first row's), and verify checks it offline.",
		"verify_witness_help": "To check the witness's cosignature too: the witness's key (the hub's GET /v1/keys, \"witness\") and the player's proof file, which carries the cosignature.",
		"hub_help":            "HUB is the address of the national hub that cosigned the log.",
		"verify_log_help":     "Recomputing everything (every report, every draw and this classification) takes the export of the whole log, which only an official of the tournament (arbiter, appeals committee, auditor) can download, with his token:",
		"row_proof_help":      "For each row, the downloadable proof holds the publication's log line, its Merkle path to the root of a checkpoint signed now, and the consistency proof with the embedded checkpoint.",
		"live_differs":        "Note: the classification computed now differs from the one published (a later ruling changed it).",
		"rule_best_score":     "higher single score", "rule_earlier": "obtained earlier (round)", "rule_scores": "scores compared",
		"rule_wins": "more wins", "rule_medals": "more placings", "rule_cirki_wins": "more wins", "rule_cirki_games": "more games played",
		"rule_cirki_out": "fewer eliminations or withdrawals", "rule_cirki_others_out": "more opponents out at tables won", "rule_roll": "die roll",
		"vs": "vs", "event": "event",
		"my_page": "My page", "your_table": "Your table", "seat": "Seat", "turn_order": "Turn order", "not_seated": "You are not seated at a table this round.",
		"your_scores": "Your scores", "your_sanctions": "Sanctions concerning you", "your_contestations": "Your contestations",
		"report_table": "Table report", "propose": "Propose the report", "confirm": "I confirm", "dispute": "I dispute", "dispute_reason": "Why (required)",
		"proposal_by": "Proposed by", "waiting_for": "Waiting for", "status_" + string(projections.ProposalPending): "waiting for confirmations", "status_" + string(projections.ProposalReady): "confirmed by everyone: ready",
		"status_" + string(projections.ProposalDisputed): "disputed", "status_" + string(projections.ProposalFlagged): "beyond the board's bounds", "status_" + string(projections.ProposalSuperseded): "replaced", "status_" + string(projections.ProposalRecorded): "recorded",
		"record_proposal": "Record", "record_proposal_help": "Confirmed by every player of the table: record it with one click.",
		"open_in_form": "Open in the report form", "you_confirmed": "You confirmed.", "live": "updated live",
		"links": "Personal links", "links_help": "Every player gets a personal link (with a QR code) to see his table and report it from his phone. Print the slips and hand them out: whoever holds a slip can act for that player.",
		"issue_links": "Create the missing links", "reissue": "New link", "revoke_link": "Revoke", "no_link": "no link", "link_elsewhere": "issued by another server: create a new one to print it",
		"entry_slip": "Player's slip", "scan_help": "Scan the QR code with your phone to open your page.", "code": "Code",
		"checkin_scan": "Check-in by code", "checkin_scan_help": "Scan the slip's QR code (USB scanner or camera) or type the player's code, then Enter.",
		"scan_camera": "Use the camera", "code_unknown": "Code not recognised: no player has this code or link.",
		"seat_tickets": "Seat tickets", "screen_tables": "Tables", "screen_results": "Latest results", "screen_standings": "Standings",
		"round_clock": "Round clock", "started_at": "started at", "ended_at": "ended at",
		"public_url": "Address the phones open", "loopback_title": "Phones cannot open these links.",
		"loopback_help": "The QR codes point at %s, which only the server's computer reaches. Start referto listening on the hall's network (referto serve --addr 0.0.0.0:8080) or give the address phones use (--public-url http://192.168.1.20:8080), then print the slips again: the operations guide explains it in \"The hall's network\".", "time_left": "left", "all_results": "Every table has its report.",
		"results_in": "reports in", "flagged": "to check", "ready": "ready", "proposals": "Players' proposals",
		"cut_unknown": "Who qualifies for the next phase will be known at the end of the round.", "no_next_phase": "No further phase.",
		"done_" + events.TypeResultProposed: "Report proposed: the other players of the table confirm it now.", "done_" + events.TypeProposalConfirmed: "Confirmation recorded.",
		"done_" + events.TypeProposalDisputed: "Dispute recorded: the arbiter will check the table.", "done_" + events.TypePlayerTokenIssued: "Personal links created:",
		"done_" + events.TypePlayerTokenRevoked: "Link revoked.", "join_failed": "This personal link is not valid or was revoked: ask the arbiter for a new slip.",
		"param_scoring": "Scoring formula", "param_bonus": "Winner's bonus", "param_tie_chain": "Tie-break at the table", "param_tie_at_top": "Tie for first place",
		"param_tiebreak": "Tie-break in the standings", "param_discards": "Discards", "param_table_sizes": "Players per table", "param_small_table_max": "Tables of 3 below",
		"param_qualifying_rounds": "Qualifying rounds", "param_knockout": "Knockout phases", "param_draw": "Draw", "param_sanctions": "Sanction regime",
		"param_objectives": "Objectives", "param_late_penalty_after": "Lateness penalty after", "param_late_refuse_after": "Refused after",
		"param_withdrawal_malus": "Withdrawal malus", "param_army_limit": "Army limit", "param_annulment": "Annulled game", "param_closings": "Allowed closings",
		"param_contest_within": "Contestations within", "param_contest_by": "Who may contest", "param_disqualified": "Disqualification", "param_rulings": "Who rules on contestations",
		"param_self_report":                        "Players' reports",
		"formula_" + string(events.FormulaTPBonus): "table points + bonus", "formula_" + string(events.FormulaConv150): "150 conversion", "formula_" + string(events.FormulaConv200): "200 conversion", "formula_" + string(events.FormulaConv2003): "2003 conversion",
		"formula_" + string(events.FormulaStandard): "standard points", "formula_" + string(events.FormulaFaentino): "faentino", "formula_" + string(events.FormulaSpartaco): "Spartaco", "formula_" + string(events.FormulaMaialino): "maialino",
		"formula_" + string(events.FormulaVeronese): "veronese", "formula_" + string(events.FormulaTriestino): "triestino", "formula_" + string(events.FormulaWins): "wins", "formula_" + string(events.FormulaMedals): "medal table", "formula_" + string(events.FormulaCirki): "CIRKI 3/1/0",
		"knockout_" + string(events.KnockoutNone): "none", "knockout_" + string(events.KnockoutRUR): "quarterfinals (above 130), semifinals and final (RUR)", "knockout_" + string(events.KnockoutSemis16): "semifinals of 16 and a final",
		"knockout_" + string(events.KnockoutFinal4): "final of the top 4", "knockout_" + string(events.KnockoutFinal4Plus8): "final of the top 4 and a 5th–8th finalina", "knockout_" + string(events.KnockoutFinalLT32One): "1st to the final, 3 semifinals (2nd–12th)",
		"knockout_" + string(events.KnockoutFinalLT32Two): "top 2 to the final, 2 semifinals (3rd–10th)", "knockout_" + string(events.KnockoutDirect): "direct elimination", "knockout_" + string(events.KnockoutDirectSecondChance): "direct elimination with a second chance",
		"tiechain_" + string(events.TieChainRUR): "off-objective points, then reverse turn order (RUR)", "tiechain_" + string(events.TieChain2003): "objective territories, territories, armies and cards (2003)", "tiechain_" + string(events.TieChainRTU): "the RTU chain down to the die",
		"tieattop_" + string(events.TieAtTopChain): "the chain decides", "tieattop_" + string(events.TieAtTopSplitBonus): "split bonus", "tiebreak_" + string(events.TiebreakRUR): "higher single score, then who got it first, then the die (RUR art. 1)",
		"tiebreak_" + string(events.TiebreakCirki): "wins, games, eliminations (CIRKI)", "drawalg_" + string(events.DrawRUR): "RUR (clubs and regions apart)", "drawalg_" + string(events.DrawSeeded2003): "seeded (2003)", "drawalg_" + string(events.DrawRandom): "random",
		"regime_" + string(events.RegimeRUR): "RUR", "regime_" + string(events.Regime2003): "Campionato 2003", "regime_" + string(events.RegimeMaster): "Master ladder", "regime_" + string(events.RegimeArbiter): "the arbiter's judgement",
		"annulment_" + events.AnnulNextRound: "the next round's score (2003)", "annulment_" + events.AnnulNone: "no remedy: the culprit is expelled",
		"disq_" + events.DisqualifiedLast: "last with 0 points, expelled", "disq_" + events.DisqualifiedWithdrawn: "as a withdrawn player (RUR art. 29)", "disq_" + events.DisqualifiedGame: "last with 0 points, stays in",
		"rulings_" + events.RulingsArbiters: "arbiters and the appeals committee", "rulings_" + events.RulingsAppeals: "the appeals committee only",
		"selfreport_" + events.SelfReportArbiter: "confirmed by everyone, recorded by the arbiter", "selfreport_" + events.SelfReportConfirmed: "confirmed by everyone, recorded by themselves",
		"contestby_" + string(events.ContestByAnyone): "anyone", "contestby_" + string(events.ContestByInvolved): "only the players involved", "minutes": "min", "none_dash": "—",
		"unmet_same_club": "Table %d: %s are of the same club.", "unmet_same_region": "Table %d: %s are of the same region.",
		"unmet_place_mix": "Table %d: it does not bring together a first, second, third and fourth of the previous game (%s).",
		"unmet_band_club": "Table %d: %s are of the same club.", "unmet_band_mix": "Table %d: it has not one player of each band (%s).",
		"unmet_rematch": "Table %d: %s have met before.", "unmet_other": "Table %d: a constraint not met (%s).",
		string(events.SanctionReminder): "reminder", string(events.SanctionWarning): "warning", string(events.SanctionTurnLoss): "turn lost", string(events.SanctionCardLoss): "cards lost",
		string(events.SanctionArmyLoss): "armies lost", string(events.SanctionArmyCap): "army cap", string(events.SanctionClassificationPoints): "classification points",
		string(events.SanctionDisqualification): "disqualification", string(events.SanctionExpulsion): "expulsion",
		"effect_" + commands.EffectExpelledSeated: "an expelled player seated at a table", "effect_" + commands.EffectClassificationDiffers: "the classification does not follow from the reports",
		"effect_" + commands.EffectExpulsionInForce: "an expulsion in force",
		"draw_warnings": "Draw constraints not met", "annulled": "game annulled", "amended": "amended at event",
		"call_optional": "The call is optional: with no call the draw uses the entry list; once a check-in or an absence is recorded for this round, the draw waits until every active entrant is checked in or marked absent.",
		"from_proposal": "from the players' proposal", "seed_word": "seed", "nav_links": "Links", "nav_screen": "Screen", "nav_events": "Log", "at_table": "at the table", "refused_precondition_failed": "The tournament changed meanwhile:", "algorithm": "Algorithm", "edition": "Edition",
	},
}

func init() {
	for lang, words := range more {
		for k, v := range words {
			if _, dup := labels[lang][k]; !dup {
				labels[lang][k] = v
			}
		}
	}
}

// paramRow is one ruleset parameter as a page shows it.
type paramRow struct {
	Key, Label, Value string
}

// params says every parameter of a ruleset in lang, by the ledger's names
// (events.Ruleset's JSON names are the keys).
func params(lang string, rs events.Ruleset) []paramRow {
	num := func(n int, unit string) string {
		if n == 0 {
			return tr(lang, "none_dash")
		}
		if unit != "" {
			return strconv.Itoa(n) + " " + tr(lang, unit)
		}
		return strconv.Itoa(n)
	}
	word := func(prefix, v string) string {
		if v == "" {
			return tr(lang, "none_dash")
		}
		return tr(lang, prefix+v)
	}
	sizes := make([]string, len(rs.TableSizes))
	for i, n := range rs.TableSizes {
		sizes[i] = strconv.Itoa(n)
	}
	closings := make([]string, len(rs.Closings))
	for i, c := range rs.Closings {
		closings[i] = tr(lang, string(c))
	}
	objectives := rs.Objectives.ID
	if len(rs.Objectives.Inline) > 0 {
		objectives = "inline"
	}
	if objectives == "" {
		objectives = tr(lang, "none_dash")
	}
	disq, rulings, self := rs.Disqualified, rs.Rulings, rs.SelfReport
	if disq == "" {
		disq = events.DisqualifiedLast
	}
	if rulings == "" {
		rulings = events.RulingsAppeals
	}
	if self == "" {
		self = events.SelfReportArbiter
	}
	rows := []paramRow{
		{"scoring", "", word("formula_", string(rs.Scoring))},
		{"bonus", "", strconv.Itoa(rs.Bonus)},
		{"qualifying_rounds", "", strconv.Itoa(rs.QualifyingRounds)},
		{"knockout", "", word("knockout_", string(rs.Knockout))},
		{"table_sizes", "", strings.Join(sizes, " "+tr(lang, "or")+" ")},
		{"small_table_max", "", num(rs.SmallTableMax, "")},
		{"discards", "", strconv.Itoa(rs.Discards)},
		{"tie_chain", "", word("tiechain_", string(rs.TieChain))},
		{"tie_at_top", "", word("tieattop_", string(rs.TieAtTop))},
		{"tiebreak", "", word("tiebreak_", string(rs.Tiebreak))},
		{"draw", "", word("drawalg_", string(rs.Draw))},
		{"sanctions", "", word("regime_", string(rs.Sanctions))},
		{"objectives", "", objectives},
		{"closings", "", strings.Join(closings, ", ")},
		{"army_limit", "", num(rs.ArmyLimit, "")},
		{"late_penalty_after", "", num(rs.LatePenaltyAfter, "minutes")},
		{"late_refuse_after", "", num(rs.LateRefuseAfter, "minutes")},
		{"withdrawal_malus", "", num(rs.WithdrawalMalus, "")},
		{"annulment", "", word("annulment_", rs.AnnulmentRule())},
		{"disqualified", "", word("disq_", disq)},
		{"rulings", "", word("rulings_", rulings)},
		{"contest_within", "", num(rs.ContestWithin, "minutes")},
		{"contest_by", "", word("contestby_", string(rs.ContestedBy()))},
		{"self_report", "", word("selfreport_", self)},
	}
	for i := range rows {
		rows[i].Label = tr(lang, "param_"+rows[i].Key)
	}
	return rows
}

// unmetText says a draw constraint that was not met, with the players'
// names.
func unmetText(lang string, u events.UnmetConstraint, name func(string) string) string {
	var who []string
	for _, p := range u.Players {
		who = append(who, name(p))
	}
	list := strings.Join(who, ", ")
	if n := len(who); n > 1 {
		list = strings.Join(who[:n-1], ", ") + " " + tr(lang, "and") + " " + who[n-1]
	}
	key := "unmet_" + u.Constraint
	switch u.Constraint {
	case draw.ConstraintSameClub, draw.ConstraintSameRegion, draw.ConstraintPlaceMix, draw.ConstraintBandClub, draw.ConstraintBandMix, draw.ConstraintRematch:
	default:
		key = "unmet_other"
	}
	return fmt.Sprintf(tr(lang, key), u.Table, list)
}

// settledText says how a tie was settled: "tiro di dado: 5 contro 2 (evento 17)".
func settledText(lang string, s *projections.Settled) string {
	if s == nil {
		return ""
	}
	text := tr(lang, "rule_"+s.Rule) + ": " + s.Above + " " + tr(lang, "vs") + " " + s.Below
	if s.Rule == "medals" && s.Place > 0 {
		text = fmt.Sprintf("%s (%d°): %s %s %s", tr(lang, "rule_medals"), s.Place, s.Above, tr(lang, "vs"), s.Below)
	}
	if s.RollSeq > 0 {
		text += fmt.Sprintf(" (%s %d)", tr(lang, "event"), s.RollSeq)
	}
	return text + " · " + s.Source
}

// whyText says why a result of the national ranking does not count, in the
// page's language: its code's words with its arguments, or the ledger's
// English when the language has no words for the code.
func whyText(lang string, w ranking.Why) string {
	if f, ok := labels[lang]["why_"+w.Code]; ok && lang != "en" {
		return w.Format(f)
	}
	return w.Text
}
