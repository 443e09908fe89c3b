// Package contacts is seed 002's contacts API: every route of its table,
// on its own listener, with a credential on every route but /health and
// /api (seed 002 declares none; every platform service requires one), and
// invalid input answered 400 as the seed's table says.
package contacts

import (
	"context"
	"net/http"
	"slices"

	contactscmd "github.com/platform/backend/commands/contacts"
	domain "github.com/platform/backend/domain/contacts"
	"github.com/platform/backend/domain/principal"
	httpapi "github.com/platform/backend/http"
	"github.com/platform/backend/internal/objectstore"
	contactsview "github.com/platform/backend/projections/contacts"
)

// Deps are what the contacts service's routes call.
type Deps struct {
	Commands *contactscmd.Handlers
	Queries  *contactsview.Queries
	Objects  objectstore.Store
	Config   contactscmd.Config
}

// Permissions of the contacts app (its catalog entry: internal/modules/contacts).
const (
	read   = "contacts:read"
	write  = "contacts:write"
	manage = "contacts:manage" // admins and above by default: erasures
)

// Service is the contacts API.
func Service(d Deps) httpapi.Service {
	actions := []httpapi.Action{
		{Name: "api.get", Method: http.MethodGet, Path: "/api", ReadOnly: true,
			Summary: "API metadata: name, description version, routes, where the OpenAPI document is", OutputSchema: apiOut},
		httpapi.Query(httpapi.Action{Name: "contacts.list", Method: http.MethodGet, Path: "/api/contacts", Permission: read, ReadOnly: true,
			Summary:   "Contacts, newest first, or with q a search over names, emails, companies and tags (best match first); stable cursor pages",
			ReadModel: contactsview.Name, OutputSchema: pageOut,
			InputSchema: httpapi.Object(nil, map[string]string{"q": httpapi.LineSchema(0, text200), "stageId": stageSchema,
				"deleted": booleanSchema, "cursor": cursorSchema, "limit": limitSchema})}, d.listContacts),
		httpapi.Command(httpapi.Action{Name: "contacts.create", ReadModel: contactsview.Name, Method: http.MethodPost, Path: "/api/contacts", Permission: write,
			SuccessStatus: http.StatusCreated, Summary: "Create a contact (in the first stage of the default pipeline, or stageId)",
			OutputSchema: contactOut, InputSchema: needsAName(httpapi.Object(nil, contactMembers(map[string]string{"stageId": stageSchema})))},
			d.Commands.CreateContact),
		httpapi.Query(httpapi.Action{Name: "contacts.get", Method: http.MethodGet, Path: "/api/contacts/{id}", Permission: read, ReadOnly: true,
			Summary: "A contact", ReadModel: contactsview.Name, OutputSchema: contactViewOut,
			InputSchema: httpapi.Object([]string{"id"}, map[string]string{"id": idSchema})}, d.getContact),
		httpapi.Command(httpapi.Action{Name: "contacts.update", ReadModel: contactsview.Name, Method: http.MethodPut, Path: "/api/contacts/{id}", Permission: write,
			Summary: "Replace a contact's editable members (what the body leaves out is emptied)", OutputSchema: contactOut,
			InputSchema: needsAName(httpapi.Object([]string{"id"}, contactMembers(map[string]string{"id": idSchema})))},
			d.Commands.UpdateContact),
		httpapi.Command(httpapi.Action{Name: "contacts.delete", ReadModel: contactsview.Name, Method: http.MethodDelete, Path: "/api/contacts/{id}", Permission: write,
			Destructive: true, Summary: "Soft-delete a contact (the deleted flag): gone from reads, matches and exports",
			OutputSchema: contactOut, InputSchema: httpapi.Object([]string{"id"}, map[string]string{"id": idSchema})},
			d.Commands.DeleteContact),
		httpapi.Query(httpapi.Action{Name: "notes.list", Method: http.MethodGet, Path: "/api/contacts/{id}/notes", Permission: read, ReadOnly: true,
			Summary: "A contact's notes, newest first", ReadModel: contactsview.Name, OutputSchema: notePageOut,
			InputSchema: httpapi.Object([]string{"id"}, map[string]string{"id": idSchema, "cursor": cursorSchema, "limit": limitSchema})}, d.listNotes),
		httpapi.Command(httpapi.Action{Name: "notes.create", ReadModel: contactsview.Name, Method: http.MethodPost, Path: "/api/contacts/{id}/notes", Permission: write,
			SuccessStatus: http.StatusCreated, Summary: "Add a note to a contact", OutputSchema: noteOut,
			InputSchema: httpapi.Object([]string{"id", "body"}, map[string]string{"id": idSchema, "body": noteSchema})}, d.Commands.AddNote),
		httpapi.Query(httpapi.Action{Name: "notes.get", Method: http.MethodGet, Path: "/api/contacts/{contactId}/notes/{noteId}", Permission: read,
			ReadOnly: true, Summary: "A note", ReadModel: contactsview.Name, OutputSchema: noteOut,
			InputSchema: httpapi.Object([]string{"contactId", "noteId"}, map[string]string{"contactId": idSchema, "noteId": idSchema})}, d.getNote),
		httpapi.Command(httpapi.Action{Name: "notes.update", ReadModel: contactsview.Name, Method: http.MethodPut, Path: "/api/contacts/{contactId}/notes/{noteId}",
			Permission: write, Summary: "Replace a note's body", OutputSchema: noteOut,
			InputSchema: httpapi.Object([]string{"contactId", "noteId", "body"}, map[string]string{"contactId": idSchema, "noteId": idSchema,
				"body": noteSchema})}, d.Commands.UpdateNote),
		httpapi.Command(httpapi.Action{Name: "notes.delete", ReadModel: contactsview.Name, Method: http.MethodDelete, Path: "/api/contacts/{contactId}/notes/{noteId}",
			Permission: write, Destructive: true, Summary: "Delete a note for good", OutputSchema: noteOut,
			InputSchema: httpapi.Object([]string{"contactId", "noteId"}, map[string]string{"contactId": idSchema, "noteId": idSchema})},
			d.Commands.DeleteNote),
		httpapi.Command(httpapi.Action{Name: "notes.erase", ReadModel: contactsview.Name, Method: http.MethodPost,
			Path: "/api/contacts/{contactId}/notes/{noteId}/erase", Permission: manage, Destructive: true,
			Summary: "Erase what a note said, a deleted note's too (the contact may be soft-deleted): gone from reads and from the " +
				"audit history for everyone, admins included; confirmation must be ERASE",
			OutputSchema: httpapi.OutputOf(domain.NoteErasedV1{}),
			InputSchema: httpapi.Object([]string{"contactId", "noteId", "confirmation"}, map[string]string{"contactId": idSchema,
				"noteId": idSchema, "confirmation": `{"type":"string","const":"ERASE"}`})},
			d.Commands.EraseNote),
		httpapi.Query(httpapi.Action{Name: "attachments.list", Method: http.MethodGet, Path: "/api/contacts/{id}/attachments", Permission: read,
			ReadOnly: true, Summary: "A contact's attachments, newest first", ReadModel: contactsview.Name, OutputSchema: attachmentsOut,
			InputSchema: httpapi.Object([]string{"id"}, map[string]string{"id": idSchema, "cursor": cursorSchema, "limit": limitSchema})},
			d.listAttachments),
		httpapi.Bytes(httpapi.Action{Name: "attachments.upload", ReadModel: contactsview.Name, Method: http.MethodPost, Path: "/api/contacts/{id}/attachments",
			Permission: write, SuccessStatus: http.StatusCreated, OutputSchema: attachmentOut,
			Summary:     "Upload a file (multipart/form-data, part \"file\") to a contact; 413 above the size limit, nothing stored",
			InputSchema: httpapi.Object([]string{"id"}, map[string]string{"id": idSchema}),
			Body:        &httpapi.RawBody{MediaTypes: []string{"multipart/form-data"}, MaxBytes: d.Config.AttachmentMaxBytes + multipartSlack, Schema: multipartBody},
		}, d.upload),
		httpapi.Bytes(httpapi.Action{Name: "attachments.download", Method: http.MethodGet, Path: "/api/attachments/{id}", Permission: read,
			ReadOnly: true, Summary: "Download an attachment, with its content type", ReadModel: contactsview.Name, OutputSchema: fileOut,
			Produces: "*/*", InputSchema: httpapi.Object([]string{"id"}, map[string]string{"id": idSchema})}, d.download),
		httpapi.Command(httpapi.Action{Name: "attachments.delete", ReadModel: contactsview.Name, Method: http.MethodDelete, Path: "/api/attachments/{id}", Permission: write,
			Destructive: true, Summary: "Delete an attachment and its file for good", OutputSchema: attachmentOut,
			InputSchema: httpapi.Object([]string{"id"}, map[string]string{"id": idSchema})}, d.Commands.DeleteAttachment),
		httpapi.Query(httpapi.Action{Name: "pipelines.list", Method: http.MethodGet, Path: "/api/pipeline", Permission: read, ReadOnly: true,
			Summary: "The organization's pipelines (a default one with ordered stages)", OutputSchema: pipelinesOut}, d.listPipelines),
		httpapi.Query(httpapi.Action{Name: "pipelines.get", Method: http.MethodGet, Path: "/api/pipeline/{pipelineId}", Permission: read,
			ReadOnly: true, Summary: "A pipeline with its stages, in order", OutputSchema: pipelineOut,
			InputSchema: httpapi.Object([]string{"pipelineId"}, map[string]string{"pipelineId": idSchema})}, d.getPipeline),
		httpapi.Query(httpapi.Action{Name: "pipelines.board", Method: http.MethodGet, Path: "/api/pipeline/{pipelineId}/board", Permission: read,
			ReadOnly: true, Summary: "Contacts grouped by stage: each stage's count and most recent arrivals", ReadModel: contactsview.Name,
			OutputSchema: boardOut, InputSchema: httpapi.Object([]string{"pipelineId"}, map[string]string{"pipelineId": idSchema,
				"limit": `{"type":"integer","minimum":1,"maximum":100}`})}, d.board),
		httpapi.Command(httpapi.Action{Name: "pipelines.move", ReadModel: contactsview.Name, Method: http.MethodPut, Path: "/api/pipeline/{contactId}/move", Permission: write,
			Summary: "Move a contact to a stage of its pipeline; the move is recorded in its history", OutputSchema: contactOut,
			InputSchema: httpapi.Object([]string{"contactId", "stageId"}, map[string]string{"contactId": idSchema, "stageId": stageSchema})},
			d.Commands.MoveContact),
		httpapi.Query(httpapi.Action{Name: "pipelines.history", Method: http.MethodGet, Path: "/api/pipeline/{contactId}/history", Permission: read,
			ReadOnly: true, Summary: "A contact's stage history: every move (from, to, when, who) and the time spent in each stage",
			ReadModel: contactsview.Name, OutputSchema: historyOut,
			InputSchema: httpapi.Object([]string{"contactId"}, map[string]string{"contactId": idSchema})}, d.history),
		httpapi.Bytes(httpapi.Action{Name: "contacts.import", ReadModel: contactsview.Name, Method: http.MethodPost, Path: "/api/contacts/import", Permission: write,
			Summary: "Import a CSV file (text/csv body, with a column mapping) or a vCard file (text/vcard): match by email, else name + company; update, skip or create; " +
				"dryRun answers what it would do; idempotent by importId", OutputSchema: importOut, InputSchema: importQuery(),
			Body: &httpapi.RawBody{MediaTypes: []string{"text/csv", "text/vcard", "text/x-vcard"}, MaxBytes: d.Config.ImportMaxBytes,
				Timeout: d.Config.ImportTimeout, IdleTimeout: d.Config.ImportIdleTimeout, Schema: importBody},
		}, d.importContacts),
		httpapi.Bytes(httpapi.Action{Name: "contacts.export", Method: http.MethodGet, Path: "/api/contacts/export", Permission: read,
			ReadOnly: true, Summary: "Export the live contacts as CSV, streamed: every field, pipeline and stage, tags, note and attachment counts",
			ReadModel: contactsview.Name, OutputSchema: csvOut, Produces: "text/csv",
			InputSchema: httpapi.Object(nil, map[string]string{"q": httpapi.LineSchema(0, text200), "stageId": stageSchema})}, d.export),
		httpapi.Bytes(httpapi.Action{Name: "contacts.export_vcard", Method: http.MethodGet, Path: "/api/contacts/export.vcf", Permission: read,
			ReadOnly: true, Summary: "Export the live contacts as vCard 4.0 (RFC 6350), streamed: one card per contact, its stage in X-PLATFORM-STAGE",
			ReadModel: contactsview.Name, OutputSchema: vcardOut, Produces: "text/vcard",
			InputSchema: httpapi.Object(nil, map[string]string{"q": httpapi.LineSchema(0, text200), "stageId": stageSchema})}, d.exportVCard),
		httpapi.Query(httpapi.Action{Name: "imports.get", Method: http.MethodGet, Path: "/api/imports/{importId}", Permission: read,
			ReadOnly: true, Summary: "An import: its state, counts and row errors", OutputSchema: importStateOut,
			InputSchema: httpapi.Object([]string{"importId"}, map[string]string{"importId": idSchema})}, d.getImport),
		httpapi.Command(httpapi.Action{Name: "imports.undo", ReadModel: contactsview.Name, Method: http.MethodPost, Path: "/api/imports/{importId}/undo", Permission: write,
			Destructive: true, Summary: "Undo an import: contacts it created removed, contacts it updated restored; contacts changed since are left (conflicts)",
			OutputSchema: importStateOut, InputSchema: httpapi.Object([]string{"importId"}, map[string]string{"importId": idSchema})},
			d.Commands.UndoImport),
	}
	svc := httpapi.Service{AppID: "contacts", Name: "contacts", HealthPath: "/health", InvalidInputStatus: http.StatusBadRequest}
	// GET /api lists the routes, the kernel's widget.get among them.
	listed := append(slices.Clip(actions), Widget(d).Action(svc.AppID))
	actions[0].Handle = func(context.Context, *httpapi.Call) (httpapi.Reply, error) { return httpapi.OK(apiInfo(listed)), nil }
	svc.Actions = actions
	return svc
}

// text200 bounds a search (a title's length).
const text200 = 200

// multipartSlack is what a multipart body carries besides the file (its
// boundaries and part headers): the request's bound is the file's plus it.
const multipartSlack = 64 << 10

// ListContacts is contacts.list's query.
type ListContacts struct {
	Q       string `json:"q"`
	StageID string `json:"stageId"`
	Deleted bool   `json:"deleted"`
	Cursor  string `json:"cursor"`
	Limit   int    `json:"limit"`
}

func (d Deps) listContacts(ctx context.Context, p principal.Principal, in ListContacts) (contactsview.Page, error) {
	return d.Queries.Contacts(ctx, p.OrganizationID, contactsview.Filter{Query: in.Q, StageID: in.StageID, Deleted: in.Deleted,
		Cursor: in.Cursor, Limit: in.Limit})
}

// ByID is the query of routes that read one thing by id.
type ByID struct {
	ID string `json:"id"`
}

func (d Deps) getContact(ctx context.Context, p principal.Principal, in ByID) (contactsview.Contact, error) {
	return d.Queries.Contact(ctx, p.OrganizationID, in.ID)
}

// PageOf is the query of a contact's notes or attachments.
type PageOf struct {
	ID     string `json:"id"`
	Cursor string `json:"cursor"`
	Limit  int    `json:"limit"`
}

func (d Deps) listNotes(ctx context.Context, p principal.Principal, in PageOf) (contactsview.NotePage, error) {
	return d.Queries.Notes(ctx, p.OrganizationID, in.ID, in.Cursor, in.Limit)
}

// NoteRef names a note of a contact.
type NoteRef struct {
	ContactID string `json:"contactId"`
	NoteID    string `json:"noteId"`
}

func (d Deps) getNote(ctx context.Context, p principal.Principal, in NoteRef) (domain.Note, error) {
	return d.Queries.Note(ctx, p.OrganizationID, in.ContactID, in.NoteID)
}

func (d Deps) listAttachments(ctx context.Context, p principal.Principal, in PageOf) (contactsview.AttachmentPage, error) {
	return d.Queries.Attachments(ctx, p.OrganizationID, in.ID, in.Cursor, in.Limit)
}

// Pipelines is pipelines.list's answer.
type Pipelines struct {
	Pipelines []domain.Pipeline `json:"pipelines"`
}

// NoInput is the query of routes that take nothing.
type NoInput struct{}

func (d Deps) listPipelines(_ context.Context, p principal.Principal, _ NoInput) (Pipelines, error) {
	return Pipelines{Pipelines: domain.Pipelines(p.OrganizationID)}, nil
}

// PipelineRef names a pipeline.
type PipelineRef struct {
	PipelineID string `json:"pipelineId"`
}

// BoardQuery is pipelines.board's query: contacts shown per stage.
type BoardQuery struct {
	PipelineID string `json:"pipelineId"`
	Limit      int    `json:"limit"`
}

func (d Deps) getPipeline(_ context.Context, p principal.Principal, in PipelineRef) (domain.Pipeline, error) {
	return contactsview.Pipeline(p.OrganizationID, in.PipelineID)
}

func (d Deps) board(ctx context.Context, p principal.Principal, in BoardQuery) (contactsview.Board, error) {
	return d.Queries.Board(ctx, p.OrganizationID, in.PipelineID, in.Limit)
}

// ContactRef names a contact (pipeline routes).
type ContactRef struct {
	ContactID string `json:"contactId"`
}

func (d Deps) history(ctx context.Context, p principal.Principal, in ContactRef) (contactsview.History, error) {
	return d.Queries.History(ctx, p.OrganizationID, in.ContactID)
}

// ImportRef names an import.
type ImportRef struct {
	ImportID string `json:"importId"`
}

func (d Deps) getImport(ctx context.Context, p principal.Principal, in ImportRef) (domain.ImportState, error) {
	return d.Commands.ImportReport(ctx, p.OrganizationID, in.ImportID)
}
