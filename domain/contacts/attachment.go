package contacts

import (
	"strings"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/text"
)

// Attachment is a file on a contact: the write model of an attachment
// stream and the answer of attachment commands.
type Attachment struct {
	AttachmentID string    `json:"attachment_id"`
	ContactID    string    `json:"contact_id"`
	Filename     string    `json:"filename"`
	ContentType  string    `json:"content_type"`
	Size         int64     `json:"size"`
	SHA256       string    `json:"sha256"`
	UploadedBy   Author    `json:"uploaded_by"`
	CreatedAt    time.Time `json:"created_at"`
}

// AttachmentRecord is the write model: the attachment and where its bytes are.
type AttachmentRecord struct {
	AttachmentV1
	Deleted bool
}

// LoadAttachment rebuilds an attachment from its stream.
func LoadAttachment(history []event.Recorded) (AttachmentRecord, error) {
	var a AttachmentRecord
	for _, r := range history {
		switch r.Type {
		case AttachmentAdded, AttachmentDeleted:
			p, err := event.Decode[AttachmentV1](r)
			if err != nil {
				return AttachmentRecord{}, err
			}
			a = AttachmentRecord{AttachmentV1: p, Deleted: r.Type == AttachmentDeleted}
		}
	}
	return a, nil
}

// Exists reports an attachment that is there.
func (a AttachmentRecord) Exists() bool { return a.AttachmentID != "" && !a.Deleted }

// CleanFilename is the name a file is listed and downloaded under: its
// last path element, without control characters, bounded; "file" when
// nothing is left.
func CleanFilename(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if text.Control(r) || r == '"' {
			return -1
		}
		return r
	}, strings.TrimSpace(name))
	if r := []rune(name); len(r) > text.MaxFilename {
		name = string(r[len(r)-text.MaxFilename:]) // keep the extension
	}
	if name == "" || name == "." || name == ".." {
		return "file"
	}
	return name
}

// Add records a stored file on a contact (the command checked the contact lives).
func (a AttachmentRecord) Add(next AttachmentV1) ([]event.Change, error) {
	if a.AttachmentID != "" {
		return nil, errs.Conflict("attachment_exists", "the attachment already exists")
	}
	return []event.Change{event.New(AttachmentAdded, next)}, nil
}

// Remove deletes the attachment for good (its bytes are deleted after the
// event is committed).
func (a AttachmentRecord) Remove() ([]event.Change, error) {
	if !a.Exists() {
		return nil, errs.NotFound("attachment")
	}
	return []event.Change{event.New(AttachmentDeleted, a.AttachmentV1)}, nil
}
