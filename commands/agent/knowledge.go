package agent

import (
	"context"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/agent"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// AddDocument adds a document to the organization's knowledge: what the
// public assistant answers from, with a link to it.
func (h *Handlers) AddDocument(ctx context.Context, m commands.Meta, in domain.DocumentInput) (commands.Result[domain.Document], error) {
	id := uuid.Must(uuid.NewV7()).String()
	now := h.now()
	return h.onDocument(ctx, m, id, func(d *domain.Document) ([]event.Change, error) { return d.Add(id, in, now) })
}

// UpdateDocument is knowledge.update's input.
type UpdateDocument struct {
	DocumentID string  `json:"documentId"`
	Title      *string `json:"title"`
	URL        *string `json:"url"`
	Content    *string `json:"content"`
}

// UpdateDocument changes a document.
func (h *Handlers) UpdateDocument(ctx context.Context, m commands.Meta, in UpdateDocument) (commands.Result[domain.Document], error) {
	now := h.now()
	return h.onDocument(ctx, m, in.DocumentID, func(d *domain.Document) ([]event.Change, error) {
		return d.Update(domain.DocumentPatch{Title: in.Title, URL: in.URL, Content: in.Content}, now)
	})
}

// DocumentRef names a document.
type DocumentRef struct {
	DocumentID string `json:"documentId"`
}

// RemoveDocument takes a document out of the knowledge.
func (h *Handlers) RemoveDocument(ctx context.Context, m commands.Meta, in DocumentRef) (commands.Result[domain.Document], error) {
	now := h.now()
	return h.onDocument(ctx, m, in.DocumentID, func(d *domain.Document) ([]event.Change, error) { return d.Remove(now) })
}

func (h *Handlers) onDocument(ctx context.Context, m commands.Meta, id string, act func(*domain.Document) ([]event.Change, error)) (commands.Result[domain.Document], error) {
	if !validID(id) {
		return commands.Result[domain.Document]{}, errs.NotFound("document")
	}
	res, err := commands.Execute(ctx, h.store, m, domain.StreamKnowledge, id, domain.LoadDocument, act,
		func(d *domain.Document) domain.Document { return *d })
	return res, missing(err, domain.StreamKnowledge, "document")
}
