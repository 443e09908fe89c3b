package agent

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	agentcmd "github.com/platform/backend/commands/agent"
	domain "github.com/platform/backend/domain/agent"
	"github.com/platform/backend/domain/errs"
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

func (q *Queries) sql(ctx context.Context, s string) (string, error) {
	return q.reader.SQL(ctx, Projection{}, s)
}

func unavailable(err error) error {
	return errs.Unavailable("agent: the read model is unavailable", err)
}

// MaxList bounds a list.
const MaxList = 200

func limitOf(n int) int {
	if n <= 0 || n > MaxList {
		return 50
	}
	return n
}

// Flows lists the organization's flows, newest first (state "" : all).
func (q *Queries) Flows(ctx context.Context, organizationID, state string, limit int) ([]domain.Flow, error) {
	s, err := q.sql(ctx, `SELECT flow_id, definition, owner, state, version, next_run_at, created_at, updated_at FROM {{agent_flows}}
		WHERE organization_id=$1 AND ($2 = '' OR state = $2) ORDER BY created_at DESC, flow_id LIMIT $3`)
	if err != nil {
		return nil, unavailable(err)
	}
	rows, err := q.pool.Query(ctx, s, organizationID, state, limitOf(limit))
	if err != nil {
		return nil, unavailable(err)
	}
	out := []domain.Flow{}
	var f domain.Flow
	var def, owner []byte
	_, err = pgx.ForEachRow(rows, []any{&f.ID, &def, &owner, &f.State, &f.Version, &f.NextRunAt, &f.CreatedAt, &f.UpdatedAt}, func() error {
		g := f
		if err := json.Unmarshal(def, &g.Definition); err != nil {
			return err
		}
		if err := json.Unmarshal(owner, &g.Owner); err != nil {
			return err
		}
		out = append(out, g)
		return nil
	})
	if err != nil {
		return nil, unavailable(err)
	}
	return out, nil
}

// Flow is one flow of the organization (missing: 404).
func (q *Queries) Flow(ctx context.Context, organizationID, id string) (domain.Flow, error) {
	s, err := q.sql(ctx, `SELECT flow_id, definition, owner, state, version, next_run_at, created_at, updated_at FROM {{agent_flows}}
		WHERE organization_id=$1 AND flow_id=$2`)
	if err != nil {
		return domain.Flow{}, unavailable(err)
	}
	var f domain.Flow
	var def, owner []byte
	err = q.pool.QueryRow(ctx, s, organizationID, id).Scan(&f.ID, &def, &owner, &f.State, &f.Version, &f.NextRunAt, &f.CreatedAt, &f.UpdatedAt)
	if err == pgx.ErrNoRows {
		return domain.Flow{}, errs.NotFound("flow")
	}
	if err != nil {
		return domain.Flow{}, unavailable(err)
	}
	if err := json.Unmarshal(def, &f.Definition); err != nil {
		return domain.Flow{}, err
	}
	return f, json.Unmarshal(owner, &f.Owner)
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
	for _, m := range []struct {
		raw []byte
		v   any
	}{{owner, &r.Owner}, {trigger, &r.Trigger}, {steps, &r.Steps}} {
		if err := json.Unmarshal(m.raw, m.v); err != nil {
			return r, err
		}
	}
	return r, nil
}

// Runs lists the organization's runs, newest first.
func (q *Queries) Runs(ctx context.Context, organizationID string, f RunFilter) ([]domain.Run, error) {
	s, err := q.sql(ctx, `SELECT `+runColumns+` FROM {{agent_runs}} WHERE organization_id=$1 AND ($2 = '' OR flow_id = $2)
		AND ($3 = '' OR status = $3) ORDER BY started_at DESC, run_id LIMIT $4`)
	if err != nil {
		return nil, unavailable(err)
	}
	rows, err := q.pool.Query(ctx, s, organizationID, f.FlowID, f.Status, limitOf(f.Limit))
	if err != nil {
		return nil, unavailable(err)
	}
	defer rows.Close()
	out := []domain.Run{}
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, unavailable(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, unavailable(err)
	}
	return out, nil
}

// Run is one run of the organization.
func (q *Queries) Run(ctx context.Context, organizationID, id string) (domain.Run, error) {
	s, err := q.sql(ctx, `SELECT `+runColumns+` FROM {{agent_runs}} WHERE organization_id=$1 AND run_id=$2`)
	if err != nil {
		return domain.Run{}, unavailable(err)
	}
	r, err := scanRun(q.pool.QueryRow(ctx, s, organizationID, id))
	if err == pgx.ErrNoRows {
		return domain.Run{}, errs.NotFound("run")
	}
	if err != nil {
		return domain.Run{}, unavailable(err)
	}
	return r, nil
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

// Waits lists approvals or tasks of the organization, oldest first
// (state "": every state).
func (q *Queries) Waits(ctx context.Context, organizationID, kind, state string, limit int) ([]Wait, error) {
	s, err := q.sql(ctx, `SELECT wait_id, kind, state, run_id, flow_id, flow_name, step, step_name, service, action, input, instructions,
		requested_at, expires_at, decided_at, decided_by, note FROM {{agent_waits_view}}
		WHERE organization_id=$1 AND kind=$2 AND ($3 = '' OR state = $3) ORDER BY requested_at, wait_id LIMIT $4`)
	if err != nil {
		return nil, unavailable(err)
	}
	rows, err := q.pool.Query(ctx, s, organizationID, kind, state, limitOf(limit))
	if err != nil {
		return nil, unavailable(err)
	}
	out := []Wait{}
	var w Wait
	var input, by []byte
	_, err = pgx.ForEachRow(rows, []any{&w.ID, &w.Kind, &w.State, &w.RunID, &w.FlowID, &w.FlowName, &w.Step, &w.StepName, &w.Service,
		&w.Action, &input, &w.Instructions, &w.RequestedAt, &w.ExpiresAt, &w.DecidedAt, &by, &w.Note}, func() error {
		x := w
		x.Input = append(json.RawMessage(nil), input...)
		x.DecidedBy = nil
		if len(by) > 0 && string(by) != "null" {
			x.DecidedBy = &domain.Actor{}
			if err := json.Unmarshal(by, x.DecidedBy); err != nil {
				return err
			}
		}
		out = append(out, x)
		return nil
	})
	if err != nil {
		return nil, unavailable(err)
	}
	return out, nil
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
	s, err := q.sql(ctx, `SELECT document_id, title, url, char_length(content), created_at, updated_at FROM {{agent_documents}}
		WHERE organization_id=$1 ORDER BY created_at DESC, document_id LIMIT $2`)
	if err != nil {
		return nil, unavailable(err)
	}
	rows, err := q.pool.Query(ctx, s, organizationID, limitOf(limit))
	if err != nil {
		return nil, unavailable(err)
	}
	out := []DocumentSummary{}
	var d DocumentSummary
	_, err = pgx.ForEachRow(rows, []any{&d.DocumentID, &d.Title, &d.URL, &d.Characters, &d.CreatedAt, &d.UpdatedAt}, func() error {
		out = append(out, d)
		return nil
	})
	if err != nil {
		return nil, unavailable(err)
	}
	return out, nil
}

// Document is one document of the organization, with its content.
func (q *Queries) Document(ctx context.Context, organizationID, id string) (domain.Document, error) {
	s, err := q.sql(ctx, `SELECT document_id, title, url, content, created_at, updated_at FROM {{agent_documents}}
		WHERE organization_id=$1 AND document_id=$2`)
	if err != nil {
		return domain.Document{}, unavailable(err)
	}
	var d domain.Document
	err = q.pool.QueryRow(ctx, s, organizationID, id).Scan(&d.ID, &d.Title, &d.URL, &d.Content, &d.CreatedAt, &d.UpdatedAt)
	if err == pgx.ErrNoRows {
		return domain.Document{}, errs.NotFound("document")
	}
	if err != nil {
		return domain.Document{}, unavailable(err)
	}
	return d, nil
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
	s, err := q.sql(ctx, `SELECT document_id, title, url, `+headline+` FROM {{agent_documents}}, `+anyWords+`
		WHERE organization_id=$1 AND numnode(w.q) > 0 AND search @@ w.q ORDER BY ts_rank_cd(search, w.q) DESC, document_id LIMIT $3`)
	if err != nil {
		return nil, unavailable(err)
	}
	rows, err := q.pool.Query(ctx, s, organizationID, question, limitOf(limit))
	if err != nil {
		return nil, unavailable(err)
	}
	out := []agentcmd.Passage{}
	var p agentcmd.Passage
	_, err = pgx.ForEachRow(rows, []any{&p.DocumentID, &p.Title, &p.URL, &p.Excerpt}, func() error {
		out = append(out, p)
		return nil
	})
	if err != nil {
		return nil, unavailable(err)
	}
	return out, nil
}

// ProfileSources are a profile's sources for a topic, best first.
func (q *Queries) ProfileSources(ctx context.Context, organizationID, profileID, topic string, limit int) ([]agentcmd.SourcePassage, error) {
	s, err := q.sql(ctx, `SELECT source_id, title, url, `+headline+` FROM {{agent_profile_sources}}, `+anyWords+`
		WHERE organization_id=$1 AND profile_id=$3 AND numnode(w.q) > 0 AND search @@ w.q ORDER BY ts_rank_cd(search, w.q) DESC, source_id LIMIT $4`)
	if err != nil {
		return nil, unavailable(err)
	}
	rows, err := q.pool.Query(ctx, s, organizationID, topic, profileID, limitOf(limit))
	if err != nil {
		return nil, unavailable(err)
	}
	out := []agentcmd.SourcePassage{}
	var p agentcmd.SourcePassage
	_, err = pgx.ForEachRow(rows, []any{&p.SourceID, &p.Title, &p.URL, &p.Excerpt}, func() error {
		out = append(out, p)
		return nil
	})
	if err != nil {
		return nil, unavailable(err)
	}
	return out, nil
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
	s, err := q.sql(ctx, `SELECT profile_id, subject_user_id, display_name, headline, created_at, updated_at FROM {{agent_profiles}}
		WHERE organization_id=$1 AND ($2 OR subject_user_id = $3) ORDER BY created_at DESC, profile_id LIMIT $4`)
	if err != nil {
		return nil, unavailable(err)
	}
	rows, err := q.pool.Query(ctx, s, p.OrganizationID, all, subject, limitOf(limit))
	if err != nil {
		return nil, unavailable(err)
	}
	out := []ProfileSummary{}
	var r ProfileSummary
	_, err = pgx.ForEachRow(rows, []any{&r.ProfileID, &r.SubjectUserID, &r.DisplayName, &r.Headline, &r.CreatedAt, &r.UpdatedAt}, func() error {
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, unavailable(err)
	}
	return out, nil
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
	s, err := q.sql(ctx, `SELECT event_id, subject, flow_id, step, action, target_organization_id, by_actor, reason, at FROM {{agent_refusals}}
		WHERE organization_id=$1 ORDER BY at DESC, event_id LIMIT $2`)
	if err != nil {
		return nil, unavailable(err)
	}
	rows, err := q.pool.Query(ctx, s, organizationID, limitOf(limit))
	if err != nil {
		return nil, unavailable(err)
	}
	out := []Refusal{}
	var r Refusal
	var by []byte
	_, err = pgx.ForEachRow(rows, []any{&r.ID, &r.Subject, &r.FlowID, &r.Step, &r.Action, &r.TargetOrganizationID, &by, &r.Reason, &r.At}, func() error {
		x := r
		if err := json.Unmarshal(by, &x.By); err != nil {
			return err
		}
		out = append(out, x)
		return nil
	})
	if err != nil {
		return nil, unavailable(err)
	}
	return out, nil
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
	s, err := q.sql(ctx, `SELECT
		(SELECT count(*) FROM {{agent_flows}} WHERE organization_id=$1 AND state='active'),
		(SELECT count(*) FROM {{agent_waits_view}} WHERE organization_id=$1 AND kind='task' AND state='open'),
		(SELECT count(*) FROM {{agent_waits_view}} WHERE organization_id=$1 AND kind='approval' AND state='pending'),
		(SELECT count(*) FROM {{agent_runs}} WHERE organization_id=$1 AND started_at >= $2)`)
	if err != nil {
		return Figures{}, unavailable(err)
	}
	var f Figures
	day := now.UTC().Truncate(24 * time.Hour)
	if err := q.pool.QueryRow(ctx, s, organizationID, day).Scan(&f.ActiveFlows, &f.PendingTasks, &f.PendingApprovals, &f.RunsToday); err != nil {
		return Figures{}, unavailable(err)
	}
	return f, nil
}
