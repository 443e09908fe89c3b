package contacts_test

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
)

type appConfig = app.Config

// client talks to the contacts service as one organization's key and reads
// its own writes (apptest.Client); the helpers below create, read, list,
// import and upload.
type client struct {
	*apptest.Client
	t     *testing.T
	h     *apptest.Harness
	token string
}

func newClient(t *testing.T, h *apptest.Harness, token string) *client {
	return &client{Client: h.NewClient(t, "contacts", token), t: t, h: h, token: token}
}

// importCSV posts a file to the import route with query (e.g. "onMatch=skip").
func (c *client) importCSV(query, file string, want int) apptest.Response {
	c.t.Helper()
	return c.Do(http.MethodPost, "/api/contacts/import?"+query, []byte(file), want, "Content-Type", "text/csv")
}

// upload posts one file as the multipart part "file".
func (c *client) upload(contactID, filename, contentType string, content []byte, want int) apptest.Response {
	c.t.Helper()
	body, ct := multipartFile(c.t, filename, contentType, content)
	return c.Do(http.MethodPost, "/api/contacts/"+contactID+"/attachments", body, want, "Content-Type", ct)
}

func multipartFile(t *testing.T, filename, contentType string, content []byte) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	h := make(map[string][]string)
	h["Content-Disposition"] = []string{`form-data; name="file"; filename="` + filename + `"`}
	if contentType != "" {
		h["Content-Type"] = []string{contentType}
	}
	part, err := w.CreatePart(h)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := part.Write(content); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), w.FormDataContentType()
}

// contact is a contact as the API answers it.
type contact struct {
	ContactID       string   `json:"contact_id"`
	FirstName       string   `json:"first_name"`
	LastName        string   `json:"last_name"`
	Email           string   `json:"email"`
	Phone           string   `json:"phone"`
	Company         string   `json:"company"`
	JobTitle        string   `json:"job_title"`
	Tags            []string `json:"tags"`
	PipelineID      string   `json:"pipeline_id"`
	StageID         string   `json:"stage_id"`
	Deleted         bool     `json:"deleted"`
	Revision        int      `json:"revision"`
	NoteCount       int      `json:"note_count"`
	AttachmentCount int      `json:"attachment_count"`
}

func (c *client) create(fields map[string]any) contact {
	c.t.Helper()
	var out contact
	c.Do(http.MethodPost, "/api/contacts", fields, http.StatusCreated).JSON(c.t, &out)
	return out
}

func (c *client) get(id string) contact {
	c.t.Helper()
	var out contact
	c.Do(http.MethodGet, "/api/contacts/"+id, nil, http.StatusOK).JSON(c.t, &out)
	return out
}

// list reads one page of GET /api/contacts?query.
func (c *client) list(query string) (contacts []contact, next *string) {
	c.t.Helper()
	var page struct {
		Contacts   []contact `json:"contacts"`
		NextCursor *string   `json:"next_cursor"`
	}
	c.Do(http.MethodGet, "/api/contacts?"+query, nil, http.StatusOK).JSON(c.t, &page)
	return page.Contacts, page.NextCursor
}

// all reads every page of a list.
func (c *client) all(query string) []contact {
	c.t.Helper()
	var out []contact
	cursor := ""
	for {
		q := query
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		page, next := c.list(q)
		out = append(out, page...)
		if next == nil {
			return out
		}
		cursor = *next
	}
}

// report is an import's answer.
type report struct {
	ImportID  string `json:"import_id"`
	State     string `json:"state"`
	Rows      int    `json:"rows"`
	Created   int    `json:"created"`
	Updated   int    `json:"updated"`
	Unchanged int    `json:"unchanged"`
	Skipped   int    `json:"skipped"`
	Failed    int    `json:"failed"`
	Removed   int    `json:"removed"`
	Restored  int    `json:"restored"`
	Conflicts []string
	Errors    []struct {
		Line   int    `json:"line"`
		Column int    `json:"column"`
		Field  string `json:"field"`
		Detail string `json:"detail"`
	} `json:"errors"`
	Outcomes []struct {
		Line      int    `json:"line"`
		Action    string `json:"action"`
		ContactID string `json:"contact_id"`
	} `json:"outcomes"`
}

// objectFiles counts the files under the harness's object store directory.
func objectFiles(t *testing.T, h *apptest.Harness) int {
	t.Helper()
	u, err := url.Parse(h.Config.Objects.URL)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = filepath.WalkDir(u.Path, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return n
}

func readAll(t *testing.T, r io.Reader) string {
	t.Helper()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func lines(s ...string) string { return strings.Join(s, "\r\n") + "\r\n" }
