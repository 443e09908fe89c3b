package contacts_test

import (
	"bytes"
	"encoding/csv"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/module"
	contactsmod "github.com/platform/backend/internal/modules/contacts"
)

// TestAttachments: upload (multipart), list, download with its content
// type, delete for good; above the configured size 413 with nothing
// stored, whether the length is declared or the body is chunked.
func TestAttachments(t *testing.T) {
	h := apptest.Start(t, apptest.Options{Configure: func(cfg *appConfig) {
		module.SectionOf[*contactsmod.Config](cfg.Modules).Limits.AttachmentMaxBytes = 1024
	}})
	c := newClient(t, h, "")
	ann := c.create(map[string]any{"firstName": "Ann"})
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 100)...)
	var a struct {
		AttachmentID string `json:"attachment_id"`
		ContentType  string `json:"content_type"`
		Filename     string `json:"filename"`
		Size         int64  `json:"size"`
		SHA256       string `json:"sha256"`
	}
	c.upload(ann.ContactID, "../../logo.png", "", png, http.StatusCreated).JSON(t, &a) // no declared type: sniffed
	if a.ContentType != "image/png" || a.Filename != "logo.png" || a.Size != int64(len(png)) || len(a.SHA256) != 64 {
		t.Fatalf("attachment %+v", a)
	}
	c.upload(ann.ContactID, "notes.txt", "text/plain", []byte("hello"), http.StatusCreated)
	var list struct {
		Attachments []struct {
			AttachmentID string `json:"attachment_id"`
		} `json:"attachments"`
	}
	c.Do(http.MethodGet, "/api/contacts/"+ann.ContactID+"/attachments", nil, http.StatusOK).JSON(t, &list)
	if len(list.Attachments) != 2 || list.Attachments[1].AttachmentID != a.AttachmentID {
		t.Fatalf("list %+v", list)
	}
	if got := c.get(ann.ContactID); got.AttachmentCount != 2 {
		t.Fatalf("attachment count %d", got.AttachmentCount)
	}
	res := c.Do(http.MethodGet, "/api/attachments/"+a.AttachmentID, nil, http.StatusOK)
	if res.Header.Get("Content-Type") != "image/png" || !bytes.Equal(res.Body, png) || !strings.Contains(res.Header.Get("Content-Disposition"), "logo.png") {
		t.Fatalf("download %v %d bytes", res.Header, len(res.Body))
	}
	files := objectFiles(t, h)
	// 413 by the declared length, before anything is read.
	big := bytes.Repeat([]byte("x"), 70<<10)
	p := apptest.ExpectProblem(t, c.upload(ann.ContactID, "big.bin", "application/octet-stream", big, http.StatusRequestEntityTooLarge),
		http.StatusRequestEntityTooLarge, "payload_too_large")
	if p.Detail == "" {
		t.Fatal("no detail")
	}
	// 413 while streaming: the part is larger than the limit, the body
	// within the route's bound (chunked, no length).
	body, ct := multipartFile(t, "over.bin", "application/octet-stream", bytes.Repeat([]byte("y"), 2048))
	req, err := http.NewRequest(http.MethodPost, h.URLs["contacts"]+"/api/contacts/"+ann.ContactID+"/attachments", io.MultiReader(bytes.NewReader(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+h.APIKey)
	req.Header.Set("Content-Type", ct)
	resp, err := h.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || req.ContentLength != 0 {
		t.Fatalf("chunked oversize: %d (length %d)", resp.StatusCode, req.ContentLength)
	}
	if got := objectFiles(t, h); got != files {
		t.Fatalf("an oversized upload left files: %d, before %d", got, files)
	}
	c.Do(http.MethodGet, "/api/contacts/"+ann.ContactID+"/attachments", nil, http.StatusOK).JSON(t, &list)
	if len(list.Attachments) != 2 {
		t.Fatalf("an oversized upload was recorded: %+v", list)
	}
	c.upload("00000000-0000-7000-8000-000000000000", "x.txt", "text/plain", []byte("x"), http.StatusNotFound)
	res = h.Do(t, "contacts", http.MethodPost, "/api/contacts/"+ann.ContactID+"/attachments", "", []byte("--x\r\n\r\n"), "Content-Type", "multipart/form-data; boundary=x")
	apptest.ExpectProblem(t, res, http.StatusBadRequest, "invalid_input")
	c.Do(http.MethodDelete, "/api/attachments/"+a.AttachmentID, nil, http.StatusOK)
	c.Do(http.MethodGet, "/api/attachments/"+a.AttachmentID, nil, http.StatusNotFound)
	c.Do(http.MethodDelete, "/api/attachments/"+a.AttachmentID, nil, http.StatusNotFound)
	if got := objectFiles(t, h); got >= files {
		t.Fatalf("the deleted attachment's file is still there: %d files, %d before", got, files)
	}
}

// TestExport: a streamed CSV of the live contacts with every field, stage
// and pipeline names, tags and note counts, and cells that would be
// formulas neutralised.
func TestExport(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	c := newClient(t, h, "")
	ann := c.create(map[string]any{"firstName": "=HYPERLINK(\"http://x\")", "lastName": "Lee", "email": "ann@example.com",
		"phone": "+1 555 0100", "company": "@ACME", "tags": []string{"vip", "-lead"}, "stageId": "qualified"})
	c.Do(http.MethodPost, "/api/contacts/"+ann.ContactID+"/notes", map[string]any{"body": "hello"}, http.StatusCreated)
	gone := c.create(map[string]any{"firstName": "Gone"})
	c.Do(http.MethodDelete, "/api/contacts/"+gone.ContactID, nil, http.StatusOK)
	res := c.Do(http.MethodGet, "/api/contacts/export", nil, http.StatusOK)
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("content type %q", res.Header.Get("Content-Type"))
	}
	records, err := csv.NewReader(bytes.NewReader(res.Body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(records) != 2 {
		t.Fatalf("export %q", records)
	}
	row := map[string]string{}
	for i, col := range records[0] {
		row[col] = records[1][i]
	}
	want := map[string]string{"contact_id": ann.ContactID, "first_name": `'=HYPERLINK("http://x")`, "last_name": "Lee",
		"email": "ann@example.com", "phone": "'+1 555 0100", "company": "'@ACME", "tags": "vip; -lead", "pipeline": "Sales",
		"stage": "Qualified", "note_count": "1", "attachment_count": "0"}
	for k, v := range want {
		if row[k] != v {
			t.Errorf("%s: %q, want %q", k, row[k], v)
		}
	}
	// What it exports imports back to the same contact.
	var r report
	c.importCSV("", string(res.Body), http.StatusOK).JSON(t, &r)
	if r.Created != 0 {
		t.Fatalf("re-importing the export created %+v", r)
	}
}
