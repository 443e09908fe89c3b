package agent

import (
	"strings"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/text"
)

// MaxDocument bounds a knowledge document's content (characters).
const MaxDocument = 50000

// DocumentInput is a knowledge document as a person writes it.
type DocumentInput struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Content string `json:"content"`
}

// DocumentV1 is a document added or changed: all of it.
type DocumentV1 struct {
	DocumentID string    `json:"document_id"`
	Title      string    `json:"title"`
	URL        string    `json:"url,omitempty"`
	Content    string    `json:"content"`
	At         time.Time `json:"at"`
}

// DocumentRemovedV1 is a document taken out of the knowledge.
type DocumentRemovedV1 struct {
	DocumentID string    `json:"document_id"`
	At         time.Time `json:"at"`
}

// Document is the write model of a knowledge document.
type Document struct {
	ID        string    `json:"documentId"`
	Title     string    `json:"title"`
	URL       string    `json:"url"`
	Content   string    `json:"content"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	removed   bool
}

// LoadDocument folds a document's stream.
func LoadDocument(history []event.Recorded) (*Document, error) {
	return documentFold.Load(&Document{}, history)
}

var documentFold = event.Fold[*Document]{
	DocumentAdded: event.Apply(func(d *Document, p DocumentV1) {
		*d = Document{ID: p.DocumentID, Title: p.Title, URL: p.URL, Content: p.Content, CreatedAt: p.At, UpdatedAt: p.At}
	}),
	DocumentUpdated: event.Apply(func(d *Document, p DocumentV1) {
		d.Title, d.URL, d.Content, d.UpdatedAt = p.Title, p.URL, p.Content, p.At
	}),
	DocumentRemoved: event.Mark(func(d *Document) { d.removed = true }),
}

// Exists: added and not removed.
func (d *Document) Exists() bool { return d.ID != "" && !d.removed }

// CheckLink names a link's problem: a source link is shown to a public
// site's visitors, so only an absolute http(s) URL is one.
func CheckLink(fields []errs.Field, pointer, s string) []errs.Field {
	if s == "" {
		return fields
	}
	return text.URL(fields, pointer, s, text.URLRules{Detail: "must be an absolute http or https URL without credentials"})
}

func (in *DocumentInput) check() error {
	in.Title, in.Content, in.URL = text.Trim(in.Title), strings.TrimSpace(in.Content), strings.TrimSpace(in.URL)
	var f []errs.Field
	if in.Title == "" {
		f = append(f, errs.Field{Pointer: "/title", Detail: "a document needs a title"})
	}
	f = text.Line(f, "/title", in.Title, text.MaxTitle)
	if in.Content == "" {
		f = append(f, errs.Field{Pointer: "/content", Detail: "a document needs content"})
	}
	f = text.MultiLine(f, "/content", in.Content, MaxDocument)
	f = CheckLink(f, "/url", in.URL)
	if len(f) > 0 {
		return errs.Invalid(f...)
	}
	return nil
}

// Add makes the document.
func (d *Document) Add(id string, in DocumentInput, now time.Time) ([]event.Change, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	if d.ID != "" {
		return nil, errs.Conflict("document_exists", "a document with this id exists")
	}
	return []event.Change{event.New(DocumentAdded, DocumentV1{DocumentID: id, Title: in.Title, URL: in.URL, Content: in.Content, At: now})}, nil
}

// DocumentPatch changes some of a document's members.
type DocumentPatch struct {
	Title   *string `json:"title"`
	URL     *string `json:"url"`
	Content *string `json:"content"`
}

// Update changes the members a patch names.
func (d *Document) Update(p DocumentPatch, now time.Time) ([]event.Change, error) {
	if !d.Exists() {
		return nil, errs.NotFound("document")
	}
	in := DocumentInput{Title: d.Title, URL: d.URL, Content: d.Content}
	if p.Title != nil {
		in.Title = *p.Title
	}
	if p.URL != nil {
		in.URL = *p.URL
	}
	if p.Content != nil {
		in.Content = *p.Content
	}
	if err := in.check(); err != nil {
		return nil, err
	}
	if in.Title == d.Title && in.URL == d.URL && in.Content == d.Content {
		return nil, nil
	}
	return []event.Change{event.New(DocumentUpdated, DocumentV1{DocumentID: d.ID, Title: in.Title, URL: in.URL, Content: in.Content, At: now})}, nil
}

// Remove takes the document out of the knowledge.
func (d *Document) Remove(now time.Time) ([]event.Change, error) {
	if !d.Exists() {
		return nil, errs.NotFound("document")
	}
	return []event.Change{event.New(DocumentRemoved, DocumentRemovedV1{DocumentID: d.ID, At: now})}, nil
}
