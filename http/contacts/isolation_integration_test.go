package contacts_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/testenv"
)

// TestAnotherOrganizationsIDsAreMissingOnes: every route that names an id,
// called by another organization with the first one's ids, answers exactly
// as it does for an id that exists nowhere; the lists, the search, the
// export and the import of the other organization never see the first
// one's contacts; nothing of the first organization changes.
func TestAnotherOrganizationsIDsAreMissingOnes(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	owner := newClient(t, h, "")
	_, otherKey := h.NewOrganization(t, "Other Org", testenv.UniqueName("other"), apptest.DefaultScopes...)
	other := newClient(t, h, otherKey)
	ann := owner.create(map[string]any{"firstName": "Ann", "email": "ann@example.com"})
	var note struct {
		NoteID string `json:"note_id"`
	}
	owner.Do(http.MethodPost, "/api/contacts/"+ann.ContactID+"/notes", map[string]any{"body": "secret"}, http.StatusCreated).JSON(t, &note)
	var file struct {
		AttachmentID string `json:"attachment_id"`
	}
	owner.upload(ann.ContactID, "a.txt", "text/plain", []byte("secret"), http.StatusCreated).JSON(t, &file)
	owner.importCSV("importId=owners", "email,first name\r\nbob@example.com,Bob\r\n", http.StatusOK)
	var pipelines struct {
		Pipelines []struct {
			PipelineID string `json:"pipeline_id"`
		} `json:"pipelines"`
	}
	owner.Do(http.MethodGet, "/api/pipeline", nil, http.StatusOK).JSON(t, &pipelines)
	h.Settle(t)
	before := owner.get(ann.ContactID)

	const missing = "00000000-0000-7000-8000-00000000dead"
	type probe struct {
		method, path, missingPath string
		body                      any
	}
	paths := func(contact, noteID, attachment, pipeline, importID string) []probe {
		return []probe{
			{method: http.MethodGet, path: "/api/contacts/" + contact},
			{method: http.MethodPut, path: "/api/contacts/" + contact, body: map[string]any{"firstName": "Mallory"}},
			{method: http.MethodGet, path: "/api/contacts/" + contact + "/notes"},
			{method: http.MethodPost, path: "/api/contacts/" + contact + "/notes", body: map[string]any{"body": "x"}},
			{method: http.MethodGet, path: "/api/contacts/" + contact + "/notes/" + noteID},
			{method: http.MethodPut, path: "/api/contacts/" + contact + "/notes/" + noteID, body: map[string]any{"body": "x"}},
			{method: http.MethodDelete, path: "/api/contacts/" + contact + "/notes/" + noteID},
			{method: http.MethodGet, path: "/api/contacts/" + contact + "/attachments"},
			{method: http.MethodGet, path: "/api/attachments/" + attachment},
			{method: http.MethodDelete, path: "/api/attachments/" + attachment},
			{method: http.MethodGet, path: "/api/pipeline/" + pipeline},
			{method: http.MethodGet, path: "/api/pipeline/" + pipeline + "/board"},
			{method: http.MethodPut, path: "/api/pipeline/" + contact + "/move", body: map[string]any{"stageId": "won"}},
			{method: http.MethodGet, path: "/api/pipeline/" + contact + "/history"},
			{method: http.MethodGet, path: "/api/imports/" + importID},
			{method: http.MethodPost, path: "/api/imports/" + importID + "/undo"},
			{method: http.MethodDelete, path: "/api/contacts/" + contact},
		}
	}
	theirs := paths(ann.ContactID, note.NoteID, file.AttachmentID, pipelines.Pipelines[0].PipelineID, "owners")
	nowhere := paths(missing, missing, missing, missing, "nowhere")
	for i, p := range theirs {
		got := h.Do(t, "contacts", p.method, p.path, otherKey, p.body)
		want := h.Do(t, "contacts", nowhere[i].method, nowhere[i].path, otherKey, nowhere[i].body)
		gp, wp := problemOf(t, got), problemOf(t, want)
		if got.Status != want.Status || gp.Code != wp.Code || gp.Detail != wp.Detail || got.Status != http.StatusNotFound {
			t.Errorf("%s %s: %d %s %q; a missing id: %d %s %q", p.method, p.path, got.Status, gp.Code, gp.Detail, want.Status, wp.Code, wp.Detail)
		}
	}
	// Uploading to another organization's contact: 404 before any byte is stored.
	files := objectFiles(t, h)
	other.upload(ann.ContactID, "x.txt", "text/plain", []byte("x"), http.StatusNotFound)
	if objectFiles(t, h) != files {
		t.Fatal("an upload to another organization's contact stored a file")
	}
	if list, _ := other.list(""); len(list) != 0 {
		t.Fatalf("the other organization lists %+v", list)
	}
	if found, _ := other.list("q=ann"); len(found) != 0 {
		t.Fatalf("the other organization's search found %+v", found)
	}
	export := other.Do(http.MethodGet, "/api/contacts/export", nil, http.StatusOK)
	if bytes.Contains(export.Body, []byte("ann@example.com")) || strings.Count(string(export.Body), "\n") != 1 {
		t.Fatalf("the other organization's export: %s", export.Body)
	}
	var r report
	other.importCSV("importId=owners", "email,first name\r\nann@example.com,Ann\r\n", http.StatusOK).JSON(t, &r)
	if r.Created != 1 || r.Updated != 0 {
		t.Fatalf("the other organization's import matched the owner's contact: %+v", r)
	}
	after := owner.get(ann.ContactID)
	if after.Revision != before.Revision || after.NoteCount != 1 || after.AttachmentCount != 1 || after.FirstName != "Ann" {
		t.Fatalf("the owner's contact changed: %+v -> %+v", before, after)
	}
	var imp report
	owner.Do(http.MethodGet, "/api/imports/owners", nil, http.StatusOK).JSON(t, &imp)
	if imp.State != "completed" {
		t.Fatalf("the owner's import %+v", imp)
	}
}

func problemOf(t *testing.T, r apptest.Response) apptest.Problem {
	t.Helper()
	var p apptest.Problem
	if r.Status >= 400 {
		r.JSON(t, &p)
	}
	return p
}
