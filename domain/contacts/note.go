package contacts

import (
	"strings"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/text"
)

// Author is who wrote a note or uploaded a file (the credential's principal).
type Author struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

// Note is a note on a contact: the write model of a note stream and the
// answer of note commands.
type Note struct {
	NoteID    string    `json:"note_id"`
	ContactID string    `json:"contact_id"`
	Body      string    `json:"body"`
	Author    Author    `json:"author"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	Deleted   bool      `json:"-"`
	Erased    bool      `json:"-"`
}

// LoadNote rebuilds a note from its stream (a few events: no snapshots).
func LoadNote(history []event.Recorded) (Note, error) {
	var n Note
	for _, r := range history {
		switch r.Type {
		case NoteAdded, NoteUpdated, NoteDeleted:
			p, err := event.Decode[NoteV1](r)
			if err != nil {
				return Note{}, err
			}
			n = p
			n.Deleted = r.Type == NoteDeleted
		case NoteErased:
			p, err := event.Decode[NoteErasedV1](r)
			if err != nil {
				return Note{}, err
			}
			n = Note{NoteID: p.NoteID, ContactID: p.ContactID, Author: n.Author, CreatedAt: n.CreatedAt, UpdatedAt: p.ErasedAt,
				Deleted: true, Erased: true}
		}
	}
	return n, nil
}

// exists reports a note that is there and on that contact; another
// contact's note id is as unknown as a missing one.
func (n Note) exists(contactID string) bool {
	return n.NoteID != "" && !n.Deleted && n.ContactID == contactID
}

// NoteBodyPattern is noteBody's rule for JSON Schema: some character that is
// neither blank (Blank) nor a control character, and no control character
// but tab and line breaks (text.MultiLinePattern).
const NoteBodyPattern = `^[ \t\r\n]*[^\x00-\x20\x7f-\x9f][^\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]*$`

func noteBody(body string) (string, error) {
	if strings.Trim(body, Blank) == "" {
		return "", errs.InvalidField("/body", "must not be empty")
	}
	if fields := text.MultiLine(nil, "/body", body, text.MaxMessage); len(fields) > 0 {
		return "", errs.Invalid(fields...)
	}
	return body, nil
}

// Add writes a new note on a contact (the command checked the contact lives).
func (n Note) Add(id, contactID, body string, by Author, now time.Time) ([]event.Change, Note, error) {
	body, err := noteBody(body)
	if err != nil {
		return nil, Note{}, err
	}
	if n.NoteID != "" {
		return nil, Note{}, errs.Conflict("note_exists", "the note already exists")
	}
	next := Note{NoteID: id, ContactID: contactID, Body: body, Author: by, CreatedAt: now, UpdatedAt: now}
	return []event.Change{event.New(NoteAdded, next)}, next, nil
}

// Edit replaces the note's body.
func (n Note) Edit(contactID, body string, now time.Time) ([]event.Change, Note, error) {
	if !n.exists(contactID) {
		return nil, Note{}, errs.NotFound("note")
	}
	body, err := noteBody(body)
	if err != nil {
		return nil, Note{}, err
	}
	if body == n.Body {
		return nil, n, nil
	}
	next := n
	next.Body, next.UpdatedAt = body, now
	return []event.Change{event.New(NoteUpdated, next)}, next, nil
}

// Remove deletes the note for good: it is gone from every read (the audit
// history keeps its events).
func (n Note) Remove(contactID string, now time.Time) ([]event.Change, Note, error) {
	if !n.exists(contactID) {
		return nil, Note{}, errs.NotFound("note")
	}
	last := n
	last.UpdatedAt = now
	return []event.Change{event.New(NoteDeleted, last)}, last, nil
}

// Erase erases what the note said, whether it is still there or was
// deleted: it is gone from every read, and the audit history shows no
// version of its body to anyone any more (AuditRules). Erasing an erased
// note changes nothing.
func (n Note) Erase(contactID string, now time.Time) ([]event.Change, NoteErasedV1, error) {
	if n.NoteID == "" || n.ContactID != contactID {
		return nil, NoteErasedV1{}, errs.NotFound("note")
	}
	if n.Erased {
		return nil, NoteErasedV1{NoteID: n.NoteID, ContactID: n.ContactID, ErasedAt: n.UpdatedAt}, nil
	}
	out := NoteErasedV1{NoteID: n.NoteID, ContactID: contactID, ErasedAt: now}
	return []event.Change{event.New(NoteErased, out)}, out, nil
}
