package bench

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/google/uuid"

	domain "github.com/platform/backend/domain/contacts"
)

// benchContact is one generated contact: a file row, and the row the raw
// COPY writes.
type benchContact struct {
	first, last, email, phone, company, title string
	tags                                      []string
}

var (
	benchFirst = []string{"Ann", "Joanna", "Hannah", "José", "Mia", "Noah", "Liam", "Emma", "Olivia", "Ava", "Sophia", "Isabella",
		"Lucas", "Mateo", "Léa", "Chloé", "Björn", "Zoë", "Aiko", "Ravi", "Priya", "Chen", "Fatima", "Omar", "Ines", "Jonas",
		"Elena", "Marco", "Sara", "Tomás", "Nina", "Pavel", "Yuki", "Kofi", "Amara", "Diego", "Lucía", "Anja", "Felix", "Greta"}
	benchLast = []string{"Smith", "Lee", "Núñez", "García", "Müller", "Rossi", "Dubois", "Kowalski", "Nakamura", "Okafor",
		"Johansson", "Silva", "Patel", "Kim", "Nguyen", "O'Brien", "Schmidt", "Ivanova", "Haddad", "Costa", "Jensen", "Moreau",
		"Novak", "Santos", "Weber", "Ali", "Khan", "Tanaka", "Fischer", "Lopez"}
	benchCompanySuffix = []string{"Corp", "GmbH", "Ltd", "Labs", "Group", "Studio", "Systems", "Partners"}
	benchCompanyWords  = []string{"Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Stark", "Wayne", "Tyrell",
		"Cyberdyne", "Soylent", "Wonka", "Aperture", "Gringotts", "Oscorp", "Monarch", "Nakatomi", "Pied Piper", "Dunder",
		"Bluth", "Prestige", "Massive", "Virtucon", "Zorg", "Ollivander", "Sterling", "Krusty", "Duff", "Gekko", "Rekall"}
	benchTitles = []string{"CEO", "CTO", "Head of Sales", "Engineer", "Designer", "Buyer", "Account Manager", ""}
	benchTags   = []string{"vip", "lead", "partner", "newsletter", "event-2026", "churn-risk", "trial"}
)

// benchContacts generates n distinct contacts (one email each), the same
// for a seed.
func benchContacts(n int) []benchContact {
	r := rand.New(rand.NewPCG(7, 11))
	out := make([]benchContact, n)
	for i := range out {
		first, last := benchFirst[r.IntN(len(benchFirst))], benchLast[r.IntN(len(benchLast))]
		company := fmt.Sprintf("%s %s %d", benchCompanyWords[r.IntN(len(benchCompanyWords))], benchCompanySuffix[r.IntN(len(benchCompanySuffix))], r.IntN(200))
		domainName := strings.ToLower(strings.ReplaceAll(strings.Fields(company)[0], "'", "")) + fmt.Sprint(r.IntN(200)) + ".example.com"
		local := strings.ToLower(asciiOnly(first)) + "." + strings.ToLower(asciiOnly(last)) + fmt.Sprint(i)
		var tags []string
		for range r.IntN(3) {
			tags = append(tags, benchTags[r.IntN(len(benchTags))])
		}
		out[i] = benchContact{first: first, last: last, email: local + "@" + domainName, phone: fmt.Sprintf("+1 555 %07d", i),
			company: company, title: benchTitles[r.IntN(len(benchTitles))], tags: tags}
	}
	return out
}

func asciiOnly(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && r != '\'' {
			return r
		}
		return 'x'
	}, s)
}

// benchCSV is the import file of the contacts.
func benchCSV(contacts []benchContact) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write([]string{"First Name", "Last Name", "Email", "Phone", "Company", "Job Title", "Tags"})
	for _, c := range contacts {
		_ = w.Write([]string{c.first, c.last, c.email, c.phone, c.company, c.title, strings.Join(c.tags, ";")})
	}
	w.Flush()
	return buf.Bytes()
}

// copyRows are the contacts as rows of the read model's contacts table.
func copyRows(org string, contacts []benchContact) [][]any {
	p := domain.DefaultPipeline(org)
	now := time.Now().UTC()
	rows := make([][]any, len(contacts))
	for i, c := range contacts {
		tags := c.tags
		if tags == nil {
			tags = []string{}
		}
		rows[i] = []any{uuid.Must(uuid.NewV7()), org, 1, c.first, c.last, c.email, c.phone, c.company, c.title, tags,
			p.PipelineID, "lead", now, false, nil, now, now}
	}
	return rows
}
