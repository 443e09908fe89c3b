package contacts_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/platform/backend/internal/apptest"
	contactsview "github.com/platform/backend/projections/contacts"
)

// TestContactLifecycle: create, read, update (PUT replaces), soft delete
// (gone from reads, in the trash list), the seed's 400 for an invalid body
// with the problem's pointers, 404 for an unknown or malformed id, 201s.
func TestContactLifecycle(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	c := newClient(t, h, "")
	ann := c.create(map[string]any{"firstName": "Ann", "lastName": "Lee", "email": "ann@example.com", "tags": []string{"vip", "VIP", " lead "}})
	if ann.Revision != 1 || ann.StageID != "lead" || strings.Join(ann.Tags, ",") != "vip,lead" {
		t.Fatalf("created %+v", ann)
	}
	got := c.get(ann.ContactID)
	if got.Email != "ann@example.com" || got.NoteCount != 0 || got.PipelineID == "" {
		t.Fatalf("read %+v", got)
	}
	var updated contact
	c.Do(http.MethodPut, "/api/contacts/"+ann.ContactID, map[string]any{"firstName": "Anne", "company": "ACME"}, http.StatusOK).JSON(t, &updated)
	if updated.FirstName != "Anne" || updated.Email != "" || updated.Revision != 2 {
		t.Fatalf("PUT replaces the editable members: %+v", updated)
	}
	for _, bad := range []struct {
		body    map[string]any
		pointer string
	}{
		{map[string]any{"email": "not an address"}, "/email"},
		{map[string]any{"phone": "+1 555"}, "/firstName"},        // neither a name, an email nor a company
		{map[string]any{"firstName": "A\u0000nn"}, "/firstName"}, // NUL
		{map[string]any{"firstName": strings.Repeat("x", 201)}, "/firstName"},
		{map[string]any{"firstName": "Ann", "stageId": "nowhere"}, "/stageId"},
	} {
		p := apptest.ExpectProblem(t, h.Do(t, "contacts", http.MethodPost, "/api/contacts", "", bad.body), http.StatusBadRequest, "invalid_input")
		found := false
		for _, e := range p.Errors {
			found = found || e.Pointer == bad.pointer
		}
		if !found {
			t.Errorf("%v: errors %+v lack pointer %q", bad.body, p.Errors, bad.pointer)
		}
	}
	apptest.ExpectProblem(t, h.Do(t, "contacts", http.MethodPost, "/api/contacts", "", []byte(`[1]`)), http.StatusBadRequest, "invalid_input")
	for _, id := range []string{"00000000-0000-7000-8000-000000000000", "not-a-uuid"} {
		apptest.ExpectProblem(t, c.Do(http.MethodGet, "/api/contacts/"+id, nil, http.StatusNotFound), http.StatusNotFound, "not_found")
		apptest.ExpectProblem(t, c.Do(http.MethodPut, "/api/contacts/"+id, map[string]any{"firstName": "X"}, http.StatusNotFound), http.StatusNotFound, "not_found")
	}
	var deleted contact
	c.Do(http.MethodDelete, "/api/contacts/"+ann.ContactID, nil, http.StatusOK).JSON(t, &deleted)
	if !deleted.Deleted || deleted.Revision != 3 {
		t.Fatalf("deleted %+v", deleted)
	}
	c.Do(http.MethodGet, "/api/contacts/"+ann.ContactID, nil, http.StatusNotFound)
	c.Do(http.MethodDelete, "/api/contacts/"+ann.ContactID, nil, http.StatusNotFound)
	if live, _ := c.list(""); len(live) != 0 {
		t.Fatalf("a deleted contact is listed: %+v", live)
	}
	if trash, _ := c.list("deleted=true"); len(trash) != 1 || trash[0].ContactID != ann.ContactID || !trash[0].Deleted {
		t.Fatalf("trash %+v", trash)
	}
	res := h.Do(t, "contacts", http.MethodGet, "/health", "-", nil)
	apptest.Must(t, res, http.StatusOK, "health")
	if !strings.Contains(string(res.Body), `"timestamp"`) {
		t.Fatalf("health without a timestamp: %s", res.Body)
	}
	res = h.Do(t, "contacts", http.MethodGet, "/api", "-", nil)
	apptest.Must(t, res, http.StatusOK, "api metadata")
	if !strings.Contains(string(res.Body), `"version":"1.0.0"`) {
		t.Fatalf("metadata %s", res.Body)
	}
	apptest.ExpectProblem(t, h.Do(t, "contacts", http.MethodGet, "/api/contacts", "-", nil), http.StatusUnauthorized, "authentication_required")
}

// TestNotes: add, list (newest first, paged), read, update, delete for
// good; counted on the contact; a note through another contact is 404.
func TestNotes(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	c := newClient(t, h, "")
	ann := c.create(map[string]any{"firstName": "Ann"})
	bob := c.create(map[string]any{"firstName": "Bob"})
	var ids []string
	for i := range 3 {
		var n struct {
			NoteID string `json:"note_id"`
			Body   string `json:"body"`
			Author struct {
				ID, Type string
			} `json:"author"`
		}
		c.Do(http.MethodPost, "/api/contacts/"+ann.ContactID+"/notes", map[string]any{"body": fmt.Sprintf("Call %d\nabout the offer", i)}, http.StatusCreated).JSON(t, &n)
		if n.Author.ID == "" {
			t.Fatalf("note without its author: %+v", n)
		}
		ids = append(ids, n.NoteID)
	}
	var page struct {
		Notes []struct {
			NoteID string `json:"note_id"`
		} `json:"notes"`
		NextCursor *string `json:"next_cursor"`
	}
	c.Do(http.MethodGet, "/api/contacts/"+ann.ContactID+"/notes?limit=2", nil, http.StatusOK).JSON(t, &page)
	if len(page.Notes) != 2 || page.Notes[0].NoteID != ids[2] || page.NextCursor == nil {
		t.Fatalf("first page %+v", page)
	}
	c.Do(http.MethodGet, "/api/contacts/"+ann.ContactID+"/notes?limit=2&cursor="+*page.NextCursor, nil, http.StatusOK).JSON(t, &page)
	if len(page.Notes) != 1 || page.Notes[0].NoteID != ids[0] || page.NextCursor != nil {
		t.Fatalf("second page %+v", page)
	}
	path := "/api/contacts/" + ann.ContactID + "/notes/" + ids[1]
	c.Do(http.MethodPut, path, map[string]any{"body": "Edited"}, http.StatusOK)
	res := c.Do(http.MethodGet, path, nil, http.StatusOK)
	if !strings.Contains(string(res.Body), `"body":"Edited"`) {
		t.Fatalf("note %s", res.Body)
	}
	c.Do(http.MethodGet, "/api/contacts/"+bob.ContactID+"/notes/"+ids[1], nil, http.StatusNotFound)
	c.Do(http.MethodPut, "/api/contacts/"+bob.ContactID+"/notes/"+ids[1], map[string]any{"body": "x"}, http.StatusNotFound)
	c.Do(http.MethodPost, "/api/contacts/"+ann.ContactID+"/notes", map[string]any{"body": ""}, http.StatusBadRequest)
	if got := c.get(ann.ContactID); got.NoteCount != 3 {
		t.Fatalf("note count %d", got.NoteCount)
	}
	c.Do(http.MethodDelete, path, nil, http.StatusOK)
	c.Do(http.MethodGet, path, nil, http.StatusNotFound)
	c.Do(http.MethodDelete, path, nil, http.StatusNotFound)
	if got := c.get(ann.ContactID); got.NoteCount != 2 {
		t.Fatalf("note count after delete %d", got.NoteCount)
	}
}

// TestSearch: full text with prefixes and without accents, trigrams for
// parts of words (ann in joanna@example.com, acme in ACME Corp), ranked;
// cursor pages of a search and of the plain list neither repeat nor skip.
func TestSearch(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	c := newClient(t, h, "")
	joanna := c.create(map[string]any{"firstName": "Jo", "lastName": "Smith", "email": "joanna@example.com"})
	acme := c.create(map[string]any{"firstName": "Ravi", "company": "ACME Corp"})
	jose := c.create(map[string]any{"firstName": "José", "lastName": "Núñez", "tags": []string{"partner"}})
	for i := range 9 {
		c.create(map[string]any{"firstName": fmt.Sprintf("Filler%d", i), "company": "Initech"})
	}
	cases := []struct {
		q    string
		want string
	}{
		{"ann", joanna.ContactID},
		{"acme", acme.ContactID},
		{"ACME corp", acme.ContactID},
		{"jose nunez", jose.ContactID},
		{"Núñ", jose.ContactID},
		{"partn", jose.ContactID},
		{"example.com", joanna.ContactID},
	}
	for _, tc := range cases {
		found, _ := c.list("q=" + urlq(tc.q))
		if len(found) == 0 || found[0].ContactID != tc.want {
			t.Errorf("q=%q: first %+v, want %s", tc.q, found, tc.want)
		}
	}
	if found, _ := c.list("q=zzzz"); len(found) != 0 {
		t.Errorf("q=zzzz found %+v", found)
	}
	seen := map[string]bool{}
	for _, x := range c.all("q=initech&limit=2") {
		if seen[x.ContactID] {
			t.Fatalf("%s on two pages of a search", x.ContactID)
		}
		seen[x.ContactID] = true
	}
	if len(seen) != 9 {
		t.Fatalf("search pages found %d of 9", len(seen))
	}
	all := c.all("limit=5")
	if len(all) != 12 {
		t.Fatalf("list pages found %d of 12", len(all))
	}
	for i := 1; i < len(all); i++ {
		if all[i].ContactID >= all[i-1].ContactID {
			t.Fatalf("list not newest first at %d", i)
		}
	}
	apptest.ExpectProblem(t, c.Do(http.MethodGet, "/api/contacts?cursor=bm9wZQ", nil, http.StatusBadRequest), http.StatusBadRequest, "invalid_input")
}

// TestSearchParts: a search lists its word matches (best first), then the
// contacts only a part of a word finds (oldest first), and its pages go
// from one to the other without repeating or skipping; an email typed whole
// is found when the statistics make its domain's words common (the indexes
// are asked for its rare words, the rows checked against the whole query);
// the export of a search has every match of both.
func TestSearchParts(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	c := newClient(t, h, "")
	ann := c.create(map[string]any{"firstName": "Ann", "lastName": "Lee"})
	// "ann" begins four words of Anna Ann's: she ranks first.
	anna := c.create(map[string]any{"firstName": "Anna", "lastName": "Ann", "email": "anna@ann.test"})
	// Found by a part of a word only, listed in creation (id) order.
	var parts []string
	for _, body := range []map[string]any{
		{"firstName": "Jo", "email": "joanna@example.com"},
		{"firstName": "Hannah", "lastName": "Moss"},
		{"company": "Mann GmbH"},
	} {
		parts = append(parts, c.create(body).ContactID)
	}
	for i := range 30 {
		c.create(map[string]any{"firstName": "Person", "email": fmt.Sprintf("person%d@example.com", i)})
	}
	h.Settle(t)
	// The statistics the search reads (autovacuum's ANALYZE, a minute after
	// a load): "example" and "com" are in every email, so common.
	analyze, err := h.App.Reader.SQL(context.Background(), contactsview.Projection{}, `ANALYZE {{contacts}}`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.App.Pool.Exec(context.Background(), analyze); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range c.all("q=ann&limit=1") {
		got = append(got, x.ContactID)
	}
	if want := append([]string{anna.ContactID, ann.ContactID}, parts...); !slices.Equal(got, want) {
		t.Errorf("q=ann pages %v, want %v", got, want)
	}
	for _, q := range []string{"person17@example.com", "PERSON17@example", "person17"} {
		found, _ := c.list("q=" + urlq(q))
		if len(found) != 1 || found[0].Email != "person17@example.com" {
			t.Errorf("q=%q found %+v", q, found)
		}
	}
	if found := c.all("q=" + urlq("example.com") + "&limit=7"); len(found) != 31 {
		t.Errorf("q=example.com found %d, want 31", len(found))
	}
	export := c.Do(http.MethodGet, "/api/contacts/export?q=ann", nil, http.StatusOK)
	if n := strings.Count(string(export.Body), "\n"); n != 6 {
		t.Errorf("export of q=ann: %d lines, want a header and 5 contacts:\n%s", n, export.Body)
	}
}

func urlq(s string) string { return url.QueryEscape(s) }

// TestSearchToleratesTypos: a search that finds nothing as typed lists the
// contacts found by the words of names and emails spelled like its words,
// most alike first ("smiht" finds Smith, and Smith Works as "smith" would;
// "jonna" Joanna; "nunes" Núñez), in pages that neither repeat nor skip; a
// search that finds something exactly lists only that; nothing alike is
// nothing.
func TestSearchToleratesTypos(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	c := newClient(t, h, "")
	john := c.create(map[string]any{"firstName": "John", "lastName": "Smith", "email": "john.smith@example.com"})
	kate := c.create(map[string]any{"firstName": "Kate", "lastName": "Smith"})
	smyth := c.create(map[string]any{"firstName": "Ann", "lastName": "Smyth"})
	joanna := c.create(map[string]any{"firstName": "Joanna", "lastName": "Lee"})
	nunez := c.create(map[string]any{"firstName": "María", "lastName": "Núñez", "email": "mnunez@example.org"})
	works := c.create(map[string]any{"firstName": "Zed", "company": "Smith Works"})
	for i := range 20 {
		c.create(map[string]any{"firstName": fmt.Sprintf("Filler%d", i), "company": "Initech"})
	}
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"smiht", []string{john.ContactID, kate.ContactID, works.ContactID}}, {"jonna", []string{joanna.ContactID}}, {"nunes", []string{nunez.ContactID}},
	} {
		found, _ := c.list("q=" + urlq(tc.q))
		var got []string
		for _, x := range found {
			got = append(got, x.ContactID)
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(tc.want))
		if !slices.Equal(got, want) {
			t.Errorf("q=%q: found %+v, want %v", tc.q, found, tc.want)
		}
	}
	// An email typed wrong: the most alike first (others share its domain).
	if found, _ := c.list("q=" + urlq("mnunes@example.org")); len(found) == 0 || found[0].ContactID != nunez.ContactID {
		t.Errorf("q=mnunes@example.org found %+v, want Núñez first", found)
	}
	// Exact hits only, when there are any.
	if found, _ := c.list("q=smith"); len(found) != 3 || slices.ContainsFunc(found, func(x contact) bool { return x.ContactID == smyth.ContactID }) {
		t.Errorf("q=smith found %+v, want the Smiths and Smith Works only", found)
	}
	if found, _ := c.list("q=zqxj"); len(found) != 0 {
		t.Errorf("q=zqxj found %+v", found)
	}
	// Pages of similar matches: every one once.
	var pages []string
	for _, x := range c.all("q=smiht&limit=1") {
		pages = append(pages, x.ContactID)
	}
	if slices.Sort(pages); !slices.Equal(pages, slices.Sorted(slices.Values([]string{john.ContactID, kate.ContactID, works.ContactID}))) {
		t.Errorf("q=smiht pages %v, want the Smiths and Smith Works once each", pages)
	}
}
