package contacts_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/testenv"
)

// TestExportImportRoundTrip: an export imported again is the same
// contacts. The export neutralises cells that would start a formula (a
// leading apostrophe); the import stored that apostrophe, so re-importing
// an export turned "+1 555 0100" into "'+1 555 0100" and duplicated a
// contact whose email begins with "-" (its match key no longer matched).
// Now 1,000 varied contacts exported and imported into an empty
// organization are the same fields, and imported into their own
// organization create nothing and update nothing.
func TestExportImportRoundTrip(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	a := newClient(t, h, "")
	_, otherKey := h.NewOrganization(t, "Empty", testenv.UniqueName("empty"), apptest.DefaultScopes...)
	b := newClient(t, h, otherKey)

	// 1,000 contacts by import; the values are taken as they are (none
	// looks like an escaped cell).
	src := variedContactsCSV(1000)
	var first report
	a.importCSV("", src, http.StatusOK).JSON(t, &first)
	if first.Created != 1000 || first.Failed != 0 {
		t.Fatalf("source import %+v", first)
	}
	// Values that look like the export's escaping, made through the API.
	for i, v := range []string{"'+1 555 0100", "''quoted", "'=x", "'-", "'@at", "'"} {
		a.create(map[string]any{"firstName": v, "lastName": v, "phone": v, "company": v, "jobTitle": v, "tags": []string{v},
			"email": fmt.Sprintf("apostrophe%d@example.com", i)})
	}
	want := a.all("limit=200")
	if len(want) != 1006 {
		t.Fatalf("%d contacts, want 1006", len(want))
	}

	export := string(a.Do(http.MethodGet, "/api/contacts/export", nil, http.StatusOK).Body)
	if !strings.Contains(export, "'+1 555 0100") || !strings.Contains(export, "''+1 555 0100") || !strings.Contains(export, "'-dash0@example.com") {
		t.Fatalf("the export does not neutralise as expected:\n%.2000s", export)
	}

	var into report
	b.importCSV("", export, http.StatusOK).JSON(t, &into)
	if into.Created != len(want) || into.Failed != 0 || into.Updated != 0 {
		t.Fatalf("import into an empty organization: %+v", into)
	}
	if diff := sameContacts(want, b.all("limit=200")); diff != "" {
		t.Fatalf("imported into an empty organization: %s", diff)
	}

	var again report
	a.importCSV("", export, http.StatusOK).JSON(t, &again)
	if again.Created != 0 || again.Updated != 0 || again.Unchanged != len(want) || again.Failed != 0 {
		t.Fatalf("import into the same organization: %+v", again)
	}
	if diff := sameContacts(want, a.all("limit=200")); diff != "" {
		t.Fatalf("after importing its own export: %s", diff)
	}
}

// variedContactsCSV is a CSV file of n contacts whose values start with
// formula characters and apostrophes, carry accents and other scripts, leave
// fields empty, and spread over the stages; a contact without an email has
// its own company (matched by name and company).
func variedContactsCSV(n int) string {
	firsts := []string{"=Ann", "-Bob", "@Carla", "+Dan", "'Tis", "Núñez", "Zoë", "Ōno", "Jo=anna", "Ann-Marie", "", "李"}
	lasts := []string{"Smith", "O'Brien", "-Dash", "=1+2", "@handle", "García", "", "Øyvind", "d'Arc"}
	phones := []string{"+1 555 0100", "-5", "=2+3", "@1", "555-0100", "", "+44 20 7946 0958"}
	companies := []string{"@Home", "=HYPERLINK(\"http://x\")", "-Minus Ltd", "ACME", "", "Société Générale", "+Plus"}
	titles := []string{"-", "CEO", "=cmd|' /C calc'!A0", "", "Head of @ops"}
	tagSets := []string{"-vip;lead", "=x", "", "partner", "@a;b", "éclair"}
	stages := []string{"Lead", "Contacted", "Qualified", "", "Won"}
	var src bytes.Buffer
	w := csv.NewWriter(&src)
	_ = w.Write([]string{"first_name", "last_name", "email", "phone", "company", "job_title", "tags", "stage"})
	for i := range n {
		email := ""
		switch i % 4 {
		case 0:
			email = fmt.Sprintf("-dash%d@example.com", i)
		case 1:
			email = fmt.Sprintf("p%d@example.com", i)
		case 2:
			email = fmt.Sprintf("=eq%d@exämple.com", i)
		}
		company := companies[i%len(companies)]
		if email == "" {
			company = fmt.Sprintf("%s %d", company, i) // matched by name and company: each its own
		}
		_ = w.Write([]string{firsts[i%len(firsts)], lasts[i%len(lasts)], email, phones[i%len(phones)], company,
			titles[i%len(titles)], tagSets[i%len(tagSets)], stages[i%len(stages)]})
	}
	w.Flush()
	return src.String()
}

// sameContacts compares two organizations' contacts field by field
// (ids, revisions and counts aside), "" when they are the same.
func sameContacts(want, got []contact) string {
	key := func(c contact) string {
		return strings.Join([]string{c.FirstName, c.LastName, c.Email, c.Phone, c.Company, c.JobTitle, strings.Join(c.Tags, "\x00"),
			c.StageID}, "\x01")
	}
	keys := func(cs []contact) []string {
		out := make([]string, len(cs))
		for i, c := range cs {
			out[i] = key(c)
		}
		slices.Sort(out)
		return out
	}
	w, g := keys(want), keys(got)
	if len(w) != len(g) {
		return fmt.Sprintf("%d contacts, want %d", len(g), len(w))
	}
	for i := range w {
		if w[i] != g[i] {
			return fmt.Sprintf("a contact differs:\n got  %q\n want %q", g[i], w[i])
		}
	}
	return ""
}
