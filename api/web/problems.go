package web

import (
	"regexp"
	"strconv"
	"strings"
)

// A refusal is shown as sentences in the page's language: each problem the
// API names (a field and its message, or the command as a whole) becomes
// the field's label and the message said again in Italian or English, with
// players named by name. The API's messages are English sentences of the
// ledger; the catalogue below says the ones a page can meet in Italian,
// and a message it does not know is said by its kind (its problem code)
// in the page's language, the ledger's own words kept aside, folded, for
// whoever reports it.

// phrase is one message of the ledger: its pattern, and how to say it.
type phrase struct {
	re *regexp.Regexp
	it string // Italian, $1… the pattern's groups
	en string // English; "" keeps the ledger's message
}

var phrases = func() []phrase {
	ps := []struct{ re, it, en string }{
		{`^required$`, `è obbligatorio.`, `is required.`},
		{`^required: one line per seated player$`, `serve una riga per ogni giocatore seduto al tavolo.`, `one line per seated player is required.`},
		{`^or, instead of the report, the id of the players' proposal to record$`, `oppure la proposta dei giocatori da registrare.`, `or the players' proposal to record.`},
		{`^must be between (-?\d+) and (-?\d+)$`, `deve essere tra $1 e $2.`, `must be between $1 and $2.`},
		{`^is (\d+) characters long; at most (\d+)$`, `è lungo $1 caratteri; al massimo $2.`, ``},
		{`^must be (.+), not "(.*)"$`, `deve essere {$1}, non «$2».`, ``},
		{`^this ruleset ends games only by (.+), not (.+)$`, `questo regolamento chiude le partite solo per {$1}, non per {$2}.`, ``},
		{`^a game closes by objective exactly when the winner made risiko .*$`, `una partita si chiude per obiettivo solo quando il vincitore ha fatto RisiKo!, e allora sempre.`, `a game closes by objective exactly when the winner made RisiKo!.`},
		{`^(\d+) table points is more than the board can give: at most (\d+),.*$`, `$1 punti tavolo sono più di quanti ne dia il tabellone: al massimo $2.`, `$1 table points is more than the board can give: at most $2.`},
		{`^(\d+) table points and (\d+) off-objective points make (\d+); every territory of the board together is worth (\d+).*$`, `$1 punti tavolo e $2 punti fuori obiettivo fanno $3; l'intero tabellone vale $4.`, `$1 table points and $2 off-objective points make $3; the whole board is worth $4.`},
		{`^(\d+) armies is more than the ruleset's limit of (\d+).*$`, `$1 armate superano il limite di $2 del regolamento.`, `$1 armies is more than the ruleset's limit of $2.`},
		{`^the players hold (\d+) territories in all; the board has (\d+).*$`, `i giocatori tengono $1 territori in tutto; il tabellone ne ha $2.`, `the players hold $1 territories in all; the board has $2.`},
		{`^(\d+) table points from (\d+) objective territor(?:y|ies): no territory is worth more than (\d+), so they give at most (\d+).*$`, `punti tavolo $1 con territori obiettivo $2: nessun territorio vale più di $3, quindi al massimo $4.`, ``},
		{`^a RisiKo! \(counted at (\d+) table points\) from (\d+) objective territor(?:y|ies): no territory is worth more than (\d+), so they give at most (\d+).*$`, `un RisiKo! (contato $1 punti tavolo) con territori obiettivo $2: nessun territorio vale più di $3, quindi al massimo $4.`, ``},
		{`^the players' table points add up to (\d+); each territory has one owner, and the whole board is worth (\d+).*$`, `i punti tavolo dei giocatori sommano $1; ogni territorio ha un solo proprietario e l'intero tabellone vale $2.`, `the players' table points add up to $1; each territory has one owner, and the whole board is worth $2.`},
		{`^the players' table points and off-objective points add up to (\d+); each territory has one owner, and the whole board is worth (\d+).*$`, `i punti tavolo e fuori obiettivo dei giocatori sommano $1; ogni territorio ha un solo proprietario e l'intero tabellone vale $2.`, `the players' table points and off-objective points add up to $1; each territory has one owner, and the whole board is worth $2.`},
		{`^(\d+) (.+), and (\S+) was eliminated: an eliminated player has lost all his territories and the armies on them.*$`, `$3 risulta eliminato: un giocatore eliminato ha perso tutti i suoi territori e le armate su di essi.`, `$3 was eliminated: an eliminated player has lost all his territories and the armies on them.`},
		{`^table (\d+) of round (\d+) seats (.+); the report names (.+)$`, `al tavolo $1 del turno $2 siedono $3; il referto nomina $4.`, ``},
		{`^(\S+) plays (\S+) in the recorded turn order \((.+)\)$`, `$1 gioca in un'altra posizione dell'ordine di gioco registrato ($3).`, ``},
		{`^(\S+) withdrew from this game \(recorded earlier\); the report must say withdrawn, not (\w+)$`, `$1 si è ritirato da questa partita: il referto deve dire «ritirato».`, ``},
		{`^(\S+) is reported withdrawn: say why he left the game.*$`, `$1 risulta ritirato: indica il motivo del ritiro (forza maggiore, senza motivo, decisione arbitrale non accettata), oppure registra prima il ritiro.`, `$1 is reported withdrawn: say why he left the game, or record his withdrawal first.`},
		{`^(\S+)'s withdrawal from this game is recorded already.*$`, `il ritiro di $1 da questa partita è già registrato, con il suo motivo: lascia vuoto il motivo del ritiro.`, `$1's withdrawal from this game is recorded already, with its reason: leave the reason empty.`},
		{`^says why a withdrawn player left the game; this player is (\w+)$`, `il motivo del ritiro vale solo per un giocatore ritirato.`, `only a withdrawn player has a reason for withdrawing.`},
		{`^(\S+) is reported disqualified, and no disqualification from this game is in force.*$`, `$1 risulta squalificato, ma nessuna squalifica da questa partita è in vigore: la squalifica è una sanzione degli arbitri, da infliggere prima del referto.`, `$1 is reported disqualified, and no disqualification from this game is in force: impose it first.`},
		{`^(.+) are level on every step of the (\S+) tie chain: record the die roll.*$`, `$1 sono pari in ogni criterio di spareggio: serve il tiro di dado fatto al tavolo.`, `$1 are level on every step of the tie chain: record the die roll made at the table.`},
		{`^the placement rules put (.+) first, not (.+) \(tie chain \S+\)$`, `secondo i criteri di piazzamento il primo è $1, non $2.`, ``},
		{`^turn (\d+) is out of range; turn orders are a permutation of 1\.\.(\d+)$`, `l'ordine di gioco $1 non esiste: gli ordini vanno da 1 a $2, uno per giocatore.`, ``},
		{`^turn (\d+) is also players\[(\d+)\]'s; turn orders are a permutation of 1\.\.(\d+)$`, `l'ordine di gioco $1 è già di un altro giocatore: gli ordini vanno da 1 a $3, uno per giocatore.`, `turn $1 is another player's too: turns go from 1 to $3, one each.`},
		{`^table points (-?\d+) are negative; they must be 0 or more$`, `i punti tavolo non possono essere negativi.`, ``},
		{`^(\S+) is (-?\d+); it must be 0 or more$`, `non può essere negativo.`, `cannot be negative.`},
		{`^(\d+) objective territories is more than the (\d+) territories held.*$`, `$1 territori obiettivo sono più dei $2 territori posseduti.`, `$1 objective territories is more than the $2 territories held.`},
		{`^(\d+) objective territories held, and no territories.*$`, `$1 territori obiettivo ma nessun territorio posseduto: indica i territori posseduti.`, `$1 objective territories held, and no territories: give the territories held.`},
		{`^an eliminated player has 0 table points, not (\d+)$`, `un giocatore eliminato ha 0 punti tavolo, non $1.`, ``},
		{`^elimination order (\d+) is out of range.*$`, `l'ordine di eliminazione $1 non va: gli eliminati si numerano 1, 2, … senza salti.`, `elimination order $1 does not fit: the eliminated are numbered 1, 2, … without gaps.`},
		{`^elimination order (\d+) is also players\[(\d+)\]'s.*$`, `l'ordine di eliminazione $1 è già di un altro giocatore.`, `elimination order $1 is another player's too.`},
		{`^only an eliminated player has an elimination order; this player is (\w+)$`, `solo un giocatore eliminato ha un ordine di eliminazione.`, ``},
		{`^nobody finished the game; at least one player is finished$`, `nessuno è in gioco a fine partita: almeno un giocatore lo è.`, ``},
		{`^winner "(.+)" has (\d+) table points but players\[(\d+)\] \("(.+)"\) has (\d+).*$`, `il vincitore $1 ha $2 punti tavolo ma $4 ne ha $5: senza RisiKo! vince chi ha più punti tavolo.`, ``},
		{`^risiko is set but no winner is named; risiko implies the winner$`, `RisiKo! è indicato ma manca il vincitore.`, ``},
		{`^table (\d+) of round (\d+) already has a result.*$`, `il tavolo $1 del turno $2 ha già un referto: le correzioni passano da una contestazione.`, `table $1 of round $2 already has a result: corrections go through a contestation.`},
		{`^round (\d+) has not been drawn$`, `il turno $1 non è ancora stato sorteggiato.`, ``},
		{`^the game of table (\d+) of round (\d+) was annulled: .*$`, `la partita del tavolo $1 del turno $2 è stata annullata: non ha referto.`, `the game of table $1 of round $2 was annulled: it has no report.`},
		{`^table (\d+) is not in the draw of round (\d+).*$`, `il tavolo $1 non c'è nel sorteggio del turno $2.`, ``},
		{`^the tournament is closed.*$`, `il torneo è chiuso: ormai lo cambiano solo le contestazioni e le loro decisioni.`, `the tournament is closed: only contestations and their rulings change it now.`},
		{`^this personal link acts for (\S+), not for (\S+)$`, `questo link personale è di $1, non di $2.`, ``},
		{`^(\S+) does not sit at table (\d+) of round (\d+)$`, `$1 non siede al tavolo $2 del turno $3.`, ``},
		{`^round (\d+) is over: .*$`, `il turno $1 è finito: i giocatori riportano i tavoli del turno in corso; gli arbitri correggono quelli passati.`, ``},
		{`^proposal (\S+) was replaced by a later proposal.*$`, `questa proposta è stata sostituita da una più recente.`, `this proposal was replaced by a later one.`},
		{`^proposal (\S+) breaks the board's bounds.*$`, `questa proposta supera i limiti del tabellone e non può essere registrata: va proposto di nuovo il referto.`, `this proposal breaks the board's bounds and cannot be recorded: propose the report again.`},
		{`^(\S+) proposed (\S+): a proposal is its proposer's confirmation$`, `hai proposto tu questo referto: la tua proposta vale già come conferma.`, `you proposed this report: your proposal is your confirmation.`},
		{`^(\S+) proposed (\S+): propose the report again instead$`, `hai proposto tu questo referto: proponilo di nuovo, corretto.`, `you proposed this report: propose it again, corrected.`},
		{`^(\S+) already confirmed (\S+).*$`, `$1 ha già confermato questo referto.`, `$1 already confirmed this report.`},
		{`^(\S+) already disputed (\S+).*$`, `$1 ha già contestato questo referto.`, `$1 already disputed this report.`},
		{`^(\S+) disputed proposal (\S+): .*$`, `$1 ha contestato questo referto: decide l'arbitro, oppure un giocatore del tavolo lo propone di nuovo.`, `$1 disputed this report: the arbiter decides, or a player of the table proposes it again.`},
		{`^(\S+) has no live personal link to revoke$`, `$1 non ha un link personale attivo da revocare.`, ``},
		{`^no player to give a link to.*$`, `tutti gli iscritti hanno già il loro link personale.`, `every registered player already has a personal link.`},
		{`^the call of round (\d+) is incomplete: check in or mark absent (.+)$`, `l'appello del turno $1 non è completo: segna presenti o assenti $2.`, ``},
		{`^round (\d+) still has tables without a result: (.+)$`, `il turno $1 ha ancora tavoli senza referto.`, `round $1 still has tables without a result.`},
		{`^close the registration \(validate the entry list\) before drawing game 1$`, `chiudi le iscrizioni (convalida l'elenco) prima di sorteggiare la prima partita.`, ``},
		{`^registration is closed: .*$`, `le iscrizioni sono chiuse: gli arbitri hanno convalidato l'elenco.`, ``},
		{`^player (\S+) is already in the entry list of (\S+)$`, `$1 è già nell'elenco degli iscritti.`, `$1 is already in the entry list.`},
		{`^(\S+) already checked in for round (\d+)$`, `$1 ha già risposto all'appello del turno $2.`, ``},
		{`^tables without a result: (.+)$`, `ci sono ancora tavoli senza referto.`, `some tables have no result yet.`},
		{`^ties awaiting a die roll: (.+)$`, `ci sono parità che aspettano il tiro di dado: $1.`, ``},
		{`^the final classification is already published.*$`, `la classifica finale è già stata pubblicata.`, `the final classification is already published.`},
		{`^publish the final classification before closing the tournament$`, `pubblica la classifica finale prima di chiudere il torneo.`, ``},
		{`^the format has (\d+) qualifying rounds and the (.+); (\d+) rounds played$`, `il formato prevede $1 turni di qualificazione e le fasi finali; se ne sono giocati $3.`, `the format has $1 qualifying rounds and the knockout phases; $3 rounds played.`},
		{`^role (\S+) may not issue (\S+)$`, `il tuo ruolo non può farlo.`, `your role may not do this.`},
		{`^role (\S+) may not do this$`, `il tuo ruolo non può farlo.`, `your role may not do this.`},
		{`^your token is for tournament (\S+)$`, `il tuo accesso è per un altro torneo.`, `your access is for another tournament.`},
		{`^(send Authorization: Bearer <token>|unknown token)$`, `accedi per farlo.`, `log in to do this.`},
	}
	out := make([]phrase, len(ps))
	for i, p := range ps {
		out[i] = phrase{re: regexp.MustCompile(p.re), it: p.it, en: p.en}
	}
	return out
}()

// codeSentence is what a refusal of a kind says when its message is not in
// the catalogue.
var codeSentence = map[string]map[string]string{
	"it": {"invalid": "un valore non è accettato.", "rule_violation": "il regolamento del torneo non lo consente.",
		"conflict": "è in conflitto con quanto già registrato.", "not_found": "non si trova.", "forbidden": "il tuo ruolo non può farlo.",
		"unauthorized": "accedi per farlo.", "precondition_failed": "il torneo è cambiato nel frattempo: ricarica la pagina.",
		"too_many_requests": "troppi tentativi di accesso falliti: riprova fra un minuto.", "unavailable": "il registro non accetta comandi in questo momento: riprova fra poco.",
		"too_large": "il modulo è troppo grande.", "internal": "errore interno del server.", "idempotency_key_reused": "questo modulo era già stato inviato."},
	"en": {"invalid": "a value is not accepted.", "rule_violation": "the tournament's rules do not allow it.",
		"conflict": "it clashes with what is already recorded.", "not_found": "it cannot be found.", "forbidden": "your role may not do this.",
		"unauthorized": "log in to do this.", "precondition_failed": "the tournament changed meanwhile: reload the page.",
		"too_many_requests": "too many failed logins: try again in a minute.", "unavailable": "the ledger is not taking commands right now: try again shortly.",
		"too_large": "the form is too large.", "internal": "internal server error.", "idempotency_key_reused": "this form had been sent already."},
}

// vocab are the words of the ledger's vocabularies a message may carry
// between braces ({objective or time}), said in the page's language.
var vocabRE = regexp.MustCompile(`[a-z_]+`)

// say renders one ledger message in lang; ok is false when the catalogue
// does not know it.
func say(lang, msg string) (string, bool) {
	msg = strings.TrimSpace(strings.TrimPrefix(msg, "commands: "))
	for _, p := range phrases {
		m := p.re.FindStringSubmatchIndex(msg)
		if m == nil {
			continue
		}
		tmpl := p.it
		if lang == "en" {
			if tmpl = p.en; tmpl == "" {
				return msg, true
			}
		}
		out := string(p.re.ExpandString(nil, tmpl, msg, m))
		// Words of the vocabularies, in braces, are said in the language.
		for {
			i, j := strings.IndexByte(out, '{'), strings.IndexByte(out, '}')
			if i < 0 || j < i {
				break
			}
			inner := vocabRE.ReplaceAllStringFunc(out[i+1:j], func(w string) string {
				if w == "or" {
					return tr(lang, "or")
				}
				return tr(lang, w)
			})
			out = out[:i] + strings.ReplaceAll(inner, `"`, "") + out[j+1:]
		}
		return out, true
	}
	return "", false
}

// problemLine is one sentence of a refusal.
type problemLine struct {
	Field string // what it is about, in words ("" for the command as a whole)
	Text  string
	Rule  string
	Raw   string // the ledger's message, when the catalogue did not know it
}

// problemView is a refusal as a page shows it.
type problemView struct {
	Status   int
	Headline string
	Lines    []problemLine
}

var seatFieldRE = regexp.MustCompile(`^players\[(\d+)\]\.(\w+)$`)

// viewProblem says prob in the page's language; seat names the player of
// a report's line by its index ("" when unknown), name a player by id.
func viewProblem(lang string, prob *Problem, seat func(int) string, name func(string) string) *problemView {
	if prob == nil {
		return nil
	}
	v := &problemView{Status: prob.Status, Headline: tr(lang, "refused_"+prob.Code)}
	if v.Headline == "refused_"+prob.Code {
		v.Headline = tr(lang, "not_recorded")
	}
	type item struct{ field, detail, rule string }
	var items []item
	for _, e := range prob.Errors {
		items = append(items, item{e.Field, e.Detail, e.Rule})
	}
	if len(items) == 0 {
		d := prob.Detail
		if prob.Field != "" {
			d = strings.TrimPrefix(d, prob.Field+": ")
		}
		items = append(items, item{prob.Field, d, prob.Rule})
	}
	for _, it := range items {
		line := problemLine{Field: fieldLabel(lang, it.field, seat), Rule: it.rule}
		if prob.Said {
			line.Text = it.detail
		} else if text, ok := say(lang, it.detail); ok {
			line.Text = names(text, name)
		} else {
			line.Text = codeSentence[langOr(lang)][prob.Code]
			if lang == "en" {
				line.Text = names(it.detail, name)
			} else {
				line.Raw = names(it.detail, name)
			}
		}
		v.Lines = append(v.Lines, line)
	}
	return v
}

func langOr(lang string) string {
	if _, ok := codeSentence[lang]; ok {
		return lang
	}
	return "it"
}

// fieldLabel says which field a problem is about: "Punti tavolo · Mario
// Rossi" for players[0].table_points.
func fieldLabel(lang, field string, seat func(int) string) string {
	if field == "" {
		return ""
	}
	if m := seatFieldRE.FindStringSubmatch(field); m != nil {
		i, _ := strconv.Atoi(m[1])
		who := ""
		if seat != nil {
			who = seat(i)
		}
		if who == "" {
			who = tr(lang, "player") + " " + strconv.Itoa(i+1)
		}
		return tr(lang, m[2]) + " · " + who
	}
	base, _, _ := strings.Cut(field, ".")
	base, _, _ = strings.Cut(base, "[")
	return tr(lang, base)
}

var idRE = regexp.MustCompile(`\b[a-z0-9][a-z0-9-]{0,63}\b`)

// names replaces the player ids of a message by the players' names.
func names(text string, name func(string) string) string {
	if name == nil {
		return text
	}
	return idRE.ReplaceAllStringFunc(text, func(id string) string {
		if n := name(id); n != "" {
			return n
		}
		return id
	})
}
