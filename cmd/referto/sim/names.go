package sim

// Plausible Italian entrants for the demo and the generated logs: first
// and last names, and towns with their regions (a club is named after its
// town).
var (
	FirstNames = []string{"Mario", "Luca", "Giulia", "Marco", "Anna", "Paolo", "Sara", "Andrea", "Elena", "Davide", "Chiara",
		"Matteo", "Francesca", "Stefano", "Laura", "Simone", "Valentina", "Alessandro", "Federica", "Roberto"}
	LastNames = []string{"Rossi", "Bianchi", "Romano", "Colombo", "Ricci", "Marino", "Greco", "Bruno", "Gallo", "Conti",
		"De Luca", "Costa", "Giordano", "Mancini", "Rizzo", "Lombardi", "Moretti", "Barbieri", "Fontana", "Santoro"}
	Cities = []City{{"Bologna", "Emilia-Romagna"}, {"Modena", "Emilia-Romagna"}, {"Milano", "Lombardia"},
		{"Bergamo", "Lombardia"}, {"Torino", "Piemonte"}, {"Genova", "Liguria"}, {"Firenze", "Toscana"}, {"Pisa", "Toscana"},
		{"Roma", "Lazio"}, {"Napoli", "Campania"}, {"Bari", "Puglia"}, {"Palermo", "Sicilia"}, {"Cagliari", "Sardegna"},
		{"Venezia", "Veneto"}, {"Verona", "Veneto"}, {"Trieste", "Friuli-Venezia Giulia"}, {"Perugia", "Umbria"},
		{"Ancona", "Marche"}, {"Trento", "Trentino-Alto Adige"}, {"Pescara", "Abruzzo"}}
)

// City is a town and its region.
type City struct{ Town, Region string }
