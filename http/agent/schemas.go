package agent

import (
	"encoding/json"

	agentcmd "github.com/platform/backend/commands/agent"
	domain "github.com/platform/backend/domain/agent"
	"github.com/platform/backend/domain/text"
	httpapi "github.com/platform/backend/http"
	view "github.com/platform/backend/projections/agent"
	"github.com/platform/backend/providers/verification"
)

func enum(values ...string) string {
	raw, _ := json.Marshal(map[string]any{"type": "string", "enum": values})
	return string(raw)
}

// Input member schemas (bounds: domain/agent and domain/text).
var (
	idSchema       = httpapi.LineSchema(1, text.MaxID)
	nameSchema     = httpapi.StringSchema(1, text.MaxTitle, text.NonBlankLinePattern, nil)
	stepNameSchema = httpapi.StringSchema(0, domain.MaxStepName, text.LinePattern, nil)
	descSchema     = httpapi.TextSchema(0, domain.MaxDescription)
	noteSchema     = httpapi.TextSchema(0, 500)
	limitSchema    = `{"type":"integer","minimum":1,"maximum":200}`
	// A template or a task's data: any JSON object (the kernel refuses NUL
	// at any depth; the domain bounds its size).
	objectSchema = `{"type":"object","maxProperties":100}`
	// A manual run's input and a task's output: a JSON object (or nothing),
	// which later steps refer into.
	anyJSONSchema = `{"type":["object","null"],"maxProperties":100}`
	actionSchema  = httpapi.PatternSchema(text.MaxID, `^[a-z][a-z0-9_.-]{0,127}$`)
	flowRefIn     = httpapi.Object([]string{"flowId"}, map[string]string{"flowId": idSchema})
	flowsListIn   = httpapi.Object(nil, map[string]string{"state": enum(domain.FlowStates...), "limit": limitSchema})
	runStartIn    = httpapi.Object([]string{"flowId"}, map[string]string{"flowId": idSchema, "input": anyJSONSchema})
	runsListIn    = httpapi.Object(nil, map[string]string{"flowId": idSchema, "status": enum(domain.RunStatuses...), "limit": limitSchema})
	runRefIn      = httpapi.Object([]string{"runId"}, map[string]string{"runId": idSchema})
	runCancelIn   = httpapi.Object([]string{"runId"}, map[string]string{"runId": idSchema, "reason": noteSchema})
	decideIn      = httpapi.Object([]string{"approvalId"}, map[string]string{"approvalId": idSchema, "note": noteSchema})
	approvalsIn   = httpapi.Object(nil, map[string]string{"state": enum(view.ApprovalStates...), "limit": limitSchema})
	tasksIn       = httpapi.Object(nil, map[string]string{"state": enum(view.TaskStates...), "limit": limitSchema})
	completeIn    = httpapi.Object([]string{"taskId"}, map[string]string{"taskId": idSchema, "output": anyJSONSchema, "note": noteSchema})

	urlSchema     = httpapi.URLSchema("https?")
	contentSchema = httpapi.StringSchema(1, domain.MaxDocument, text.NonBlankTextPattern, nil)
	documentIn    = httpapi.Object([]string{"title", "content"}, map[string]string{"title": nameSchema, "url": urlSchema, "content": contentSchema})
	documentPatch = httpapi.RequireAnyOf(httpapi.Object([]string{"documentId"}, map[string]string{"documentId": idSchema,
		"title": nameSchema, "url": urlSchema, "content": contentSchema}), "title", "url", "content")
	documentRefIn = httpapi.Object([]string{"documentId"}, map[string]string{"documentId": idSchema})
	listIn        = httpapi.Object(nil, map[string]string{"limit": limitSchema})
	searchIn      = httpapi.Object([]string{"q"}, map[string]string{"q": httpapi.StringSchema(1, domain.MaxQuestion, text.NonBlankLinePattern, nil),
		"limit": `{"type":"integer","minimum":1,"maximum":20}`})

	personaIDSchema = httpapi.PatternSchema(40, domain.PersonaIDPattern)
	linkSchema      = string(httpapi.Object([]string{"label", "url"}, map[string]string{
		"label": httpapi.StringSchema(1, domain.MaxLinkLabel, text.NonBlankLinePattern, nil), "url": urlSchema}))
	personaIn = httpapi.Object([]string{"personaId", "name"}, map[string]string{
		"personaId": personaIDSchema, "name": nameSchema, "greeting": httpapi.TextSchema(0, domain.MaxGreeting),
		"instructions": httpapi.TextSchema(0, domain.MaxPersonaPrompt),
		"actions":      `{"type":"array","maxItems":5,"items":` + linkSchema + `}`, "default": `{"type":"boolean"}`,
	})
	personaRefIn = httpapi.Object([]string{"personaId"}, map[string]string{"personaId": personaIDSchema})

	chatIn = httpapi.Object([]string{"organizationId"}, map[string]string{
		"organizationId": idSchema, "sessionId": idSchema, "persona": personaIDSchema,
		"message":      httpapi.TextSchema(0, domain.MaxQuestion),
		"verification": string(httpapi.Object([]string{"token"}, map[string]string{"token": httpapi.LineSchema(1, verification.MaxToken)})),
	})

	profileIn = httpapi.Object([]string{"displayName"}, map[string]string{"subjectUserId": idSchema, "displayName": nameSchema,
		"headline": httpapi.LineSchema(0, domain.MaxHeadline)})
	profilePatch = httpapi.RequireAnyOf(httpapi.Object([]string{"id"}, map[string]string{"id": idSchema, "displayName": nameSchema,
		"headline": httpapi.LineSchema(0, domain.MaxHeadline)}), "displayName", "headline")
	profileRefIn = httpapi.Object([]string{"id"}, map[string]string{"id": idSchema})
	sourceIn     = httpapi.Object([]string{"id", "kind", "title", "content"}, map[string]string{"id": idSchema,
		"kind": enum(domain.SourceKinds...), "title": nameSchema, "url": urlSchema,
		"content": httpapi.StringSchema(1, domain.MaxSourceContent, text.NonBlankTextPattern, nil)})
	sourceRefIn = httpapi.Object([]string{"id", "sourceId"}, map[string]string{"id": idSchema, "sourceId": idSchema})
	previewIn   = httpapi.Object([]string{"id", "topic"}, map[string]string{"id": idSchema,
		"topic":  httpapi.StringSchema(1, text.MaxReason, text.NonBlankLinePattern, nil),
		"format": enum(agentcmd.Formats...)})
)

// Output schemas.
var (
	flowOut      = httpapi.OutputOf(domain.Flow{}, flowOpts("")...)
	flowsOut     = httpapi.OutputOf(FlowList{}, flowOpts("flows[].")...)
	runOut       = httpapi.OutputOf(domain.Run{}, runOpts("")...)
	runsOut      = httpapi.OutputOf(RunList{}, runOpts("runs[].")...)
	approvalsOut = httpapi.OutputOf(WaitList{}, httpapi.EnumOf("items[].kind", "approval", "task"),
		httpapi.EnumOf("items[].state", append(append([]string{}, view.ApprovalStates...), view.TaskStates...)...))
	actionsOut   = httpapi.OutputOf(ActionList{})
	documentOut  = httpapi.OutputOf(domain.Document{})
	documentsOut = httpapi.OutputOf(DocumentList{})
	searchOut    = httpapi.OutputOf(SearchResult{})
	personaOut   = httpapi.OutputOf(domain.Persona{})
	personasOut  = httpapi.OutputOf(PersonaList{})
	removedOut   = httpapi.OutputOf(agentcmd.Removed{})
	chatOut      = httpapi.OutputOf(agentcmd.ChatOut{})
	profileOut   = httpapi.OutputOf(domain.ProfileView{})
	profilesOut  = httpapi.OutputOf(ProfileList{})
	sourcesOut   = httpapi.OutputOf(SourceList{}, httpapi.EnumOf("sources[].kind", domain.SourceKinds...))
	snapshotsOut = httpapi.OutputOf(SnapshotList{})
	previewOut   = httpapi.OutputOf(agentcmd.Preview{}, httpapi.EnumOf("format", agentcmd.Formats...))
	refusalsOut  = httpapi.OutputOf(RefusalList{})
)

func flowOpts(at string) []httpapi.OutputOption {
	return []httpapi.OutputOption{
		httpapi.EnumOf(at+"state", domain.FlowStateActive, domain.FlowStatePaused, domain.FlowStateDeleted),
		httpapi.EnumOf(at+"definition.trigger.type", domain.TriggerTypes...),
		httpapi.EnumOf(at+"definition.steps[].kind", domain.StepKinds...),
		httpapi.EnumOf(at+"owner.type", "user", "api_key"),
	}
}

func runOpts(at string) []httpapi.OutputOption {
	return []httpapi.OutputOption{
		httpapi.EnumOf(at+"status", domain.RunStatuses...),
		httpapi.EnumOf(at+"trigger.type", domain.TriggerTypes...),
		httpapi.EnumOf(at+"steps[].status", domain.StepStatuses...),
		httpapi.EnumOf(at+"steps[].kind", domain.StepKinds...),
		httpapi.EnumOf(at+"steps[].decision.kind", domain.DecisionKinds...),
	}
}

// Lists.
type (
	FlowList struct {
		Flows []domain.Flow `json:"flows"`
	}
	RunList struct {
		Runs []domain.Run `json:"runs"`
	}
	WaitList struct {
		Items []view.Wait `json:"items"`
	}
	ActionList struct {
		Actions     []agentcmd.Listed `json:"actions"`
		Unavailable []string          `json:"unavailable"`
	}
	DocumentList struct {
		Documents []view.DocumentSummary `json:"documents"`
	}
	SearchResult struct {
		Passages []Passage `json:"passages"`
	}
	Passage struct {
		DocumentID string `json:"documentId"`
		Title      string `json:"title"`
		URL        string `json:"url"`
		Excerpt    string `json:"excerpt"`
	}
	PersonaList struct {
		Personas []domain.Persona `json:"personas"`
	}
	ProfileList struct {
		Profiles []view.ProfileSummary `json:"profiles"`
	}
	SourceList struct {
		Sources []domain.Source `json:"sources"`
	}
	SnapshotList struct {
		StyleSnapshots []domain.StyleSnapshot `json:"styleSnapshots"`
	}
	RefusalList struct {
		Refusals []view.Refusal `json:"refusals"`
	}
)

// flowSchemas are the flow inputs, with the platform's event types (an
// event trigger names one) and the services a step may call.
func flowSchemas(eventTypes, services []string) (create, patch json.RawMessage) {
	none := func(members ...string) map[string]any {
		list := make([]any, len(members))
		for i, m := range members {
			list[i] = map[string]any{"required": []string{m}}
		}
		return map[string]any{"anyOf": list}
	}
	eventTypeSchema := map[string]any{"type": "string", "maxLength": text.MaxID, "pattern": text.LinePattern}
	if len(eventTypes) > 0 {
		eventTypeSchema = map[string]any{"type": "string", "enum": eventTypes}
	}
	serviceSchema := map[string]any{"type": "string", "maxLength": 63, "pattern": `^[a-z][a-z0-9_-]{0,62}$`}
	if len(services) > 0 {
		serviceSchema = map[string]any{"type": "string", "enum": services}
	}
	// manual (nothing else), schedule (every 5..10080 minutes, from an
	// optional start) or event (one of the platform's event types outside
	// the agent's own).
	trigger := map[string]any{"type": "object", "additionalProperties": false, "required": []string{"type"},
		"properties": map[string]any{
			"type":         map[string]any{"type": "string", "enum": domain.TriggerTypes},
			"eventType":    eventTypeSchema,
			"everyMinutes": map[string]any{"type": "integer", "minimum": domain.MinEveryMinutes, "maximum": domain.MaxEveryMinutes},
			"startAt":      json.RawMessage(httpapi.DateTimeSchema()),
		},
		"allOf": []any{
			map[string]any{"if": map[string]any{"properties": map[string]any{"type": map[string]any{"const": domain.TriggerManual}}},
				"then": map[string]any{"not": none("eventType", "everyMinutes", "startAt")}},
			map[string]any{"if": map[string]any{"properties": map[string]any{"type": map[string]any{"const": domain.TriggerSchedule}}},
				"then": map[string]any{"required": []string{"everyMinutes"}, "not": none("eventType")}},
			map[string]any{"if": map[string]any{"properties": map[string]any{"type": map[string]any{"const": domain.TriggerEvent}}},
				"then": map[string]any{"required": []string{"eventType"}, "not": none("everyMinutes", "startAt")}},
		}}
	step := map[string]any{"type": "object", "additionalProperties": false,
		"properties": map[string]any{
			"name":               json.RawMessage(stepNameSchema),
			"kind":               map[string]any{"type": "string", "enum": domain.StepKinds},
			"service":            serviceSchema,
			"action":             json.RawMessage(actionSchema),
			"input":              json.RawMessage(objectSchema),
			"instructions":       json.RawMessage(httpapi.StringSchema(1, domain.MaxInstructions, text.NonBlankTextPattern, nil)),
			"approvalTtlMinutes": map[string]any{"type": "integer", "minimum": 0, "maximum": domain.MaxApprovalMinutes},
			"organizationId":     json.RawMessage(httpapi.LineSchema(0, text.MaxID)),
		},
		// A task (kind task) has instructions and calls nothing; an action
		// (the default kind) names a service and an action.
		"if":   map[string]any{"required": []string{"kind"}, "properties": map[string]any{"kind": map[string]any{"const": domain.KindTask}}},
		"then": map[string]any{"required": []string{"instructions"}, "not": none("service", "action")},
		"else": map[string]any{"required": []string{"service", "action"}, "not": none("instructions")},
	}
	steps := map[string]any{"type": "array", "minItems": 1, "maxItems": domain.MaxSteps, "items": step}
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	create = httpapi.Object([]string{"name", "trigger", "steps"}, map[string]string{
		"name": nameSchema, "description": descSchema, "trigger": enc(trigger), "steps": enc(steps),
	})
	patch = httpapi.RequireAnyOf(httpapi.Object([]string{"flowId"}, map[string]string{
		"flowId": idSchema, "name": nameSchema, "description": descSchema, "trigger": enc(trigger), "steps": enc(steps),
	}), "name", "description", "trigger", "steps")
	return create, patch
}
