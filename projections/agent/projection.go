// Package agent is the agent's read model: flows, runs with their steps
// (input, output, decision, timing), approvals and tasks, the knowledge
// documents and profile sources searched with PostgreSQL full-text search,
// person profiles and their style snapshots, and the refused
// cross-organization actions.
package agent

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	domain "github.com/platform/backend/domain/agent"
	domjobs "github.com/platform/backend/domain/jobs"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/projections"
)

// Name of the projection (consumer group, registry rows).
const Name = "agent"

// Projection builds the agent's read model.
type Projection struct{}

var _ projections.Declared = Projection{}

func (Projection) Name() string       { return Name }
func (Projection) Contexts() []string { return []string{domain.Context} }
func (Projection) Tables() []string {
	return []string{"agent_flows", "agent_runs", "agent_waits_view", "agent_documents", "agent_profiles", "agent_profile_sources",
		"agent_style_snapshots", "agent_refusals"}
}

// Schema: runs keep their steps as one JSON array (each step an object
// patched by its events); documents and sources carry a generated tsvector
// (English) for retrieval.
func (Projection) Schema() []string {
	return []string{
		`CREATE TABLE IF NOT EXISTS {{agent_flows}} (
			flow_id text PRIMARY KEY, organization_id text NOT NULL, name text NOT NULL, state text NOT NULL,
			trigger_type text NOT NULL, definition jsonb NOT NULL, owner jsonb NOT NULL, version integer NOT NULL,
			next_run_at timestamptz, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{agent_flows}}_org ON {{agent_flows}} (organization_id, created_at)`,
		`CREATE TABLE IF NOT EXISTS {{agent_runs}} (
			run_id text PRIMARY KEY, organization_id text NOT NULL, flow_id text NOT NULL, flow_name text NOT NULL,
			flow_version integer NOT NULL, owner jsonb NOT NULL, trigger jsonb NOT NULL, status text NOT NULL, reason text NOT NULL,
			depth integer NOT NULL, steps jsonb NOT NULL, started_at timestamptz NOT NULL, finished_at timestamptz,
			updated_at timestamptz NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{agent_runs}}_org ON {{agent_runs}} (organization_id, started_at DESC)`,
		`CREATE INDEX IF NOT EXISTS {{agent_runs}}_flow ON {{agent_runs}} (flow_id, started_at DESC)`,
		`CREATE TABLE IF NOT EXISTS {{agent_waits_view}} (
			wait_id text PRIMARY KEY, organization_id text NOT NULL, kind text NOT NULL, run_id text NOT NULL, flow_id text NOT NULL,
			flow_name text NOT NULL, step integer NOT NULL, step_name text NOT NULL, service text NOT NULL, action text NOT NULL,
			state text NOT NULL, input jsonb NOT NULL, instructions text NOT NULL, requested_at timestamptz NOT NULL,
			expires_at timestamptz, decided_at timestamptz, decided_by jsonb, note text NOT NULL DEFAULT '')`,
		`CREATE INDEX IF NOT EXISTS {{agent_waits_view}}_org ON {{agent_waits_view}} (organization_id, kind, state, requested_at)`,
		`CREATE TABLE IF NOT EXISTS {{agent_documents}} (
			document_id text PRIMARY KEY, organization_id text NOT NULL, title text NOT NULL, url text NOT NULL, content text NOT NULL,
			created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL,
			search tsvector GENERATED ALWAYS AS (setweight(to_tsvector('english', title), 'A') || to_tsvector('english', content)) STORED)`,
		`CREATE INDEX IF NOT EXISTS {{agent_documents}}_org ON {{agent_documents}} (organization_id, created_at)`,
		`CREATE INDEX IF NOT EXISTS {{agent_documents}}_search ON {{agent_documents}} USING gin (search)`,
		`CREATE TABLE IF NOT EXISTS {{agent_profiles}} (
			profile_id text PRIMARY KEY, organization_id text NOT NULL, subject_user_id text NOT NULL, display_name text NOT NULL,
			headline text NOT NULL, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{agent_profiles}}_org ON {{agent_profiles}} (organization_id, subject_user_id)`,
		`CREATE TABLE IF NOT EXISTS {{agent_profile_sources}} (
			source_id text PRIMARY KEY, profile_id text NOT NULL, organization_id text NOT NULL, kind text NOT NULL, title text NOT NULL,
			url text NOT NULL, content text NOT NULL, added_at timestamptz NOT NULL,
			search tsvector GENERATED ALWAYS AS (setweight(to_tsvector('english', title), 'A') || to_tsvector('english', content)) STORED)`,
		`CREATE INDEX IF NOT EXISTS {{agent_profile_sources}}_profile ON {{agent_profile_sources}} (profile_id, added_at)`,
		`CREATE INDEX IF NOT EXISTS {{agent_profile_sources}}_search ON {{agent_profile_sources}} USING gin (search)`,
		`CREATE TABLE IF NOT EXISTS {{agent_style_snapshots}} (
			snapshot_id text PRIMARY KEY, profile_id text NOT NULL, organization_id text NOT NULL, source_ids jsonb NOT NULL,
			metrics jsonb NOT NULL, summary text NOT NULL, taken_at timestamptz NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{agent_style_snapshots}}_profile ON {{agent_style_snapshots}} (profile_id, taken_at)`,
		`CREATE TABLE IF NOT EXISTS {{agent_refusals}} (
			event_id text PRIMARY KEY, organization_id text NOT NULL, subject text NOT NULL, flow_id text NOT NULL, step integer NOT NULL,
			action text NOT NULL, target_organization_id text NOT NULL, by_actor jsonb NOT NULL, reason text NOT NULL, at timestamptz NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{agent_refusals}}_org ON {{agent_refusals}} (organization_id, at DESC)`,
	}
}

func (Projection) Reduce(e eventstore.Event) ([]projections.Statement, error) {
	return reducers.Reduce(e)
}

// Reducers is the table of what each agent event does.
func (Projection) Reducers() projections.Reducers { return reducers }

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

func exec(sql string, args ...any) []projections.Statement {
	return []projections.Statement{projections.Exec(sql, args...)}
}

// patchStep merges patch into step i of a run's steps.
func patchStep(runID string, i int, patch map[string]any, at time.Time, runSet string, runArgs ...any) projections.Statement {
	sql := `UPDATE {{agent_runs}} SET steps = jsonb_set(steps, ARRAY[$2::text], (steps->$2::int) || $3::jsonb), updated_at = $4` +
		runSet + ` WHERE run_id = $1`
	return projections.Exec(sql, append([]any{runID, strconv.Itoa(i), mustJSON(patch), at}, runArgs...)...)
}

// started keeps a step's first start.
func started(runID string, i int, at time.Time) projections.Statement {
	return projections.Exec(`UPDATE {{agent_runs}} SET steps = jsonb_set(steps, ARRAY[$2::text, 'startedAt'], to_jsonb($3::timestamptz))
		WHERE run_id = $1 AND jsonb_typeof(steps->$2::int->'startedAt') IS DISTINCT FROM 'string'`, runID, strconv.Itoa(i), at)
}

func decided(kind string, by *domain.Actor, note string, at time.Time) domain.Decision {
	return domain.Decision{Kind: kind, By: by, Note: note, At: &at}
}

func waitState(p domain.ApprovalDecidedV1, state string) projections.Statement {
	by := p.By
	return projections.Exec(`UPDATE {{agent_waits_view}} SET state=$2, decided_at=$3, decided_by=$4, note=$5 WHERE wait_id=$1`,
		p.ApprovalID, state, p.At, mustJSON(by), p.Note)
}

var reducers = merge(projections.Reducers{
	domain.FlowCreated: projections.On(func(e eventstore.Event, p domain.FlowSavedV1) ([]projections.Statement, error) {
		return exec(`INSERT INTO {{agent_flows}} (flow_id, organization_id, name, state, trigger_type, definition, owner, version,
			next_run_at, created_at, updated_at) VALUES ($1,$2,$3,'active',$4,$5,$6,$7,$8,$9,$9) ON CONFLICT (flow_id) DO NOTHING`,
			p.FlowID, e.OrganizationID, p.Definition.Name, p.Definition.Trigger.Type, mustJSON(p.Definition), mustJSON(p.Owner),
			p.Version, p.NextRunAt, p.At), nil
	}),
	domain.FlowUpdated: projections.On(func(e eventstore.Event, p domain.FlowSavedV1) ([]projections.Statement, error) {
		return exec(`UPDATE {{agent_flows}} SET name=$2, trigger_type=$3, definition=$4, owner=$5, version=$6, next_run_at=$7,
			updated_at=$8 WHERE flow_id=$1`, p.FlowID, p.Definition.Name, p.Definition.Trigger.Type, mustJSON(p.Definition),
			mustJSON(p.Owner), p.Version, p.NextRunAt, p.At), nil
	}),
	domain.FlowPaused: projections.On(func(e eventstore.Event, p domain.FlowStateV1) ([]projections.Statement, error) {
		return exec(`UPDATE {{agent_flows}} SET state='paused', next_run_at=NULL, updated_at=$2 WHERE flow_id=$1`, p.FlowID, p.At), nil
	}),
	domain.FlowResumed: projections.On(func(e eventstore.Event, p domain.FlowStateV1) ([]projections.Statement, error) {
		return exec(`UPDATE {{agent_flows}} SET state='active', next_run_at=$2, updated_at=$3 WHERE flow_id=$1`, p.FlowID, p.NextRunAt, p.At), nil
	}),
	domain.FlowDeleted: projections.On(func(e eventstore.Event, p domain.FlowStateV1) ([]projections.Statement, error) {
		return exec(`DELETE FROM {{agent_flows}} WHERE flow_id=$1`, p.FlowID), nil
	}),
	domain.FlowTriggered: projections.On(func(e eventstore.Event, p domain.FlowTriggeredV1) ([]projections.Statement, error) {
		return exec(`UPDATE {{agent_flows}} SET next_run_at=$2 WHERE flow_id=$1`, p.FlowID, p.NextRunAt), nil
	}),

	domain.RunStarted: projections.On(func(e eventstore.Event, p domain.RunStartedV1) ([]projections.Statement, error) {
		steps := make([]domain.StepState, len(p.Steps))
		for i, s := range p.Steps {
			steps[i] = domain.StepState{Index: i, Name: s.Name, Kind: s.Kind, Service: s.Service, Action: s.Action, Status: domain.StepPending}
		}
		return exec(`INSERT INTO {{agent_runs}} (run_id, organization_id, flow_id, flow_name, flow_version, owner, trigger, status,
			reason, depth, steps, started_at, updated_at) VALUES ($1,$2,$3,$4,$5,$6,$7,'running','',$8,$9,$10,$10)
			ON CONFLICT (run_id) DO NOTHING`, p.RunID, e.OrganizationID, p.FlowID, p.FlowName, p.FlowVersion, mustJSON(p.Owner),
			mustJSON(p.Trigger), p.Depth, mustJSON(steps), p.At), nil
	}),
	domain.StepRequested: projections.On(func(e eventstore.Event, p domain.StepRequestedV1) ([]projections.Statement, error) {
		patch := map[string]any{"status": domain.StepQueued, "input": p.Input, "jobId": p.JobID}
		if p.Decision == domain.DecisionAuto {
			patch["decision"] = decided(domain.DecisionAuto, nil, "", p.At)
		}
		return []projections.Statement{patchStep(p.RunID, p.Step, patch, p.At, `, status='running'`), started(p.RunID, p.Step, p.At)}, nil
	}),
	domain.ApprovalRequested: projections.On(func(e eventstore.Event, p domain.ApprovalRequestedV1) ([]projections.Statement, error) {
		patch := map[string]any{"status": domain.StepAwaitingApproval, "input": p.Input, "waitId": p.ApprovalID, "expiresAt": p.ExpiresAt,
			"startedAt": p.At}
		return []projections.Statement{patchStep(p.RunID, p.Step, patch, p.At, `, status='waiting'`),
			openWait(e, p.ApprovalID, "approval", "pending", p.RunID, p.Step, p.Input, "", p.At, &p.ExpiresAt)}, nil
	}),
	domain.ApprovalGranted: projections.On(func(e eventstore.Event, p domain.ApprovalDecidedV1) ([]projections.Statement, error) {
		by := p.By
		return []projections.Statement{patchStep(p.RunID, p.Step, map[string]any{"decision": decided(domain.DecisionApproved, &by, p.Note, p.At)}, p.At, ""),
			waitState(p, "approved")}, nil
	}),
	domain.ApprovalRejected: projections.On(func(e eventstore.Event, p domain.ApprovalDecidedV1) ([]projections.Statement, error) {
		by := p.By
		patch := map[string]any{"status": domain.StepRefused, "finishedAt": p.At, "decision": decided(domain.DecisionRejected, &by, p.Note, p.At)}
		return []projections.Statement{patchStep(p.RunID, p.Step, patch, p.At, ""), waitState(p, "rejected")}, nil
	}),
	domain.ApprovalExpired: projections.On(func(e eventstore.Event, p domain.ApprovalExpiredV1) ([]projections.Statement, error) {
		patch := map[string]any{"status": domain.StepTimedOut, "finishedAt": p.At, "decision": decided(domain.DecisionExpired, nil, "", p.At)}
		return []projections.Statement{patchStep(p.RunID, p.Step, patch, p.At, ""),
			projections.Exec(`UPDATE {{agent_waits_view}} SET state='expired', decided_at=$2 WHERE wait_id=$1`, p.ApprovalID, p.At)}, nil
	}),
	domain.TaskOpened: projections.On(func(e eventstore.Event, p domain.TaskOpenedV1) ([]projections.Statement, error) {
		patch := map[string]any{"status": domain.StepAwaitingTask, "input": p.Input, "waitId": p.TaskID, "startedAt": p.At}
		return []projections.Statement{patchStep(p.RunID, p.Step, patch, p.At, `, status='waiting'`),
			openWait(e, p.TaskID, "task", "open", p.RunID, p.Step, p.Input, p.Instructions, p.At, nil)}, nil
	}),
	domain.TaskCompleted: projections.On(func(e eventstore.Event, p domain.TaskCompletedV1) ([]projections.Statement, error) {
		by := p.By
		return []projections.Statement{patchStep(p.RunID, p.Step, map[string]any{"decision": decided(domain.DecisionCompleted, &by, p.Note, p.At)}, p.At, ""),
			projections.Exec(`UPDATE {{agent_waits_view}} SET state='completed', decided_at=$2, decided_by=$3, note=$4 WHERE wait_id=$1`,
				p.TaskID, p.At, mustJSON(by), p.Note)}, nil
	}),
	domain.StepSucceeded: projections.On(func(e eventstore.Event, p domain.StepSucceededV1) ([]projections.Statement, error) {
		patch := map[string]any{"status": domain.StepDone, "output": p.Output, "outputTruncated": p.OutputTruncated, "httpStatus": p.Status,
			"attempts": p.Attempts, "finishedAt": p.At}
		return []projections.Statement{patchStep(p.RunID, p.Step, patch, p.At, "")}, nil
	}),
	domain.StepFailed: projections.On(func(e eventstore.Event, p domain.StepFailedV1) ([]projections.Statement, error) {
		patch := map[string]any{"status": domain.StepError, "httpStatus": p.Status, "attempts": p.Attempts, "finishedAt": p.At,
			"failure": domain.StepFailure{Status: p.Status, Code: p.Code, Reason: p.Reason}}
		return []projections.Statement{patchStep(p.RunID, p.Step, patch, p.At, ""), started(p.RunID, p.Step, p.At)}, nil
	}),
	domain.RunEnded: projections.On(func(e eventstore.Event, p domain.RunEndedV1) ([]projections.Statement, error) {
		return []projections.Statement{
			projections.Exec(`UPDATE {{agent_runs}} SET status=$2, reason=$3, finished_at=$4, updated_at=$4,
				steps = (SELECT jsonb_agg(CASE WHEN s->>'status' IN ('awaiting_approval', 'awaiting_task', 'queued')
					THEN s || jsonb_build_object('status', 'cancelled', 'finishedAt', to_jsonb($4::timestamptz)) ELSE s END ORDER BY o)
					FROM jsonb_array_elements(steps) WITH ORDINALITY AS t(s, o))
				WHERE run_id=$1`, p.RunID, p.Status, p.Reason, p.At),
			projections.Exec(`UPDATE {{agent_waits_view}} SET state='cancelled', decided_at=$2 WHERE run_id=$1 AND state IN ('pending', 'open')`,
				p.RunID, p.At),
		}, nil
	}),

	domain.DocumentAdded: projections.On(func(e eventstore.Event, p domain.DocumentV1) ([]projections.Statement, error) {
		return exec(`INSERT INTO {{agent_documents}} (document_id, organization_id, title, url, content, created_at, updated_at)
			VALUES ($1,$2,$3,$4,$5,$6,$6) ON CONFLICT (document_id) DO NOTHING`, p.DocumentID, e.OrganizationID, p.Title, p.URL, p.Content, p.At), nil
	}),
	domain.DocumentUpdated: projections.On(func(e eventstore.Event, p domain.DocumentV1) ([]projections.Statement, error) {
		return exec(`UPDATE {{agent_documents}} SET title=$2, url=$3, content=$4, updated_at=$5 WHERE document_id=$1`,
			p.DocumentID, p.Title, p.URL, p.Content, p.At), nil
	}),
	domain.DocumentRemoved: projections.On(func(e eventstore.Event, p domain.DocumentRemovedV1) ([]projections.Statement, error) {
		return exec(`DELETE FROM {{agent_documents}} WHERE document_id=$1`, p.DocumentID), nil
	}),

	domain.ProfileCreated: projections.On(func(e eventstore.Event, p domain.ProfileV1) ([]projections.Statement, error) {
		return exec(`INSERT INTO {{agent_profiles}} (profile_id, organization_id, subject_user_id, display_name, headline, created_at, updated_at)
			VALUES ($1,$2,$3,$4,$5,$6,$6) ON CONFLICT (profile_id) DO NOTHING`, p.ProfileID, e.OrganizationID, p.SubjectUserID,
			p.DisplayName, p.Headline, p.At), nil
	}),
	domain.ProfileUpdated: projections.On(func(e eventstore.Event, p domain.ProfileV1) ([]projections.Statement, error) {
		return exec(`UPDATE {{agent_profiles}} SET display_name=$2, headline=$3, updated_at=$4 WHERE profile_id=$1`,
			p.ProfileID, p.DisplayName, p.Headline, p.At), nil
	}),
	domain.ProfileDeleted: projections.On(func(e eventstore.Event, p domain.ProfileDeletedV1) ([]projections.Statement, error) {
		return []projections.Statement{
			projections.Exec(`DELETE FROM {{agent_profiles}} WHERE profile_id=$1`, p.ProfileID),
			projections.Exec(`DELETE FROM {{agent_profile_sources}} WHERE profile_id=$1`, p.ProfileID),
			projections.Exec(`DELETE FROM {{agent_style_snapshots}} WHERE profile_id=$1`, p.ProfileID),
		}, nil
	}),
	domain.SourceAdded: projections.On(func(e eventstore.Event, p domain.SourceAddedV1) ([]projections.Statement, error) {
		s := p.Source
		return []projections.Statement{
			projections.Exec(`INSERT INTO {{agent_profile_sources}} (source_id, profile_id, organization_id, kind, title, url, content, added_at)
				VALUES ($1,$2,$3,$4,$5,$6,$7,$8) ON CONFLICT (source_id) DO NOTHING`, s.SourceID, p.ProfileID, e.OrganizationID, s.Kind,
				s.Title, s.URL, s.Content, s.AddedAt),
			projections.Exec(`UPDATE {{agent_profiles}} SET updated_at=$2 WHERE profile_id=$1`, p.ProfileID, p.At),
		}, nil
	}),
	domain.SourceRemoved: projections.On(func(e eventstore.Event, p domain.SourceRemovedV1) ([]projections.Statement, error) {
		return exec(`DELETE FROM {{agent_profile_sources}} WHERE source_id=$1 AND profile_id=$2`, p.SourceID, p.ProfileID), nil
	}),
	domain.StyleSnapshotTaken: projections.On(func(e eventstore.Event, p domain.StyleSnapshotTakenV1) ([]projections.Statement, error) {
		s := p.Snapshot
		return exec(`INSERT INTO {{agent_style_snapshots}} (snapshot_id, profile_id, organization_id, source_ids, metrics, summary, taken_at)
			VALUES ($1,$2,$3,$4,$5,$6,$7) ON CONFLICT (snapshot_id) DO NOTHING`, s.SnapshotID, p.ProfileID, e.OrganizationID,
			mustJSON(s.SourceIDs), mustJSON(s.Metrics), s.Summary, s.TakenAt), nil
	}),

	domain.CrossOrgRefused: projections.On(func(e eventstore.Event, p domain.CrossOrgRefusedV1) ([]projections.Statement, error) {
		return exec(`INSERT INTO {{agent_refusals}} (event_id, organization_id, subject, flow_id, step, action, target_organization_id,
			by_actor, reason, at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10) ON CONFLICT (event_id) DO NOTHING`, e.ID.String(), e.OrganizationID,
			p.Subject, p.FlowID, p.Step, p.Action, p.TargetOrganizationID, mustJSON(p.By), p.Reason, p.At), nil
	}),

	// Personas are read from the write side (a handful per organization);
	// chat sessions are the record of conversations, not a list anyone reads.
	domain.PersonaSaved:         projections.Ignore,
	domain.PersonaRemoved:       projections.Ignore,
	domain.ChatStarted:          projections.Ignore,
	domain.ChatVerified:         projections.Ignore,
	domain.ChatVerificationFail: projections.Ignore,
	domain.ChatAnswered:         projections.Ignore,
}, projections.JobReducers(domain.Context, func(e eventstore.Event, j domjobs.Job) ([]projections.Statement, error) {
	// A step's attempts as its job counts them (the step shows them while
	// it runs; its outcome's event records the final count).
	i := strings.LastIndexByte(j.ID, '.')
	if j.Kind != domain.StepKind || i < 0 {
		return nil, nil
	}
	n, err := strconv.Atoi(j.ID[i+1:])
	if err != nil {
		return nil, nil
	}
	return exec(`UPDATE {{agent_runs}} SET steps = jsonb_set(steps, ARRAY[$2::text, 'attempts'], to_jsonb($3::int))
		WHERE run_id=$1 AND steps->$2::int->>'status' = 'queued'`, j.ID[:i], strconv.Itoa(n), j.Attempt), nil
}))

func merge(tables ...projections.Reducers) projections.Reducers {
	out := projections.Reducers{}
	for _, t := range tables {
		for k, v := range t {
			out[k] = v
		}
	}
	return out
}

// openWait lists an approval or a task, with its run's flow and step.
func openWait(e eventstore.Event, id, kind, state, runID string, step int, input json.RawMessage, instructions string, at time.Time,
	expires *time.Time) projections.Statement {
	return projections.Exec(`INSERT INTO {{agent_waits_view}} (wait_id, organization_id, kind, run_id, flow_id, flow_name, step, step_name,
		service, action, state, input, instructions, requested_at, expires_at)
		SELECT $1, $2, $3, r.run_id, r.flow_id, r.flow_name, $5::int, COALESCE(r.steps->($5::int)->>'name', ''),
			COALESCE(r.steps->($5::int)->>'service', ''), COALESCE(r.steps->($5::int)->>'action', ''), $6, $7, $8, $9, $10
		FROM {{agent_runs}} r WHERE r.run_id = $4
		ON CONFLICT (wait_id) DO NOTHING`, id, e.OrganizationID, kind, runID, step, state, input, instructions, at, expires)
}
