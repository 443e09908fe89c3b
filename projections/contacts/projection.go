// Package contacts is the contacts API's read model: contacts with their
// search columns (full text and trigrams), stage moves, notes and
// attachments, and the queries that read them (lists with stable cursors,
// search, the board, a contact's history, the streamed CSV export).
package contacts

import (
	domain "github.com/platform/backend/domain/contacts"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/projections"
)

// Name of the projection (consumer group, registry rows).
const Name = "contacts"

// Projection builds the contacts read model.
type Projection struct{}

var _ projections.Declared = Projection{}

func (Projection) Name() string       { return Name }
func (Projection) Contexts() []string { return []string{"contacts"} }
func (Projection) Tables() []string {
	return []string{"contacts", "contact_moves", "contact_notes", "contact_attachments", "contact_names"}
}

// Schema: the search columns are generated from the contact's columns
// (commands/contacts/migrations: contacts_search_words for full text,
// contacts_search_line for the substring match; folded, unaccented names,
// email, company and tags), so every way a row is written (a batch of an
// import, one command, a rebuild) indexes it the same.
//
// The GIN indexes keep their fast update (new entries go to a pending list,
// merged into the index in bulk) with a pending list of 1 MB instead of the
// default 4 MB: every search reads the whole pending list of the index it
// uses, and after an import of 100,000 contacts a 4 MB list made a search 3
// to 4 times slower until autovacuum merged it. Without fast update the
// import's inserts cost 3 times the CPU; with 1 MB lists they cost what they
// did with 4 MB lists and the former columns (the words without whole
// emails are 7% cheaper to index), with 512 kB lists 5% more.
func (Projection) Schema() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS {{contacts}} (
			contact_id uuid PRIMARY KEY, organization_id text NOT NULL, revision int NOT NULL,
			first_name text NOT NULL, last_name text NOT NULL, email text NOT NULL, phone text NOT NULL,
			company text NOT NULL, job_title text NOT NULL, tags text[] NOT NULL,
			pipeline_id text NOT NULL, stage_id text NOT NULL, stage_entered_at timestamptz NOT NULL,
			deleted boolean NOT NULL, deleted_at timestamptz, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL,
			search_text text GENERATED ALWAYS AS (contacts_search_line(first_name, last_name, email, company, tags)) STORED,
			search tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, contacts_search_words(first_name, last_name, email, company, tags))) STORED)
			WITH (fillfactor = 90)`,
		`CREATE INDEX IF NOT EXISTS {{contacts}}_list ON {{contacts}} (organization_id, deleted, contact_id)`,
		`CREATE INDEX IF NOT EXISTS {{contacts}}_stage ON {{contacts}} (organization_id, pipeline_id, stage_id, stage_entered_at DESC, contact_id) WHERE NOT deleted`,
		`CREATE INDEX IF NOT EXISTS {{contacts}}_fts ON {{contacts}} USING gin (search) WITH (gin_pending_list_limit = 1024)`,
		`CREATE INDEX IF NOT EXISTS {{contacts}}_trgm ON {{contacts}} USING gin (search_text gin_trgm_ops) WITH (gin_pending_list_limit = 1024)`,
		`CREATE TABLE IF NOT EXISTS {{contact_moves}} (
			contact_id uuid NOT NULL, revision int NOT NULL, organization_id text NOT NULL, pipeline_id text NOT NULL,
			from_stage_id text, to_stage_id text NOT NULL, moved_at timestamptz NOT NULL,
			actor_id text NOT NULL, actor_type text NOT NULL, source text NOT NULL, PRIMARY KEY (contact_id, revision))`,
		`CREATE TABLE IF NOT EXISTS {{contact_notes}} (
			note_id uuid PRIMARY KEY, contact_id uuid NOT NULL, organization_id text NOT NULL, body text NOT NULL,
			author_id text NOT NULL, author_type text NOT NULL, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{contact_notes}}_contact ON {{contact_notes}} (contact_id, note_id)`,
		`CREATE TABLE IF NOT EXISTS {{contact_attachments}} (
			attachment_id uuid PRIMARY KEY, contact_id uuid NOT NULL, organization_id text NOT NULL, filename text NOT NULL,
			content_type text NOT NULL, size bigint NOT NULL, sha256 text NOT NULL, object_key text NOT NULL,
			uploaded_by_id text NOT NULL, uploaded_by_type text NOT NULL, created_at timestamptz NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{contact_attachments}}_contact ON {{contact_attachments}} (contact_id, attachment_id)`,
		// The vocabulary: the words contacts are searched by (names, the
		// email's parts, company, tags; folded, digits dropped, from three
		// letters), per organization: what a search that finds nothing
		// looks up similar spellings in (nearMatches). Only ever added to:
		// a word no contact holds any more finds nothing when searched.
		`CREATE TABLE IF NOT EXISTS {{contact_names}} (organization_id text NOT NULL, word text NOT NULL, PRIMARY KEY (organization_id, word))`,
		`CREATE INDEX IF NOT EXISTS {{contact_names}}_trgm ON {{contact_names}} USING gin (word gin_trgm_ops)`,
	}
}

func (p Projection) Reduce(e eventstore.Event) ([]projections.Statement, error) {
	return reducers.Reduce(e)
}

// Reducers is the table of what each contacts event does to the read model.
func (Projection) Reducers() projections.Reducers { return reducers }

var reducers = projections.Reducers{
	domain.ContactCreated: projections.On(contactChanged),
	domain.ContactUpdated: projections.On(contactChanged),
	domain.ContactDeleted: projections.On(contactChanged),
	domain.ContactMoved:   projections.On(contactChanged),
	domain.NoteAdded:      projections.On(noteWritten),
	domain.NoteUpdated:    projections.On(noteWritten),
	domain.NoteDeleted: projections.On(func(e eventstore.Event, n domain.NoteV1) ([]projections.Statement, error) {
		return []projections.Statement{projections.Exec(`DELETE FROM {{contact_notes}} WHERE note_id=$1`, n.NoteID)}, nil
	}),
	domain.NoteErased: projections.On(func(e eventstore.Event, n domain.NoteErasedV1) ([]projections.Statement, error) {
		return []projections.Statement{projections.Exec(`DELETE FROM {{contact_notes}} WHERE note_id=$1`, n.NoteID)}, nil
	}),
	domain.AttachmentAdded: projections.On(func(e eventstore.Event, a domain.AttachmentV1) ([]projections.Statement, error) {
		return []projections.Statement{projections.Exec(`INSERT INTO {{contact_attachments}} (attachment_id, contact_id, organization_id,
			filename, content_type, size, sha256, object_key, uploaded_by_id, uploaded_by_type, created_at)
			VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11) ON CONFLICT (attachment_id) DO NOTHING`,
			a.AttachmentID, a.ContactID, e.OrganizationID, a.Filename, a.ContentType, a.Size, a.SHA256, a.ObjectKey,
			a.UploadedBy.ID, a.UploadedBy.Type, a.CreatedAt)}, nil
	}),
	domain.AttachmentDeleted: projections.On(func(e eventstore.Event, a domain.AttachmentV1) ([]projections.Statement, error) {
		return []projections.Statement{projections.Exec(`DELETE FROM {{contact_attachments}} WHERE attachment_id=$1`, a.AttachmentID)}, nil
	}),
	domain.ImportBatchCommitted: projections.On(func(e eventstore.Event, b domain.ImportBatchV1) ([]projections.Statement, error) {
		return changes(e, append(b.CreatedChanges(), b.Updated...))
	}),
	domain.ImportBatchUndone: projections.On(func(e eventstore.Event, b domain.ImportBatchUndoneV1) ([]projections.Statement, error) {
		out, err := changes(e, b.Restored)
		if err != nil || len(b.Removed) == 0 {
			return out, err
		}
		ids := make([]string, len(b.Removed))
		for i, r := range b.Removed {
			ids[i] = r.ContactID
		}
		// What the undo removes never existed before the import: its row
		// and its moves go (the batch that made them is earlier on the
		// same stream, so it was applied before this).
		return append(out,
			projections.Exec(`DELETE FROM {{contacts}} WHERE contact_id = ANY($1::uuid[])`, ids),
			projections.Exec(`DELETE FROM {{contact_moves}} WHERE contact_id = ANY($1::uuid[])`, ids)), nil
	}),
	domain.ImportStarted:   projections.Ignore, // the import's own record: read from its stream (imports.get)
	domain.ImportCompleted: projections.Ignore,
	domain.ImportUndone:    projections.Ignore,
}

func contactChanged(e eventstore.Event, ch domain.Change) ([]projections.Statement, error) {
	return changes(e, []domain.Change{ch})
}

func noteWritten(e eventstore.Event, n domain.NoteV1) ([]projections.Statement, error) {
	return []projections.Statement{projections.Exec(`INSERT INTO {{contact_notes}} (note_id, contact_id, organization_id, body,
		author_id, author_type, created_at, updated_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)
		ON CONFLICT (note_id) DO UPDATE SET body=EXCLUDED.body, updated_at=EXCLUDED.updated_at`,
		n.NoteID, n.ContactID, e.OrganizationID, n.Body, n.Author.ID, n.Author.Type, n.CreatedAt, n.UpdatedAt)}, nil
}
