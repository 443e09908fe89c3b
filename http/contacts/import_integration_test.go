package contacts_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/platform/backend/internal/apptest"
)

const peopleCSV = "Email,First Name,Last Name,Company,Tags,Stage\r\n" +
	"ann@example.com,Ann,Lee,ACME Corp,vip;lead,Qualified\r\n" +
	"BOB@example.com,Bob,Stone,Initech,,\r\n" +
	",Carla,Diaz,Globex,partner,\r\n" +
	"Ann@Example.com,,,,,\r\n" + // the same person as line 2: no second contact
	"not-an-address,Dan,,,,\r\n" // refused, with its line and column

// TestImportTwiceMakesNoDuplicate: a file that names one person twice makes
// one contact; the same file imported again (another import) matches every
// row (email, else name + company) and changes nothing; repeating the
// import id answers the first import again and imports nothing.
func TestImportTwiceMakesNoDuplicate(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	c := newClient(t, h, "")
	var first report
	c.importCSV("importId=first", peopleCSV, http.StatusOK).JSON(t, &first)
	if first.State != "completed" || first.Rows != 5 || first.Created != 3 || first.Failed != 1 {
		t.Fatalf("first import %+v", first)
	}
	if len(first.Errors) != 1 || first.Errors[0].Line != 6 || first.Errors[0].Column != 1 || first.Errors[0].Field != "email" {
		t.Fatalf("row error %+v", first.Errors)
	}
	var second report
	c.importCSV("importId=second", peopleCSV, http.StatusOK).JSON(t, &second)
	if second.Created != 0 || second.Updated != 0 || second.Unchanged != 4 {
		t.Fatalf("second import %+v", second)
	}
	var again report
	c.importCSV("importId=first", peopleCSV, http.StatusOK).JSON(t, &again)
	if again.ImportID != "first" || again.Created != 3 || again.State != "completed" {
		t.Fatalf("repeated import id %+v", again)
	}
	if all := c.all("limit=50"); len(all) != 3 {
		t.Fatalf("%d contacts after importing twice, want 3: %+v", len(all), all)
	}
	ann, _ := c.list("q=ann%40example.com")
	if len(ann) != 1 || ann[0].StageID != "qualified" || strings.Join(ann[0].Tags, ",") != "vip,lead" || ann[0].LastName != "Lee" {
		t.Fatalf("ann %+v", ann)
	}
	// Another file under a used import id is refused, nothing imported.
	apptest.ExpectProblem(t, c.importCSV("importId=first", "Email\r\nzed@example.com\r\n", http.StatusBadRequest), http.StatusBadRequest, "invalid_input")
	var skip report
	c.importCSV("onMatch=skip", "email,first name\r\nann@example.com,Changed\r\nnew@example.com,New\r\n", http.StatusOK).JSON(t, &skip)
	if skip.Skipped != 1 || skip.Created != 1 {
		t.Fatalf("skip %+v", skip)
	}
	var upd report
	c.importCSV("map.email=Mail&map.jobTitle=Role", "Mail,Role,First Name\r\nann@example.com,CEO,Ignored\r\n", http.StatusOK).JSON(t, &upd)
	if upd.Updated != 1 {
		t.Fatalf("mapped update %+v", upd)
	}
	got, _ := c.list("q=ann%40example.com")
	if got[0].JobTitle != "CEO" || got[0].FirstName != "Ann" {
		t.Fatalf("after a mapped update %+v", got[0])
	}
	var dup report
	c.importCSV("onMatch=create", "email\r\nann@example.com\r\n", http.StatusOK).JSON(t, &dup)
	if dup.Created != 1 {
		t.Fatalf("create mode %+v", dup)
	}
}

// TestImportUndoRestoresExactly: an undo removes what the import created,
// restores what it updated to its state before (fields and stage, the move
// back recorded), and leaves a contact edited since the import alone.
func TestImportUndoRestoresExactly(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	c := newClient(t, h, "")
	ann := c.create(map[string]any{"firstName": "Ann", "email": "ann@example.com", "phone": "1", "tags": []string{"old"}})
	bob := c.create(map[string]any{"firstName": "Bob", "email": "bob@example.com"})
	before := c.get(ann.ContactID)
	file := "email,first name,phone,tags,stage\r\nann@example.com,Anne,2,new,won\r\nbob@example.com,Bobby,,,\r\nnew@example.com,New,,,\r\n"
	var imp report
	c.importCSV("importId=to-undo", file, http.StatusOK).JSON(t, &imp)
	if imp.Updated != 2 || imp.Created != 1 {
		t.Fatalf("import %+v", imp)
	}
	if got := c.get(ann.ContactID); got.FirstName != "Anne" || got.StageID != "won" {
		t.Fatalf("imported ann %+v", got)
	}
	c.Do(http.MethodPut, "/api/contacts/"+bob.ContactID, map[string]any{"firstName": "Robert", "email": "bob@example.com"}, http.StatusOK)
	var undone report
	c.Do(http.MethodPost, "/api/imports/to-undo/undo", nil, http.StatusOK).JSON(t, &undone)
	if undone.State != "undone" || undone.Removed != 1 || undone.Restored != 1 || len(undone.Conflicts) != 1 || undone.Conflicts[0] != bob.ContactID {
		t.Fatalf("undo %+v (body)", undone)
	}
	after := c.get(ann.ContactID)
	after.Revision, before.Revision = 0, 0
	if fmt.Sprintf("%+v", after) != fmt.Sprintf("%+v", before) {
		t.Fatalf("undo did not restore exactly:\n before %+v\n after  %+v", before, after)
	}
	if got := c.get(bob.ContactID); got.FirstName != "Robert" {
		t.Fatalf("a contact edited after the import was overwritten: %+v", got)
	}
	if all := c.all(""); len(all) != 2 {
		t.Fatalf("the created contact is still there: %+v", all)
	}
	var history struct {
		Moves []struct {
			From   *string `json:"from_stage_id"`
			To     string  `json:"to_stage_id"`
			Source string  `json:"source"`
		} `json:"moves"`
	}
	c.Do(http.MethodGet, "/api/pipeline/"+ann.ContactID+"/history", nil, http.StatusOK).JSON(t, &history)
	if len(history.Moves) != 3 || history.Moves[1].Source != "import" || history.Moves[2].Source != "undo" || history.Moves[2].To != "lead" {
		t.Fatalf("history %+v", history.Moves)
	}
	var again report
	c.Do(http.MethodPost, "/api/imports/to-undo/undo", nil, http.StatusOK).JSON(t, &again)
	if again.Removed != 1 || again.Restored != 1 {
		t.Fatalf("undo twice %+v", again)
	}
	var stored report
	c.Do(http.MethodGet, "/api/imports/to-undo", nil, http.StatusOK).JSON(t, &stored)
	if stored.State != "undone" {
		t.Fatalf("import %+v", stored)
	}
	c.Do(http.MethodGet, "/api/imports/nope", nil, http.StatusNotFound)
	c.Do(http.MethodPost, "/api/imports/nope/undo", nil, http.StatusNotFound)
}

// TestSoftDeletedEmailIsImportedAgain: a soft-deleted contact never blocks
// its email: the import creates a new contact.
func TestSoftDeletedEmailIsImportedAgain(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	c := newClient(t, h, "")
	old := c.create(map[string]any{"firstName": "Ann", "email": "ann@example.com"})
	c.Do(http.MethodDelete, "/api/contacts/"+old.ContactID, nil, http.StatusOK)
	var r report
	c.importCSV("", "email,first name\r\nann@example.com,Ann\r\n", http.StatusOK).JSON(t, &r)
	if r.Created != 1 || r.Updated != 0 {
		t.Fatalf("import %+v", r)
	}
	live := c.all("")
	if len(live) != 1 || live[0].ContactID == old.ContactID || live[0].Email != "ann@example.com" {
		t.Fatalf("live %+v", live)
	}
	created := c.create(map[string]any{"email": "ann@example.com"}) // the API never blocks it either
	if created.ContactID == old.ContactID {
		t.Fatal("same id")
	}
}

// TestImportDryRun: what each row would do and every row error with its
// line and column; nothing is written.
func TestImportDryRun(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	c := newClient(t, h, "")
	c.create(map[string]any{"firstName": "Ann", "email": "ann@example.com"})
	var r report
	c.importCSV("dryRun=true", peopleCSV, http.StatusOK).JSON(t, &r)
	if r.State != "dry_run" || r.Created != 2 || r.Updated != 1 || r.Failed != 1 || len(r.Outcomes) != 4 {
		t.Fatalf("dry run %+v", r)
	}
	if r.Outcomes[0].Action != "update" || r.Outcomes[3].Action != "unchanged" || r.Outcomes[1].Action != "create" {
		t.Fatalf("outcomes %+v", r.Outcomes)
	}
	if r.Errors[0].Line != 6 || r.Errors[0].Column != 1 {
		t.Fatalf("errors %+v", r.Errors)
	}
	if all := c.all(""); len(all) != 1 || all[0].FirstName != "Ann" || all[0].LastName != "" {
		t.Fatalf("a dry run wrote: %+v", all)
	}
}

// TestMalformedCSV: a file that is not readable CSV is 400 naming its
// line, never a 500, and nothing of it is imported.
func TestMalformedCSV(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	c := newClient(t, h, "")
	long := strings.Repeat("x", 10<<20)
	cases := []struct {
		name, file string
		line       int
	}{
		{"an unterminated quote", "email,first name\r\nann@example.com,Ann\r\nbob@example.com,\"Bob\r\n", 3},
		{"a bare quote", "email,first name\r\nann@example.com,Ann\r\nbob@example.com,B\"ob\r\n", 3},
		{"invalid UTF-8", "email,first name\r\nann@example.com,Ann\r\nbob@example.com,B\xffob\r\n", 3},
		{"a 10 MB line", "email,first name\r\nann@example.com,Ann\r\nbob@example.com," + long + "\r\n", 3},
		{"a header only with a bad quote", "email,\"first\r\n", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := c.importCSV("importId=bad", tc.file, http.StatusBadRequest)
			p := apptest.ExpectProblem(t, res, http.StatusBadRequest, "invalid_input")
			if !strings.Contains(p.Detail, fmt.Sprintf("line %d", tc.line)) || len(p.Errors) != 1 || p.Errors[0].Pointer != "/body" {
				t.Fatalf("problem %+v", p)
			}
			c.Do(http.MethodGet, "/api/imports/bad", nil, http.StatusNotFound)
		})
	}
	apptest.ExpectProblem(t, c.importCSV("", "", http.StatusBadRequest), http.StatusBadRequest, "invalid_input") // no file at all
	apptest.ExpectProblem(t, h.Do(t, "contacts", http.MethodPost, "/api/contacts/import", "", []byte("email\r\nx@y.z\r\n")),
		http.StatusUnsupportedMediaType, "unsupported_media_type")
	apptest.ExpectProblem(t, c.importCSV("", "foo,bar\r\n1,2\r\n", http.StatusBadRequest), http.StatusBadRequest, "invalid_input")
	apptest.ExpectProblem(t, c.importCSV("map.email=Missing", "email\r\nx@y.z\r\n", http.StatusBadRequest), http.StatusBadRequest, "invalid_input")
	if all := c.all(""); len(all) != 0 {
		t.Fatalf("a refused file imported %+v", all)
	}
}
