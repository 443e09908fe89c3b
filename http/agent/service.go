// Package agent is the agent service (seed 002): flows and their runs,
// approvals and tasks, knowledge, the public website assistant
// (POST /api/public/chat), person profiles with their drafts
// (/api/person-profiles), and the widget and action items the dashboard
// reads.
package agent

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/platform/backend/commands"
	agentcmd "github.com/platform/backend/commands/agent"
	domain "github.com/platform/backend/domain/agent"
	"github.com/platform/backend/domain/principal"
	httpapi "github.com/platform/backend/http"
	view "github.com/platform/backend/projections/agent"
)

// AppID is the agent's app: its actions are checked as agent.<scope>.
const AppID = agentcmd.AppID

// Deps are what the service needs.
type Deps struct {
	Commands  *agentcmd.Handlers
	Assistant *agentcmd.Assistant
	Queries   *view.Queries
	Catalog   *agentcmd.Catalog
	Now       func() time.Time
	// ChatByAddress and ChatBySession bound the public chat per client
	// address and per chat session (429 with Retry-After).
	ChatByAddress *httpapi.Limiter
	ChatBySession *httpapi.Limiter
	// EventTypes are the platform's event types a flow's trigger may name.
	EventTypes []string
}

func (d Deps) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

// Inputs of the reads.
type (
	FlowsIn struct {
		State string `json:"state"`
		Limit int    `json:"limit"`
	}
	RunsIn struct {
		FlowID string `json:"flowId"`
		Status string `json:"status"`
		Limit  int    `json:"limit"`
	}
	RunRef struct {
		RunID string `json:"runId"`
	}
	WaitsIn struct {
		State string `json:"state"`
		Limit int    `json:"limit"`
	}
	ListIn struct {
		Limit int `json:"limit"`
	}
	SearchIn struct {
		Q     string `json:"q"`
		Limit int    `json:"limit"`
	}
)

// Service is the agent's HTTP service.
func Service(d Deps) httpapi.Service {
	c, a := d.Commands, d.Assistant
	flowIn, flowPatchIn := flowSchemas(d.EventTypes, d.Catalog.Services())
	return httpapi.Service{Name: "agent", AppID: AppID, HealthPath: HealthPath, Actions: []httpapi.Action{
		// Flows.
		httpapi.Query(httpapi.Action{Name: "flows.list", Method: http.MethodGet, Path: "/api/flows", Permission: "workflows:read", ReadOnly: true,
			Summary: "The organization's flows, newest first", InputSchema: flowsListIn, OutputSchema: flowsOut, ReadModel: view.Name},
			func(ctx context.Context, p principal.Principal, in FlowsIn) (FlowList, error) {
				fs, err := d.Queries.Flows(ctx, p.OrganizationID, in.State, in.Limit)
				return FlowList{Flows: fs}, err
			}),
		httpapi.CommandAs(httpapi.Action{Name: "flows.create", Method: http.MethodPost, Path: "/api/flows", Permission: "workflows:write",
			SuccessStatus: http.StatusCreated, ReadModel: view.Name,
			Summary: "Save a flow: a trigger (manual, schedule, or a platform event type) and steps that call platform actions by their " +
				"descriptors, with inputs mapped from the trigger and earlier steps ({\"$from\": \"/steps/0/output/id\"}). Its steps act " +
				"with a credential the saver delegates, never beyond what the saver holds; a step acting in another organization is refused",
			InputSchema: flowIn, OutputSchema: flowOut}, c.CreateFlow),
		httpapi.Query(httpapi.Action{Name: "flows.get", Method: http.MethodGet, Path: "/api/flows/{flowId}", Permission: "workflows:read",
			ReadOnly: true, Summary: "One flow", InputSchema: flowRefIn, OutputSchema: flowOut, ReadModel: view.Name},
			func(ctx context.Context, p principal.Principal, in agentcmd.FlowRef) (domain.Flow, error) {
				return d.Queries.Flow(ctx, p.OrganizationID, in.FlowID)
			}),
		httpapi.CommandAs(httpapi.Action{Name: "flows.update", Method: http.MethodPatch, Path: "/api/flows/{flowId}", Permission: "workflows:write",
			ReadModel: view.Name, Summary: "Save a new version of a flow (its saver becomes its owner); runs under way keep theirs",
			InputSchema: flowPatchIn, OutputSchema: flowOut}, c.UpdateFlow),
		httpapi.Command(httpapi.Action{Name: "flows.delete", Method: http.MethodDelete, Path: "/api/flows/{flowId}", Permission: "workflows:write",
			Destructive: true, ReadModel: view.Name, Summary: "Delete a flow: no new runs, its delegated credentials revoked; runs under way finish",
			InputSchema: flowRefIn, OutputSchema: flowOut}, c.DeleteFlow),
		httpapi.Command(httpapi.Action{Name: "flows.pause", Method: http.MethodPost, Path: "/api/flows/{flowId}/pause", Permission: "workflows:write",
			ReadModel: view.Name, Summary: "Pause a flow: no new runs (schedule, events, manual) until it is resumed",
			InputSchema: flowRefIn, OutputSchema: flowOut}, c.PauseFlow),
		httpapi.Command(httpapi.Action{Name: "flows.resume", Method: http.MethodPost, Path: "/api/flows/{flowId}/resume", Permission: "workflows:write",
			ReadModel: view.Name, Summary: "Resume a paused flow (its schedule restarts from now)",
			InputSchema: flowRefIn, OutputSchema: flowOut}, c.ResumeFlow),
		httpapi.Query(httpapi.Action{Name: "flow_actions.list", Method: http.MethodGet, Path: "/api/flow-actions", Permission: "workflows:read",
			ReadOnly: true, Summary: "The platform actions a flow's step may call, by service, from each service's descriptors",
			OutputSchema: actionsOut},
			func(ctx context.Context, _ principal.Principal, _ httpapi.NoInput) (ActionList, error) {
				list, unavailable := d.Catalog.List(ctx)
				return ActionList{Actions: list, Unavailable: unavailable}, nil
			}),

		// Runs.
		httpapi.Command(httpapi.Action{Name: "runs.start", Method: http.MethodPost, Path: "/api/flows/{flowId}/runs", Permission: "runs:invoke",
			SuccessStatus: http.StatusCreated, ReadModel: view.Name,
			Summary:     "Start a manual run of a flow; input is what its steps see as /trigger/data",
			InputSchema: runStartIn, OutputSchema: runOut}, c.StartRun),
		httpapi.Query(httpapi.Action{Name: "runs.list", Method: http.MethodGet, Path: "/api/runs", Permission: "workflows:read", ReadOnly: true,
			Summary:     "The organization's runs, newest first, each step with its input, output, decision and timing",
			InputSchema: runsListIn, OutputSchema: runsOut, ReadModel: view.Name},
			func(ctx context.Context, p principal.Principal, in RunsIn) (RunList, error) {
				rs, err := d.Queries.Runs(ctx, p.OrganizationID, view.RunFilter{FlowID: in.FlowID, Status: in.Status, Limit: in.Limit})
				return RunList{Runs: rs}, err
			}),
		httpapi.Query(httpapi.Action{Name: "runs.get", Method: http.MethodGet, Path: "/api/runs/{runId}", Permission: "workflows:read",
			ReadOnly: true, Summary: "One run: each step's input, output, decision (auto, approved, rejected, expired, completed) and timing",
			InputSchema: runRefIn, OutputSchema: runOut, ReadModel: view.Name},
			func(ctx context.Context, p principal.Principal, in RunRef) (domain.Run, error) {
				return d.Queries.Run(ctx, p.OrganizationID, in.RunID)
			}),
		httpapi.CommandAs(httpapi.Action{Name: "runs.cancel", Method: http.MethodPost, Path: "/api/runs/{runId}/cancel", Permission: "runs:invoke",
			ReadModel: view.Name, Summary: "Cancel a run that is not over: its waiting approval or task is withdrawn, its step on its way stopped",
			InputSchema: runCancelIn, OutputSchema: runOut}, c.CancelRun),

		// Approvals and tasks.
		httpapi.Query(httpapi.Action{Name: "approvals.list", Method: http.MethodGet, Path: "/api/approvals", Permission: "workflows:read",
			ReadOnly: true, Summary: "Approvals of steps whose actions require confirmation (state pending: waiting for a person)",
			InputSchema: approvalsIn, OutputSchema: approvalsOut, ReadModel: view.Name},
			func(ctx context.Context, p principal.Principal, in WaitsIn) (WaitList, error) {
				ws, err := d.Queries.Waits(ctx, p.OrganizationID, "approval", in.State, in.Limit)
				return WaitList{Items: ws}, err
			}),
		httpapi.CommandAs(httpapi.Action{Name: "approvals.approve", Method: http.MethodPost, Path: "/api/approvals/{approvalId}/approve",
			Permission: "approvals:write", ReadModel: view.Name,
			Summary: "Approve a pending step: the run resumes exactly once with that step; an approval decided already answers " +
				"409 approval_decided and runs nothing",
			InputSchema: decideIn, OutputSchema: runOut}, c.Approve),
		httpapi.CommandAs(httpapi.Action{Name: "approvals.reject", Method: http.MethodPost, Path: "/api/approvals/{approvalId}/reject",
			Permission: "approvals:write", ReadModel: view.Name, Summary: "Reject a pending step: it does not run, and the run ends (rejected)",
			InputSchema: decideIn, OutputSchema: runOut}, c.Reject),
		httpapi.Query(httpapi.Action{Name: "tasks.list", Method: http.MethodGet, Path: "/api/tasks", Permission: "workflows:read",
			ReadOnly: true, Summary: "Tasks runs wait for a person to complete (state open)", InputSchema: tasksIn, OutputSchema: approvalsOut,
			ReadModel: view.Name},
			func(ctx context.Context, p principal.Principal, in WaitsIn) (WaitList, error) {
				ws, err := d.Queries.Waits(ctx, p.OrganizationID, "task", in.State, in.Limit)
				return WaitList{Items: ws}, err
			}),
		httpapi.CommandAs(httpapi.Action{Name: "tasks.complete", Method: http.MethodPost, Path: "/api/tasks/{taskId}/complete",
			Permission: "approvals:write", ReadModel: view.Name,
			Summary:     "Complete an open task with what it produced (later steps see it as the step's output); the run goes on",
			InputSchema: completeIn, OutputSchema: runOut}, c.CompleteTask),

		// Knowledge.
		httpapi.Query(httpapi.Action{Name: "knowledge.list", Method: http.MethodGet, Path: "/api/knowledge/documents", Permission: "knowledge:read",
			ReadOnly: true, Summary: "The organization's knowledge documents (what the public assistant answers from)",
			InputSchema: listIn, OutputSchema: documentsOut, ReadModel: view.Name},
			func(ctx context.Context, p principal.Principal, in ListIn) (DocumentList, error) {
				ds, err := d.Queries.Documents(ctx, p.OrganizationID, in.Limit)
				return DocumentList{Documents: ds}, err
			}),
		httpapi.Command(httpapi.Action{Name: "knowledge.add", Method: http.MethodPost, Path: "/api/knowledge/documents", Permission: "knowledge:write",
			SuccessStatus: http.StatusCreated, ReadModel: view.Name,
			Summary:     "Add a document to the organization's knowledge, with the link answers cite",
			InputSchema: documentIn, OutputSchema: documentOut}, c.AddDocument),
		httpapi.Query(httpapi.Action{Name: "knowledge.get", Method: http.MethodGet, Path: "/api/knowledge/documents/{documentId}",
			Permission: "knowledge:read", ReadOnly: true, Summary: "One knowledge document", InputSchema: documentRefIn, OutputSchema: documentOut,
			ReadModel: view.Name},
			func(ctx context.Context, p principal.Principal, in agentcmd.DocumentRef) (domain.Document, error) {
				return d.Queries.Document(ctx, p.OrganizationID, in.DocumentID)
			}),
		httpapi.Command(httpapi.Action{Name: "knowledge.update", Method: http.MethodPatch, Path: "/api/knowledge/documents/{documentId}",
			Permission: "knowledge:write", ReadModel: view.Name, Summary: "Change a knowledge document",
			InputSchema: documentPatch, OutputSchema: documentOut}, c.UpdateDocument),
		httpapi.Command(httpapi.Action{Name: "knowledge.remove", Method: http.MethodDelete, Path: "/api/knowledge/documents/{documentId}",
			Permission: "knowledge:write", Destructive: true, ReadModel: view.Name, Summary: "Take a document out of the knowledge",
			InputSchema: documentRefIn, OutputSchema: documentOut}, c.RemoveDocument),
		httpapi.Query(httpapi.Action{Name: "knowledge.search", Method: http.MethodGet, Path: "/api/knowledge/search", Permission: "knowledge:read",
			ReadOnly: true, Summary: "The passages of the organization's documents a question retrieves (PostgreSQL full-text search), best first",
			InputSchema: searchIn, OutputSchema: searchOut, ReadModel: view.Name},
			func(ctx context.Context, p principal.Principal, in SearchIn) (SearchResult, error) {
				limit := in.Limit
				if limit == 0 {
					limit = 5
				}
				ps, err := d.Queries.Search(ctx, p.OrganizationID, in.Q, limit)
				out := SearchResult{Passages: []Passage{}}
				for _, x := range ps {
					out.Passages = append(out.Passages, Passage{DocumentID: x.DocumentID, Title: x.Title, URL: x.URL, Excerpt: x.Excerpt})
				}
				return out, err
			}),

		// The public assistant.
		httpapi.Query(httpapi.Action{Name: "personas.list", Method: http.MethodGet, Path: "/api/personas", Permission: "agents:read", ReadOnly: true,
			Summary: "The public assistant's personas (the default one when none is set up)", OutputSchema: personasOut},
			func(ctx context.Context, p principal.Principal, _ httpapi.NoInput) (PersonaList, error) {
				ps, err := c.Personas(ctx, p.OrganizationID)
				return PersonaList{Personas: ps}, err
			}),
		httpapi.Command(httpapi.Action{Name: "personas.save", Method: http.MethodPut, Path: "/api/personas/{personaId}", Permission: "agents:write",
			Summary:     "Create or change a persona of the public assistant: its name, greeting, instructions and the actions offered with answers",
			InputSchema: personaIn, OutputSchema: personaOut}, c.SavePersona),
		httpapi.Command(httpapi.Action{Name: "personas.remove", Method: http.MethodDelete, Path: "/api/personas/{personaId}", Permission: "agents:write",
			Destructive: true, Summary: "Remove a persona", InputSchema: personaRefIn, OutputSchema: removedOut}, c.RemovePersona),
		httpapi.Decoded(httpapi.Action{Name: "public.chat", Method: http.MethodPost, Path: "/api/public/chat",
			Problems: []int{http.StatusPaymentRequired, http.StatusBadGateway, http.StatusGatewayTimeout},
			Summary: "The organization's public website assistant: start a session (persona), pass its human-verification challenge " +
				"(verified on the server, bound to the session), ask; answers come from the organization's own documents through the " +
				"usage gateway, with source links, actions and deeplinks, or say they cannot be grounded. Rate limited per client " +
				"address and per session (429 with Retry-After)",
			InputSchema: chatIn, OutputSchema: chatOut},
			func(ctx context.Context, call *httpapi.Call, in agentcmd.ChatIn) (httpapi.Reply, error) {
				addr := httpapi.ClientAddress(call.Request)
				if err := d.ChatByAddress.Allow("chat:" + addr); err != nil {
					return httpapi.Reply{}, err
				}
				if in.SessionID != "" {
					if err := d.ChatBySession.Allow("chat:" + in.OrganizationID + ":" + in.SessionID); err != nil {
						return httpapi.Reply{}, err
					}
				}
				out, err := a.Chat(ctx, in, addr, httpapi.RequestID(ctx))
				if err != nil {
					return httpapi.Reply{}, err
				}
				return httpapi.Reply{Body: out, Header: http.Header{"Cache-Control": {"no-store"}}}, nil
			}),

		// Person profiles.
		httpapi.Query(httpapi.Action{Name: "person_profiles.list", Method: http.MethodGet, Path: "/api/person-profiles", Permission: "agents:read",
			ReadOnly: true, Summary: "Person profiles the caller may see: its own, or every one of the organization for its admins",
			InputSchema: listIn, OutputSchema: profilesOut, ReadModel: view.Name},
			func(ctx context.Context, p principal.Principal, in ListIn) (ProfileList, error) {
				ps, err := d.Queries.Profiles(ctx, p, in.Limit)
				return ProfileList{Profiles: ps}, err
			}),
		httpapi.CommandAs(httpapi.Action{Name: "person_profiles.create", Method: http.MethodPost, Path: "/api/person-profiles",
			Permission: "agents:write", SuccessStatus: http.StatusCreated, ReadModel: view.Name,
			Summary:     "Make a person's profile (one per person): the caller's own, or any member's for an organization admin",
			InputSchema: profileIn, OutputSchema: profileOut}, a.CreateProfile),
		httpapi.Query(httpapi.Action{Name: "person_profiles.get", Method: http.MethodGet, Path: "/api/person-profiles/{id}", Permission: "agents:read",
			ReadOnly: true, Summary: "A person profile (its person and the organization's admins only; 404 to anyone else)",
			InputSchema: profileRefIn, OutputSchema: profileOut},
			func(ctx context.Context, p principal.Principal, in agentcmd.ProfileRef) (domain.ProfileView, error) {
				pr, err := a.Profile(ctx, p, in.ProfileID)
				if err != nil {
					return domain.ProfileView{}, err
				}
				return pr.View(), nil
			}),
		httpapi.CommandAs(httpapi.Action{Name: "person_profiles.update", Method: http.MethodPatch, Path: "/api/person-profiles/{id}",
			Permission: "agents:write", ReadModel: view.Name, Summary: "Change a person profile's name or headline",
			InputSchema: profilePatch, OutputSchema: profileOut}, a.UpdateProfile),
		httpapi.CommandAs(httpapi.Action{Name: "person_profiles.delete", Method: http.MethodDelete, Path: "/api/person-profiles/{id}",
			Permission: "agents:write", Destructive: true, ReadModel: view.Name, Summary: "Delete a person profile with its sources and snapshots",
			InputSchema: profileRefIn, OutputSchema: profileOut}, a.DeleteProfile),
		httpapi.Query(httpapi.Action{Name: "person_profiles.sources.list", Method: http.MethodGet, Path: "/api/person-profiles/{id}/sources",
			Permission: "agents:read", ReadOnly: true, Summary: "A profile's sources: what the person wrote or said",
			InputSchema: profileRefIn, OutputSchema: sourcesOut},
			func(ctx context.Context, p principal.Principal, in agentcmd.ProfileRef) (SourceList, error) {
				pr, err := a.Profile(ctx, p, in.ProfileID)
				if err != nil {
					return SourceList{}, err
				}
				return SourceList{Sources: pr.Sources}, nil
			}),
		httpapi.CommandAs(httpapi.Action{Name: "person_profiles.sources.add", Method: http.MethodPost, Path: "/api/person-profiles/{id}/sources",
			Permission: "agents:write", SuccessStatus: http.StatusCreated, ReadModel: view.Name,
			Summary:     "Add a source to a profile (a post, an email, an article, a transcript, a note)",
			InputSchema: sourceIn, OutputSchema: profileOut}, a.AddSource),
		httpapi.CommandAs(httpapi.Action{Name: "person_profiles.sources.remove", Method: http.MethodDelete,
			Path: "/api/person-profiles/{id}/sources/{sourceId}", Permission: "agents:write", Destructive: true, ReadModel: view.Name,
			Summary: "Take a source out of a profile", InputSchema: sourceRefIn, OutputSchema: profileOut}, a.RemoveSource),
		httpapi.Query(httpapi.Action{Name: "person_profiles.style_snapshots.list", Method: http.MethodGet,
			Path: "/api/person-profiles/{id}/style-snapshots", Permission: "agents:read", ReadOnly: true,
			Summary: "A profile's style snapshots, oldest first", InputSchema: profileRefIn, OutputSchema: snapshotsOut},
			func(ctx context.Context, p principal.Principal, in agentcmd.ProfileRef) (SnapshotList, error) {
				pr, err := a.Profile(ctx, p, in.ProfileID)
				if err != nil {
					return SnapshotList{}, err
				}
				return SnapshotList{StyleSnapshots: pr.Snapshots}, nil
			}),
		httpapi.CommandAs(httpapi.Action{Name: "person_profiles.style_snapshots.create", Method: http.MethodPost,
			Path: "/api/person-profiles/{id}/style-snapshots", Permission: "agents:write", SuccessStatus: http.StatusCreated, ReadModel: view.Name,
			Summary:     "Measure the person's writing style over the profile's sources now (409 no_sources without any)",
			InputSchema: profileRefIn, OutputSchema: profileOut}, a.TakeSnapshot),
		httpapi.Perform(httpapi.Action{Name: "person_profiles.preview", Method: http.MethodPost, Path: "/api/person-profiles/{id}/preview",
			Permission: "agents:write", Problems: []int{http.StatusPaymentRequired, http.StatusBadGateway, http.StatusGatewayTimeout},
			Summary: "A draft on a topic in the person's style, from the profile's own sources only, through the usage gateway " +
				"(metered), citing the sources it drew on (409 no_sources when none is on the topic)",
			InputSchema: previewIn, OutputSchema: previewOut},
			func(ctx context.Context, _ commands.Meta, p principal.Principal, in agentcmd.PreviewIn) (agentcmd.Preview, error) {
				return a.Preview(ctx, p, in)
			}),

		httpapi.Query(httpapi.Action{Name: "policy_refusals.list", Method: http.MethodGet, Path: "/api/policy-refusals", Permission: "reports:read",
			ReadOnly: true, Summary: "Cross-organization actions refused for want of a policy decision (none can allow one: no cross-organization network service exists)",
			InputSchema: listIn, OutputSchema: refusalsOut, ReadModel: view.Name},
			func(ctx context.Context, p principal.Principal, in ListIn) (RefusalList, error) {
				rs, err := d.Queries.Refusals(ctx, p.OrganizationID, in.Limit)
				return RefusalList{Refusals: rs}, err
			}),
	}}
}

// HealthPath is the agent's liveness route.
const HealthPath = "/api/health"

// Widget is the agent's tile: active flows, pending tasks, pending
// approvals and runs started today (UTC).
func Widget(d Deps) *httpapi.Widget {
	return httpapi.NewWidget(httpapi.Widget{Title: "Agent", Permission: "workflows:read", ReadModel: view.Name,
		Summary: "The agent's tile: active flows, open tasks, pending approvals and runs started today (UTC)"},
		func(ctx context.Context, p principal.Principal) (view.Figures, error) {
			return d.Queries.Figures(ctx, p.OrganizationID, d.now())
		})
}

// ActionItems are the approvals and tasks waiting for a person.
func ActionItems(d Deps) *httpapi.ActionItems {
	return httpapi.NewActionItems("workflows:read", func(ctx context.Context, p principal.Principal, now time.Time) ([]httpapi.ActionItem, error) {
		var out []httpapi.ActionItem
		approvals, err := d.Queries.Waits(ctx, p.OrganizationID, "approval", "pending", view.MaxList)
		if err != nil {
			return nil, err
		}
		for _, w := range approvals {
			severity := "warning"
			if w.ExpiresAt != nil && w.ExpiresAt.Sub(now) < time.Hour {
				severity = "critical"
			}
			requested := w.RequestedAt
			out = append(out, httpapi.ActionItem{Kind: "agent.approval.pending", ObjectID: w.ID,
				Title:  "Approve step " + strconv.Itoa(w.Step+1) + " of " + w.FlowName,
				Detail: w.StepName + ": " + w.Service + " " + w.Action + expiry(w.ExpiresAt), Severity: severity,
				Path: "/approvals/" + w.ID, Resolve: "approvals.approve", At: &requested})
		}
		tasks, err := d.Queries.Waits(ctx, p.OrganizationID, "task", "open", view.MaxList)
		if err != nil {
			return nil, err
		}
		for _, w := range tasks {
			requested := w.RequestedAt
			out = append(out, httpapi.ActionItem{Kind: "agent.task.open", ObjectID: w.ID,
				Title: "Complete step " + strconv.Itoa(w.Step+1) + " of " + w.FlowName, Detail: bound(w.Instructions, 200), Severity: "info",
				Path: "/tasks/" + w.ID, Resolve: "tasks.complete", At: &requested})
		}
		return out, nil
	})
}

func expiry(at *time.Time) string {
	if at == nil {
		return ""
	}
	return " (expires " + at.UTC().Format(time.RFC3339) + ")"
}

func bound(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
