package contacts_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/testenv"
)

// importVCard posts a vCard file to the import route with query.
func (c *client) importVCard(query, file string, want int) apptest.Response {
	c.t.Helper()
	return c.Do(http.MethodPost, "/api/contacts/import?"+query, []byte(file), want, "Content-Type", "text/vcard")
}

// TestVCardRoundTrip (issue 23): the contacts exported as vCard 4.0 and
// imported into an empty organization are the same fields (names, email,
// phone, company, title, tags, stage), through the same import as CSV
// (match keys, batches, undo): values with vCard's special characters
// (comma, semicolon, backslash), formula characters and apostrophes,
// accents and other scripts, a company long enough to be folded across
// lines with multi-byte characters. Every line of the file is at most 75
// octets and ends with CRLF. Imported into its own organization it changes
// nothing; undone in the other, it leaves it empty.
func TestVCardRoundTrip(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	a := newClient(t, h, "")
	_, otherKey := h.NewOrganization(t, "Empty", testenv.UniqueName("empty"), apptest.DefaultScopes...)
	b := newClient(t, h, otherKey)

	var first report
	a.importCSV("", variedContactsCSV(300), http.StatusOK).JSON(t, &first)
	if first.Created != 300 || first.Failed != 0 {
		t.Fatalf("source import %+v", first)
	}
	long := strings.Repeat("Société Générale d'Électricité, Paris; ", 4)
	for i, v := range []string{`Smith, Jr.`, `a;b;c`, `back\slash`, `'+1 555 0100`, "''quoted", long, "東京都 港区", `\n literal`} {
		short := []rune(v)
		short = short[:min(len(short), 40)]
		a.create(map[string]any{"firstName": string(short), "lastName": "L" + string(short), "phone": "+1 " + string(short[:min(len(short), 20)]),
			"company": v + " co", "jobTitle": v,
			"tags": []string{"t" + fmt.Sprint(i)}, "email": fmt.Sprintf("v%d@example.com", i)})
	}
	want := a.all("limit=200")
	if len(want) != 308 {
		t.Fatalf("%d contacts, want 308", len(want))
	}

	res := a.Do(http.MethodGet, "/api/contacts/export.vcf", nil, http.StatusOK)
	if ct := res.Header.Get("Content-Type"); ct != "text/vcard; charset=utf-8" {
		t.Fatalf("Content-Type %q", ct)
	}
	vcf := string(res.Body)
	if n := strings.Count(vcf, "BEGIN:VCARD\r\n"); n != len(want) || strings.Count(vcf, "END:VCARD\r\n") != n ||
		strings.Count(vcf, "VERSION:4.0\r\n") != n {
		t.Fatalf("%d cards for %d contacts", n, len(want))
	}
	folded := 0
	for i, line := range strings.Split(strings.TrimSuffix(vcf, "\r\n"), "\r\n") {
		if len(line) > 75 || strings.ContainsAny(line, "\r\n") {
			t.Fatalf("line %d is %d octets or holds a bare line break: %q", i+1, len(line), line)
		}
		if strings.HasPrefix(line, " ") {
			folded++
		}
	}
	if folded == 0 || !strings.Contains(vcf, `FN:Smith\, Jr. LSmith\, Jr.`) || !strings.Contains(vcf, `ORG:a\;b\;c co`) {
		t.Fatalf("the export does not fold or escape as RFC 6350 says:\n%.3000s", vcf)
	}

	var into report
	b.importVCard("importId=from-a", vcf, http.StatusOK).JSON(t, &into)
	if into.Created != len(want) || into.Failed != 0 || into.Updated != 0 {
		t.Fatalf("import into an empty organization: %+v", into)
	}
	if diff := sameContacts(want, b.all("limit=200")); diff != "" {
		t.Fatalf("imported into an empty organization: %s", diff)
	}

	var again report
	a.importVCard("", vcf, http.StatusOK).JSON(t, &again)
	if again.Created != 0 || again.Updated != 0 || again.Unchanged != len(want) || again.Failed != 0 {
		t.Fatalf("import into the same organization: %+v", again)
	}
	if diff := sameContacts(want, a.all("limit=200")); diff != "" {
		t.Fatalf("after importing its own export: %s", diff)
	}

	var undone report
	b.Do(http.MethodPost, "/api/imports/from-a/undo", nil, http.StatusOK).JSON(t, &undone)
	if undone.Removed != len(want) {
		t.Fatalf("undo: %+v", undone)
	}
	if left := b.all("limit=200"); len(left) != 0 {
		t.Fatalf("%d contacts left after the undo", len(left))
	}
}

// TestVCardImportOfOtherPrograms: cards as address books write them (vCard
// 3.0, folded lines, groups, TYPE=pref, a tel: URI, mailto:, no N) are
// read; a file that is not vCard is 400 naming its line, and nothing is
// imported.
func TestVCardImportOfOtherPrograms(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	a := newClient(t, h, "")
	file := strings.Join([]string{
		"BEGIN:VCARD", "VERSION:3.0", "N:Núñez;José;María;;", "FN:José María Núñez",
		"item1.EMAIL;TYPE=INTERNET:jose@old.example", "item2.EMAIL;TYPE=INTERNET,pref:jose@example.com",
		"TEL;TYPE=CELL:+34 600 000 000", "ORG:Acme Ibérica;Ventas", "TITLE:Director de", "  ventas",
		"CATEGORIES:vip,partner", "NOTE:ignored", "END:VCARD",
		"", "BEGIN:VCARD", "VERSION:4.0", "FN:Kim Lee", "EMAIL:mailto:kim@example.com", "TEL;VALUE=uri:tel:+1-555-0100", "END:VCARD", "",
	}, "\r\n")
	var rep report
	a.importVCard("", file, http.StatusOK).JSON(t, &rep)
	if rep.Created != 2 || rep.Failed != 0 {
		t.Fatalf("import %+v", rep)
	}
	got := map[string]contact{}
	for _, c := range a.all("limit=10") {
		got[c.Email] = c
	}
	jose, kim := got["jose@example.com"], got["kim@example.com"]
	if jose.FirstName != "José María" || jose.LastName != "Núñez" || jose.Phone != "+34 600 000 000" || jose.Company != "Acme Ibérica" ||
		jose.JobTitle != "Director de ventas" || strings.Join(jose.Tags, ",") != "vip,partner" {
		t.Fatalf("José: %+v", jose)
	}
	if kim.FirstName != "Kim Lee" || kim.Phone != "+1-555-0100" {
		t.Fatalf("Kim: %+v", kim)
	}

	for name, bad := range map[string]string{
		"not a card":    "hello\r\n",
		"no end":        "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:X\r\n",
		"no property":   "BEGIN:VCARD\r\nVERSION:4.0\r\nthis is no property\r\nEND:VCARD\r\n",
		"invalid UTF-8": "BEGIN:VCARD\r\nFN:\xff\r\nEND:VCARD\r\n",
	} {
		p := problemOf(t, a.importVCard("importId=bad-"+strings.ReplaceAll(name, " ", "-"), bad, http.StatusBadRequest))
		if p.Code != "invalid_input" || !strings.Contains(p.Detail, "line ") {
			t.Fatalf("%s: %+v", name, p)
		}
	}
	if n := len(a.all("limit=10")); n != 2 {
		t.Fatalf("%d contacts after the refused files", n)
	}
}
