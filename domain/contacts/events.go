// Package contacts is the contacts API's domain (seed 002): contacts with
// soft delete, notes, attachments, a pipeline of ordered stages, CSV imports
// that match existing contacts and can be undone.
package contacts

import "time"

// Stream types. A contact's own commands use its stream; an import's
// batches use the import's stream and carry every contact they change, so
// the contacts' write model is a table kept in the command's transaction
// (commands/contacts), not one stream per contact.
const (
	StreamContact    = "contacts.contact"
	StreamNote       = "contacts.note"
	StreamAttachment = "contacts.attachment"
	StreamImport     = "contacts.import"
)

// Event types: dotted, past tense, stable strings. All at schema version 1.
const (
	ContactCreated = "contacts.contact.created"
	ContactUpdated = "contacts.contact.updated"
	ContactDeleted = "contacts.contact.deleted"
	ContactMoved   = "contacts.contact.moved"

	NoteAdded   = "contacts.note.added"
	NoteUpdated = "contacts.note.updated"
	NoteDeleted = "contacts.note.deleted"
	NoteErased  = "contacts.note.erased"

	AttachmentAdded   = "contacts.attachment.added"
	AttachmentDeleted = "contacts.attachment.deleted"

	ImportStarted        = "contacts.import.started"
	ImportBatchCommitted = "contacts.import.batch_committed"
	ImportCompleted      = "contacts.import.completed"
	ImportBatchUndone    = "contacts.import.batch_undone"
	ImportUndone         = "contacts.import.undone"
)

// EventTypes are every event type of the contacts context.
var EventTypes = []string{
	ContactCreated, ContactUpdated, ContactDeleted, ContactMoved,
	NoteAdded, NoteUpdated, NoteDeleted, NoteErased,
	AttachmentAdded, AttachmentDeleted,
	ImportStarted, ImportBatchCommitted, ImportCompleted, ImportBatchUndone, ImportUndone,
}

// Change is one contact's new state as every event that changes a contact
// carries it: the whole state (a reader applies the highest revision, in
// whatever order the contact's streams reach it), the stage move it made,
// and, for an import's updates, the state before (what an undo restores).
type Change struct {
	Contact Contact  `json:"contact"`
	Move    *Move    `json:"move,omitempty"`
	Prior   *Contact `json:"prior,omitempty"`
}

// Move is a contact entering a stage: from "" when it enters the pipeline.
type Move struct {
	PipelineID string    `json:"pipeline_id"`
	From       string    `json:"from_stage_id"`
	To         string    `json:"to_stage_id"`
	At         time.Time `json:"moved_at"`
	// Source says what moved it: create, move, import, undo.
	Source string `json:"source"`
}

// Sources of a move.
const (
	SourceCreate = "create"
	SourceMove   = "move"
	SourceImport = "import"
	SourceUndo   = "undo"
)

// ContactChangedV1 is the payload of every contact stream event.
type ContactChangedV1 = Change

// NoteV1 is the payload of the note events: the note's whole state (a
// deleted note's last one).
type NoteV1 = Note

// NoteErasedV1 is the payload of contacts.note.erased: which note, and
// nothing it said.
type NoteErasedV1 struct {
	NoteID    string    `json:"note_id"`
	ContactID string    `json:"contact_id"`
	ErasedAt  time.Time `json:"erased_at"`
}

// AttachmentV1 is the payload of the attachment events.
type AttachmentV1 struct {
	Attachment
	// ObjectKey is where the bytes are in the object store.
	ObjectKey string `json:"object_key"`
}

// ImportStartedV1 opens an import: what it was asked and what the file held.
type ImportStartedV1 struct {
	ImportID string            `json:"import_id"`
	OnMatch  string            `json:"on_match"`
	Columns  map[string]string `json:"columns"`
	// Ignored are the file's columns no field reads.
	Ignored    []string   `json:"ignored_columns"`
	FileSHA256 string     `json:"file_sha256"`
	Rows       int        `json:"rows"`
	Failed     int        `json:"failed"`
	Errors     []RowError `json:"errors"`
	// ErrorsTruncated: the file had more row errors than Errors lists.
	ErrorsTruncated bool      `json:"errors_truncated"`
	StartedAt       time.Time `json:"started_at"`
}

// ImportBatchV1 is one committed batch of an import: every contact it
// created or updated (updates with their prior state), in one event.
// Created contacts are carried lean (ImportedContact): what they share (the
// batch's time, the pipeline) is said once; a 100,000-row import is 200 of
// these events, and every byte of them is stored, published and read again.
type ImportBatchV1 struct {
	ImportID   string            `json:"import_id"`
	Batch      int               `json:"batch"`
	FirstLine  int               `json:"first_line"`
	LastLine   int               `json:"last_line"`
	At         time.Time         `json:"at"`
	PipelineID string            `json:"pipeline_id"`
	Created    []ImportedContact `json:"created"`
	Updated    []Change          `json:"updated"`
	Unchanged  int               `json:"unchanged"`
	Skipped    int               `json:"skipped"`
}

// ImportedContact is a contact an import batch created: revision 1,
// created, updated and entered in its stage at the batch's time, in the
// batch's pipeline.
type ImportedContact struct {
	ContactID string   `json:"contact_id"`
	FirstName string   `json:"first_name,omitempty"`
	LastName  string   `json:"last_name,omitempty"`
	Email     string   `json:"email,omitempty"`
	Phone     string   `json:"phone,omitempty"`
	Company   string   `json:"company,omitempty"`
	JobTitle  string   `json:"job_title,omitempty"`
	Tags      []string `json:"tags,omitempty"`
	StageID   string   `json:"stage_id"`
}

// imported is a created contact as the batch carries it.
func imported(c Contact) ImportedContact {
	return ImportedContact{ContactID: c.ContactID, FirstName: c.FirstName, LastName: c.LastName, Email: c.Email, Phone: c.Phone,
		Company: c.Company, JobTitle: c.JobTitle, Tags: c.Tags, StageID: c.StageID}
}

// CreatedChanges are the batch's created contacts whole, each with its
// entry into its stage: what readers apply.
func (b ImportBatchV1) CreatedChanges() []Change {
	out := make([]Change, len(b.Created))
	for i, c := range b.Created {
		tags := c.Tags
		if tags == nil {
			tags = []string{}
		}
		out[i] = Change{Contact: Contact{ContactID: c.ContactID, Fields: Fields{FirstName: c.FirstName, LastName: c.LastName,
			Email: c.Email, Phone: c.Phone, Company: c.Company, JobTitle: c.JobTitle, Tags: tags}, PipelineID: b.PipelineID,
			StageID: c.StageID, StageEnteredAt: b.At, Revision: 1, CreatedAt: b.At, UpdatedAt: b.At},
			Move: &Move{PipelineID: b.PipelineID, To: c.StageID, At: b.At, Source: SourceImport}}
	}
	return out
}

// ImportCompletedV1 closes an import whose every batch is committed.
type ImportCompletedV1 struct {
	ImportID    string    `json:"import_id"`
	CompletedAt time.Time `json:"completed_at"`
}

// ImportBatchUndoneV1 is one batch of an undo: contacts the import created
// removed, contacts it updated restored to their prior state, and contacts
// changed since the import left alone (conflicts).
type ImportBatchUndoneV1 struct {
	ImportID string `json:"import_id"`
	Batch    int    `json:"batch"`
	// BatchSize is how many of the import's contacts (by id) each undo
	// batch takes: a resumed undo cuts the same batches.
	BatchSize int       `json:"batch_size"`
	Removed   []Removed `json:"removed"`
	Restored  []Change  `json:"restored"`
	Conflicts []string  `json:"conflicts"`
}

// Removed is a contact an undo removed, at the revision the import left.
type Removed struct {
	ContactID string `json:"contact_id"`
	Revision  int    `json:"revision"`
}

// ImportUndoneV1 closes an undo.
type ImportUndoneV1 struct {
	ImportID string    `json:"import_id"`
	UndoneAt time.Time `json:"undone_at"`
}

// SnapshotSchema is the format of the contacts write models' snapshots
// (imports, notes, attachments: their State). Bump it when one changes shape.
const SnapshotSchema = 1
