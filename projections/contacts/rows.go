package contacts

import (
	"encoding/json"
	"time"

	domain "github.com/platform/backend/domain/contacts"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/projections"
)

// changes writes contacts' new states, however many an event carries, in
// two statements: the contacts (a row is replaced only by a higher
// revision, so a contact's events may arrive in any order from its
// different streams) and the stage moves they made.
func changes(e eventstore.Event, list []domain.Change) ([]projections.Statement, error) {
	if len(list) == 0 {
		return nil, nil
	}
	contacts := make([]contactRow, 0, len(list))
	var moves []moveRow
	for _, ch := range list {
		c := ch.Contact
		contacts = append(contacts, contactRow{ContactID: c.ContactID, OrganizationID: e.OrganizationID, Revision: c.Revision,
			FirstName: c.FirstName, LastName: c.LastName, Email: c.Email, Phone: c.Phone, Company: c.Company, JobTitle: c.JobTitle,
			Tags: nonNil(c.Tags), PipelineID: c.PipelineID, StageID: c.StageID, StageEnteredAt: c.StageEnteredAt.Format(timeLayout),
			Deleted: c.Deleted, DeletedAt: c.DeletedAt, CreatedAt: c.CreatedAt.Format(timeLayout), UpdatedAt: c.UpdatedAt.Format(timeLayout)})
		if m := ch.Move; m != nil {
			var from *string
			if m.From != "" {
				from = &m.From
			}
			moves = append(moves, moveRow{ContactID: c.ContactID, Revision: c.Revision, OrganizationID: e.OrganizationID,
				PipelineID: m.PipelineID, FromStageID: from, ToStageID: m.To, MovedAt: m.At.Format(timeLayout),
				ActorID: e.Actor.ID, ActorType: e.Actor.Type, Source: m.Source})
		}
	}
	rows, err := json.Marshal(contacts)
	if err != nil {
		return nil, err
	}
	// The contacts, and the words they are searched by (their tsvector's,
	// digits dropped, from three letters) join the vocabulary of similar
	// spellings (nearMatches), in word order: two batches adding the same
	// words lock them in the same order. The words come from the stored
	// search column the upsert returns: nothing is folded twice.
	out := []projections.Statement{projections.Exec(`WITH up AS (INSERT INTO {{contacts}} (`+contactColumns+`)
		SELECT `+contactColumns+` FROM jsonb_populate_recordset(NULL::{{contacts}}, $1::jsonb)
		ON CONFLICT (contact_id) DO UPDATE SET revision=EXCLUDED.revision, first_name=EXCLUDED.first_name,
			last_name=EXCLUDED.last_name, email=EXCLUDED.email, phone=EXCLUDED.phone, company=EXCLUDED.company,
			job_title=EXCLUDED.job_title, tags=EXCLUDED.tags, pipeline_id=EXCLUDED.pipeline_id, stage_id=EXCLUDED.stage_id,
			stage_entered_at=EXCLUDED.stage_entered_at, deleted=EXCLUDED.deleted, deleted_at=EXCLUDED.deleted_at,
			created_at=EXCLUDED.created_at, updated_at=EXCLUDED.updated_at
		WHERE {{contacts}}.revision < EXCLUDED.revision
		RETURNING organization_id, search)
		INSERT INTO {{contact_names}} (organization_id, word)
		SELECT DISTINCT up.organization_id, translate(w.word, '0123456789', '') FROM up, unnest(tsvector_to_array(up.search)) AS w(word)
		WHERE length(translate(w.word, '0123456789', '')) >= 3 ORDER BY 1, 2 ON CONFLICT DO NOTHING`, string(rows))}
	if len(moves) > 0 {
		raw, err := json.Marshal(moves)
		if err != nil {
			return nil, err
		}
		out = append(out, projections.Exec(`INSERT INTO {{contact_moves}} (`+moveColumns+`)
			SELECT `+moveColumns+` FROM jsonb_populate_recordset(NULL::{{contact_moves}}, $1::jsonb)
			ON CONFLICT (contact_id, revision) DO NOTHING`, string(raw)))
	}
	return out, nil
}

// timeLayout writes times as PostgreSQL reads them back exactly.
const timeLayout = "2006-01-02T15:04:05.999999Z07:00"

const contactColumns = `contact_id, organization_id, revision, first_name, last_name, email, phone, company, job_title, tags,
	pipeline_id, stage_id, stage_entered_at, deleted, deleted_at, created_at, updated_at`

// contactRow is one {{contacts}} row as jsonb_populate_recordset reads it.
type contactRow struct {
	ContactID      string     `json:"contact_id"`
	OrganizationID string     `json:"organization_id"`
	Revision       int        `json:"revision"`
	FirstName      string     `json:"first_name"`
	LastName       string     `json:"last_name"`
	Email          string     `json:"email"`
	Phone          string     `json:"phone"`
	Company        string     `json:"company"`
	JobTitle       string     `json:"job_title"`
	Tags           []string   `json:"tags"`
	PipelineID     string     `json:"pipeline_id"`
	StageID        string     `json:"stage_id"`
	StageEnteredAt string     `json:"stage_entered_at"`
	Deleted        bool       `json:"deleted"`
	DeletedAt      *time.Time `json:"deleted_at"`
	CreatedAt      string     `json:"created_at"`
	UpdatedAt      string     `json:"updated_at"`
}

const moveColumns = `contact_id, revision, organization_id, pipeline_id, from_stage_id, to_stage_id, moved_at, actor_id, actor_type, source`

type moveRow struct {
	ContactID      string  `json:"contact_id"`
	Revision       int     `json:"revision"`
	OrganizationID string  `json:"organization_id"`
	PipelineID     string  `json:"pipeline_id"`
	FromStageID    *string `json:"from_stage_id"`
	ToStageID      string  `json:"to_stage_id"`
	MovedAt        string  `json:"moved_at"`
	ActorID        string  `json:"actor_id"`
	ActorType      string  `json:"actor_type"`
	Source         string  `json:"source"`
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
