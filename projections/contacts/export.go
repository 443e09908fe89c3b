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

// Export writes the organization's live contacts as CSV (domain.ExportColumns),
// streamed: rows go out as PostgreSQL sends them, never held whole. Every
// cell is neutralised against formula injection. Filtered like a list
// (stage, search), ordered by id.
func (q *Queries) Export(ctx context.Context, org string, f Filter, w io.Writer) error {
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
	buf := bufio.NewWriterSize(w, 64<<10)
	out := csv.NewWriter(buf)
	if err := out.Write(domain.ExportColumns); err != nil {
		return err
	}
	record := make([]string, len(domain.ExportColumns))
	for rows.Next() {
		var id, first, last, email, phone, company, title, pipelineID, stageID string
		var tags []string
		var entered, created, updated time.Time
		var notes, files int64
		if err := rows.Scan(&id, &first, &last, &email, &phone, &company, &title, &tags, &pipelineID, &stageID, &entered,
			&notes, &files, &created, &updated); err != nil {
			return err
		}
		p := pipelines[pipelineID]
		stage, _ := p.StageByID(stageID)
		copy(record, []string{id, first, last, email, phone, company, title, strings.Join(tags, domain.TagSeparator),
			p.Name, stage.Name, stamp(entered), strconv.FormatInt(notes, 10), strconv.FormatInt(files, 10), stamp(created), stamp(updated)})
		for i := range record {
			record[i] = domain.NeutralizeCell(record[i])
		}
		if err := out.Write(record); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	out.Flush()
	if err := out.Error(); err != nil {
		return err
	}
	return buf.Flush()
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
