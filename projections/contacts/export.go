package contacts

import (
	"bufio"
	"context"
	"encoding/csv"
	"io"
	"strconv"
	"strings"
	"time"

	domain "github.com/platform/backend/domain/contacts"
)

// ExportRow is one contact of an export: every field, its pipeline and
// stage by name, and its counts.
type ExportRow struct {
	ID, First, Last, Email, Phone, Company, JobTitle string
	Tags                                             []string
	Pipeline, Stage                                  string
	StageEnteredAt, CreatedAt, UpdatedAt             time.Time
	Notes, Files                                     int64
}

// exportRows hands each live contact of the organization to each, as
// PostgreSQL sends them (never held whole), filtered like a list (stage,
// search), ordered by id.
func (q *Queries) exportRows(ctx context.Context, org string, f Filter, each func(ExportRow) error) error {
	wh := &where{args: []any{org}, parts: []string{"c.organization_id=$1", "NOT c.deleted"}}
	if f.StageID != "" {
		wh.add("c.stage_id=$%d", f.StageID)
	}
	from := "{{contacts}} c"
	if s := newSearch(f.Query); !s.empty() {
		from += " CROSS JOIN " + s.query(wh) // a join, so the LEFT JOINs below still see c
		wh.parts = append(wh.parts, s.any())
	}
	sql, err := q.sql(ctx, `SELECT c.contact_id::text, c.first_name, c.last_name, c.email, c.phone, c.company, c.job_title, c.tags,
		c.pipeline_id, c.stage_id, c.stage_entered_at, coalesce(n.count, 0), coalesce(a.count, 0), c.created_at, c.updated_at
		FROM `+from+`
		LEFT JOIN (SELECT contact_id, count(*) FROM {{contact_notes}} WHERE organization_id=$1 GROUP BY contact_id) n ON n.contact_id = c.contact_id
		LEFT JOIN (SELECT contact_id, count(*) FROM {{contact_attachments}} WHERE organization_id=$1 GROUP BY contact_id) a ON a.contact_id = c.contact_id
		WHERE `+wh.sql()+` ORDER BY c.contact_id`)
	if err != nil {
		return err
	}
	rows, err := q.pool.Query(ctx, sql, wh.args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	pipelines := map[string]domain.Pipeline{}
	for _, p := range domain.Pipelines(org) {
		pipelines[p.PipelineID] = p
	}
	for rows.Next() {
		var r ExportRow
		var pipelineID, stageID string
		if err := rows.Scan(&r.ID, &r.First, &r.Last, &r.Email, &r.Phone, &r.Company, &r.JobTitle, &r.Tags, &pipelineID, &stageID,
			&r.StageEnteredAt, &r.Notes, &r.Files, &r.CreatedAt, &r.UpdatedAt); err != nil {
			return err
		}
		p := pipelines[pipelineID]
		stage, _ := p.StageByID(stageID)
		r.Pipeline, r.Stage = p.Name, stage.Name
		if err := each(r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Export writes the organization's live contacts as CSV (domain.ExportColumns),
// streamed. Every cell is neutralised against formula injection.
func (q *Queries) Export(ctx context.Context, org string, f Filter, w io.Writer) error {
	buf := bufio.NewWriterSize(w, 64<<10)
	out := csv.NewWriter(buf)
	if err := out.Write(domain.ExportColumns); err != nil {
		return err
	}
	record := make([]string, len(domain.ExportColumns))
	err := q.exportRows(ctx, org, f, func(r ExportRow) error {
		copy(record, []string{r.ID, r.First, r.Last, r.Email, r.Phone, r.Company, r.JobTitle, strings.Join(r.Tags, domain.TagSeparator),
			r.Pipeline, r.Stage, stamp(r.StageEnteredAt), strconv.FormatInt(r.Notes, 10), strconv.FormatInt(r.Files, 10), stamp(r.CreatedAt),
			stamp(r.UpdatedAt)})
		for i := range record {
			record[i] = domain.NeutralizeCell(record[i])
		}
		return out.Write(record)
	})
	if err != nil {
		return err
	}
	out.Flush()
	if err := out.Error(); err != nil {
		return err
	}
	return buf.Flush()
}

// ExportVCard writes the same contacts as vCard 4.0 cards (domain.VCard),
// streamed: the contact id as the card's UID, its stage by name.
func (q *Queries) ExportVCard(ctx context.Context, org string, f Filter, w io.Writer) error {
	buf := bufio.NewWriterSize(w, 64<<10)
	err := q.exportRows(ctx, org, f, func(r ExportRow) error {
		_, err := buf.WriteString(domain.VCard{UID: "urn:uuid:" + r.ID, First: r.First, Last: r.Last, Email: r.Email, Phone: r.Phone,
			Company: r.Company, JobTitle: r.JobTitle, Tags: r.Tags, Stage: r.Stage, Rev: r.UpdatedAt}.Encode())
		return err
	})
	if err != nil {
		return err
	}
	return buf.Flush()
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
