package agent

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	agentcmd "github.com/platform/backend/commands/agent"
	domain "github.com/platform/backend/domain/agent"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/projections"
)

// Queries read the agent's read model, always for one organization.
type Queries struct {
	pool   *pgxpool.Pool
	reader *projections.Reader
}

func NewQueries(pool *pgxpool.Pool, reader *projections.Reader) *Queries {
	return &Queries{pool: pool, reader: reader}
}

// what names the read model in an outage's answer.
const what = "agent: the read model"

// rows runs a list query of the read model, scan reading each row.
func rows[T any](ctx context.Context, q *Queries, sql string, scan func(pgx.Row) (T, error), args ...any) ([]T, error) {
	return projections.Rows(ctx, q.pool, q.reader, Projection{}, what, sql, scan, args...)
}

// row is rows for one row: 404 (missing) when there is none.
func row[T any](ctx context.Context, q *Queries, missing, sql string, scan func(pgx.Row) (T, error), args ...any) (T, error) {
	return projections.Row(ctx, q.pool, q.reader, Projection{}, what, missing, sql, scan, args...)
}

// jsonColumn is a JSON column as read and the value it decodes into.
type jsonColumn struct {
	raw []byte
	v   any
}

// decode decodes JSON columns into their values.
func decode(cols ...jsonColumn) error {
	for _, c := range cols {
		if err := json.Unmarshal(c.raw, c.v); err != nil {
			return err
		}
	}
	return nil
}

// MaxList bounds a list.
const MaxList = projections.MaxPage

// limitOf is a list's bounded size (projections.Page).
func limitOf(n int) int { return projections.Page{Limit: n}.Size() }

const flowColumns = `flow_id, definition, owner, state, version, next_run_at, created_at, updated_at`

func scanFlow(row pgx.Row) (domain.Flow, error) {
	var f domain.Flow
	var def, owner []byte
	if err := row.Scan(&f.ID, &def, &owner, &f.State, &f.Version, &f.NextRunAt, &f.CreatedAt, &f.UpdatedAt); err != nil {
		return f, err
	}
	return f, decode(jsonColumn{def, &f.Definition}, jsonColumn{owner, &f.Owner})
}

// Flows lists the organization's flows, newest first (state "" : all).
func (q *Queries) Flows(ctx context.Context, organizationID, state string, limit int) ([]domain.Flow, error) {
	return rows(ctx, q, `SELECT `+flowColumns+` FROM {{agent_flows}} WHERE organization_id=$1 AND ($2 = '' OR state = $2)
		ORDER BY created_at DESC, flow_id LIMIT $3`, scanFlow, organizationID, state, limitOf(limit))
}

// Flow is one flow of the organization (missing: 404).
func (q *Queries) Flow(ctx context.Context, organizationID, id string) (domain.Flow, error) {
	return row(ctx, q, "flow", `SELECT `+flowColumns+` FROM {{agent_flows}} WHERE organization_id=$1 AND flow_id=$2`, scanFlow,
		organizationID, id)
}

// RunFilter filters runs.
type RunFilter struct {
	FlowID string
	Status string
	Limit  int
}

const runColumns = `run_id, flow_id, flow_name, flow_version, owner, trigger, status, reason, depth, steps, started_at, finished_at, updated_at`

func scanRun(row pgx.Row) (domain.Run, error) {
	var r domain.Run
	var owner, trigger, steps []byte
	if err := row.Scan(&r.ID, &r.FlowID, &r.FlowName, &r.FlowVersion, &owner, &trigger, &r.Status, &r.Reason, &r.Depth, &steps,
		&r.StartedAt, &r.FinishedAt, &r.UpdatedAt); err != nil {
		return r, err
	}
	return r, decode(jsonColumn{owner, &r.Owner}, jsonColumn{trigger, &r.Trigger}, jsonColumn{steps, &r.Steps})
}

// Runs lists the organization's runs, newest first.
func (q *Queries) Runs(ctx context.Context, organizationID string, f RunFilter) ([]domain.Run, error) {
	return rows(ctx, q, `SELECT `+runColumns+` FROM {{agent_runs}} WHERE organization_id=$1 AND ($2 = '' OR flow_id = $2)
		AND ($3 = '' OR status = $3) ORDER BY started_at DESC, run_id LIMIT $4`, scanRun, organizationID, f.FlowID, f.Status, limitOf(f.Limit))
}

// Run is one run of the organization.
func (q *Queries) Run(ctx context.Context, organizationID, id string) (domain.Run, error) {
	return row(ctx, q, "run", `SELECT `+runColumns+` FROM {{agent_runs}} WHERE organization_id=$1 AND run_id=$2`, scanRun, organizationID, id)
}

// Wait is an approval or a task, as people list them.
type Wait struct {
	ID           string          `json:"id"`
	Kind         string          `json:"kind"`
	State        string          `json:"state"`
	RunID        string          `json:"runId"`
	FlowID       string          `json:"flowId"`
	FlowName     string          `json:"flowName"`
	Step         int             `json:"step"`
	StepName     string          `json:"stepName"`
	Service      string          `json:"service"`
	Action       string          `json:"action"`
	Input        json.RawMessage `json:"input"`
	Instructions string          `json:"instructions"`
	RequestedAt  time.Time       `json:"requestedAt"`
	ExpiresAt    *time.Time      `json:"expiresAt"`
	DecidedAt    *time.Time      `json:"decidedAt"`
	DecidedBy    *domain.Actor   `json:"decidedBy"`
	Note         string          `json:"note"`
}

// Wait states.
var (
	ApprovalStates = []string{"pending", "approved", "rejected", "expired", "cancelled"}
	TaskStates     = []string{"open", "completed", "cancelled"}
)

func scanWait(row pgx.Row) (Wait, error) {
	var w Wait
	var input, by []byte
	if err := row.Scan(&w.ID, &w.Kind, &w.State, &w.RunID, &w.FlowID, &w.FlowName, &w.Step, &w.StepName, &w.Service, &w.Action, &input,
		&w.Instructions, &w.RequestedAt, &w.ExpiresAt, &w.DecidedAt, &by, &w.Note); err != nil {
		return w, err
	}
	w.Input = append(json.RawMessage(nil), input...)
	if len(by) > 0 && string(by) != "null" {
		w.DecidedBy = &domain.Actor{}
		return w, json.Unmarshal(by, w.DecidedBy)
	}
	return w, nil
}

// Waits lists approvals or tasks of the organization, oldest first
// (state "": every state).
func (q *Queries) Waits(ctx context.Context, organizationID, kind, state string, limit int) ([]Wait, error) {
	return rows(ctx, q, `SELECT wait_id, kind, state, run_id, flow_id, flow_name, step, step_name, service, action, input, instructions,
		requested_at, expires_at, decided_at, decided_by, note FROM {{agent_waits_view}}
		WHERE organization_id=$1 AND kind=$2 AND ($3 = '' OR state = $3) ORDER BY requested_at, wait_id LIMIT $4`, scanWait,
		organizationID, kind, state, limitOf(limit))
}

// DocumentSummary is a knowledge document in a list.
type DocumentSummary struct {
	DocumentID string    `json:"documentId"`
	Title      string    `json:"title"`
	URL        string    `json:"url"`
	Characters int       `json:"characters"`
	CreatedAt  time.Time `json:"createdAt"`
	UpdatedAt  time.Time `json:"updatedAt"`
}

// Documents lists the organization's knowledge, newest first.
func (q *Queries) Documents(ctx context.Context, organizationID string, limit int) ([]DocumentSummary, error) {
	return rows(ctx, q, `SELECT document_id, title, url, char_length(content), created_at, updated_at FROM {{agent_documents}}
		WHERE organization_id=$1 ORDER BY created_at DESC, document_id LIMIT $2`, func(row pgx.Row) (DocumentSummary, error) {
		var d DocumentSummary
		return d, row.Scan(&d.DocumentID, &d.Title, &d.URL, &d.Characters, &d.CreatedAt, &d.UpdatedAt)
	}, organizationID, limitOf(limit))
}

// Document is one document of the organization, with its content.
func (q *Queries) Document(ctx context.Context, organizationID, id string) (domain.Document, error) {
	return row(ctx, q, "document", `SELECT document_id, title, url, content, created_at, updated_at FROM {{agent_documents}}
		WHERE organization_id=$1 AND document_id=$2`, func(row pgx.Row) (domain.Document, error) {
		var d domain.Document
		return d, row.Scan(&d.ID, &d.Title, &d.URL, &d.Content, &d.CreatedAt, &d.UpdatedAt)
	}, organizationID, id)
}

// anyWords is a question as a full-text query matching any of its words
// (English stems, stop words dropped): a visitor's question names the
// thing among other words, and the rank orders the matches.
const anyWords = `(SELECT CASE WHEN numnode(p) = 0 THEN p ELSE replace(p::text, ' & ', ' | ')::tsquery END AS q
	FROM plainto_tsquery('english', $2) AS p) AS w`

const headline = `ts_headline('english', content, w.q, 'MaxWords=60, MinWords=20, MaxFragments=2, FragmentDelimiter=" … "')`

// Search is the organization's passages for a question, best first: its own
// documents only.
func (q *Queries) Search(ctx context.Context, organizationID, question string, limit int) ([]agentcmd.Passage, error) {
	return rows(ctx, q, `SELECT document_id, title, url, `+headline+` FROM {{agent_documents}}, `+anyWords+`
		WHERE organization_id=$1 AND numnode(w.q) > 0 AND search @@ w.q ORDER BY ts_rank_cd(search, w.q) DESC, document_id LIMIT $3`,
		func(row pgx.Row) (agentcmd.Passage, error) {
			var p agentcmd.Passage
			return p, row.Scan(&p.DocumentID, &p.Title, &p.URL, &p.Excerpt)
		}, organizationID, question, limitOf(limit))
}

// ProfileSources are a profile's sources for a topic, best first.
func (q *Queries) ProfileSources(ctx context.Context, organizationID, profileID, topic string, limit int) ([]agentcmd.SourcePassage, error) {
	return rows(ctx, q, `SELECT source_id, title, url, `+headline+` FROM {{agent_profile_sources}}, `+anyWords+`
		WHERE organization_id=$1 AND profile_id=$3 AND numnode(w.q) > 0 AND search @@ w.q ORDER BY ts_rank_cd(search, w.q) DESC, source_id LIMIT $4`,
		func(row pgx.Row) (agentcmd.SourcePassage, error) {
			var p agentcmd.SourcePassage
			return p, row.Scan(&p.SourceID, &p.Title, &p.URL, &p.Excerpt)
		}, organizationID, topic, profileID, limitOf(limit))
}

// ProfileSummary is a person profile in a list.
type ProfileSummary struct {
	ProfileID     string    `json:"profileId"`
	SubjectUserID string    `json:"subjectUserId"`
	DisplayName   string    `json:"displayName"`
	Headline      string    `json:"headline"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
}

// Profiles lists the profiles p may see: every profile of the
// organization for its admins, the caller's own for anyone else.
func (q *Queries) Profiles(ctx context.Context, p principal.Principal, limit int) ([]ProfileSummary, error) {
	subject := p.ActingUser()
	all := p.ActsAtLeast(principal.RoleAdmin)
	if !all && subject == "" {
		return []ProfileSummary{}, nil
	}
	return rows(ctx, q, `SELECT profile_id, subject_user_id, display_name, headline, created_at, updated_at FROM {{agent_profiles}}
		WHERE organization_id=$1 AND ($2 OR subject_user_id = $3) ORDER BY created_at DESC, profile_id LIMIT $4`,
		func(row pgx.Row) (ProfileSummary, error) {
			var r ProfileSummary
			return r, row.Scan(&r.ProfileID, &r.SubjectUserID, &r.DisplayName, &r.Headline, &r.CreatedAt, &r.UpdatedAt)
		}, p.OrganizationID, all, subject, limitOf(limit))
}

// Refusal is a refused cross-organization action.
type Refusal struct {
	ID                   string       `json:"id"`
	Subject              string       `json:"subject"`
	FlowID               string       `json:"flowId"`
	Step                 int          `json:"step"`
	Action               string       `json:"action"`
	TargetOrganizationID string       `json:"targetOrganizationId"`
	By                   domain.Actor `json:"by"`
	Reason               string       `json:"reason"`
	At                   time.Time    `json:"at"`
}

// Refusals lists the organization's refused cross-organization actions,
// newest first.
func (q *Queries) Refusals(ctx context.Context, organizationID string, limit int) ([]Refusal, error) {
	return rows(ctx, q, `SELECT event_id, subject, flow_id, step, action, target_organization_id, by_actor, reason, at FROM {{agent_refusals}}
		WHERE organization_id=$1 ORDER BY at DESC, event_id LIMIT $2`, func(row pgx.Row) (Refusal, error) {
		var r Refusal
		var by []byte
		if err := row.Scan(&r.ID, &r.Subject, &r.FlowID, &r.Step, &r.Action, &r.TargetOrganizationID, &by, &r.Reason, &r.At); err != nil {
			return r, err
		}
		return r, json.Unmarshal(by, &r.By)
	}, organizationID, limitOf(limit))
}

// Figures are the agent's tile on the dashboard.
type Figures struct {
	ActiveFlows      int `json:"activeFlows"`
	PendingTasks     int `json:"pendingTasks"`
	PendingApprovals int `json:"pendingApprovals"`
	// RunsToday counts runs started since 00:00 UTC.
	RunsToday int `json:"runsToday"`
}

// Figures counts the organization's active flows, open tasks, pending
// approvals and runs started today (UTC).
func (q *Queries) Figures(ctx context.Context, organizationID string, now time.Time) (Figures, error) {
	day := now.UTC().Truncate(24 * time.Hour)
	return row(ctx, q, "figures", `SELECT
		(SELECT count(*) FROM {{agent_flows}} WHERE organization_id=$1 AND state='active'),
		(SELECT count(*) FROM {{agent_waits_view}} WHERE organization_id=$1 AND kind='task' AND state='open'),
		(SELECT count(*) FROM {{agent_waits_view}} WHERE organization_id=$1 AND kind='approval' AND state='pending'),
		(SELECT count(*) FROM {{agent_runs}} WHERE organization_id=$1 AND started_at >= $2)`, func(row pgx.Row) (Figures, error) {
		var f Figures
		return f, row.Scan(&f.ActiveFlows, &f.PendingTasks, &f.PendingApprovals, &f.RunsToday)
	}, organizationID, day)
}
