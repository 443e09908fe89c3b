package contacts

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	domain "github.com/platform/backend/domain/contacts"
)

// Summary is what the contacts tile of the dashboard shows: how many live
// contacts the organization has, how many it added this week, and how many
// stand in each stage of its pipeline.
type Summary struct {
	Contacts    int            `json:"contacts"`
	NewThisWeek int            `json:"new_this_week"`
	Stages      []StageSummary `json:"stages"`
}

// StageSummary is one stage's count, in the pipeline's order.
type StageSummary struct {
	PipelineID string `json:"pipeline_id"`
	StageID    string `json:"stage_id"`
	Name       string `json:"name"`
	Count      int    `json:"count"`
}

// WeekStart is the start of the week of t: Monday 00:00 UTC (ISO 8601).
func WeekStart(t time.Time) time.Time {
	t = t.UTC()
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	return day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7))
}

// Summary counts the organization's live contacts (one pass over its rows:
// a dashboard tile, cached by the dashboard).
func (q *Queries) Summary(ctx context.Context, org string) (Summary, error) {
	sql, err := q.sql(ctx, `SELECT pipeline_id, stage_id, count(*)::int, count(*) FILTER (WHERE created_at >= $2)::int
		FROM {{contacts}} WHERE organization_id=$1 AND NOT deleted GROUP BY pipeline_id, stage_id`)
	if err != nil {
		return Summary{}, err
	}
	rows, err := q.pool.Query(ctx, sql, org, WeekStart(q.now()))
	if err != nil {
		return Summary{}, err
	}
	type group struct {
		pipeline, stage string
		n, recent       int
	}
	groups, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (group, error) {
		var g group
		return g, r.Scan(&g.pipeline, &g.stage, &g.n, &g.recent)
	})
	if err != nil {
		return Summary{}, err
	}
	counts := map[[2]string]int{}
	var s Summary
	for _, g := range groups {
		s.Contacts += g.n
		s.NewThisWeek += g.recent
		counts[[2]string{g.pipeline, g.stage}] = g.n
	}
	s.Stages = []StageSummary{}
	for _, p := range domain.Pipelines(org) {
		for _, st := range p.Stages {
			s.Stages = append(s.Stages, StageSummary{PipelineID: p.PipelineID, StageID: st.StageID, Name: st.Name,
				Count: counts[[2]string{p.PipelineID, st.StageID}]})
		}
	}
	return s, nil
}
