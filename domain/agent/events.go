// Package agent is the agent service's domain (seed 002): flows (a trigger
// and steps that call platform actions by their descriptors, with inputs
// mapped from earlier steps), runs (each step's input, output, decision and
// timing), approvals and tasks for people, the organization's knowledge and
// its public website assistant (personas, chat sessions bound to a
// human-verification challenge), person profiles with sources and style
// snapshots, and the refusals of cross-organization actions. Pure Go: no
// I/O, time passed in.
package agent

// Context is the bounded context's name: its topic, its stream types'
// prefix, its job kinds' prefix.
const Context = "agent"

// Stream types.
const (
	StreamFlow      = "agent.flow"
	StreamRun       = "agent.run"
	StreamKnowledge = "agent.knowledge"
	StreamAssistant = "agent.assistant" // one per organization: its personas
	StreamChat      = "agent.chat"      // one per chat session
	StreamProfile   = "agent.profile"
	StreamPolicy    = "agent.policy" // one per organization: refused cross-organization actions
)

// AssistantStreamID and PolicyStreamID are an organization's assistant and
// policy streams (stream ids are the platform's, across contexts and types).
func AssistantStreamID(organizationID string) string { return "agent-assistant:" + organizationID }
func PolicyStreamID(organizationID string) string    { return "agent-policy:" + organizationID }

// Event types: dotted, past tense, schema version 1.
const (
	FlowCreated   = "agent.flow.created"
	FlowUpdated   = "agent.flow.updated"
	FlowPaused    = "agent.flow.paused"
	FlowResumed   = "agent.flow.resumed"
	FlowDeleted   = "agent.flow.deleted"
	FlowTriggered = "agent.flow.triggered"

	RunStarted        = "agent.run.started"
	StepRequested     = "agent.run.step_requested"
	ApprovalRequested = "agent.run.approval_requested"
	ApprovalGranted   = "agent.run.approval_granted"
	ApprovalRejected  = "agent.run.approval_rejected"
	ApprovalExpired   = "agent.run.approval_expired"
	TaskOpened        = "agent.run.task_opened"
	TaskCompleted     = "agent.run.task_completed"
	StepSucceeded     = "agent.run.step_succeeded"
	StepFailed        = "agent.run.step_failed"
	RunEnded          = "agent.run.ended"

	DocumentAdded   = "agent.knowledge.document_added"
	DocumentUpdated = "agent.knowledge.document_updated"
	DocumentRemoved = "agent.knowledge.document_removed"

	PersonaSaved   = "agent.assistant.persona_saved"
	PersonaRemoved = "agent.assistant.persona_removed"

	ChatStarted          = "agent.chat.session_started"
	ChatVerified         = "agent.chat.session_verified"
	ChatVerificationFail = "agent.chat.verification_refused"
	ChatAnswered         = "agent.chat.message_answered"

	ProfileCreated     = "agent.profile.created"
	ProfileUpdated     = "agent.profile.updated"
	ProfileDeleted     = "agent.profile.deleted"
	SourceAdded        = "agent.profile.source_added"
	SourceRemoved      = "agent.profile.source_removed"
	StyleSnapshotTaken = "agent.profile.style_snapshot_taken"
	CrossOrgRefused    = "agent.policy.cross_organization_refused"
)

// EventTypes are every event type of the agent's own streams (its job
// streams' types are domain/jobs.EventTypes(Context)).
var EventTypes = []string{
	FlowCreated, FlowUpdated, FlowPaused, FlowResumed, FlowDeleted, FlowTriggered,
	RunStarted, StepRequested, ApprovalRequested, ApprovalGranted, ApprovalRejected, ApprovalExpired, TaskOpened,
	TaskCompleted, StepSucceeded, StepFailed, RunEnded,
	DocumentAdded, DocumentUpdated, DocumentRemoved,
	PersonaSaved, PersonaRemoved,
	ChatStarted, ChatVerified, ChatVerificationFail, ChatAnswered,
	ProfileCreated, ProfileUpdated, ProfileDeleted, SourceAdded, SourceRemoved, StyleSnapshotTaken,
	CrossOrgRefused,
}

// Timer kinds of the agent's streams.
const (
	// TimerSchedule fires a scheduled flow (on the flow's stream, name
	// "schedule").
	TimerSchedule = "agent.flow_schedule"
	// TimerApprovalExpiry ends a run whose approval was not decided in
	// time (on the run's stream, name "approval:<step>").
	TimerApprovalExpiry = "agent.approval_expiry"
)

// StepKind is the job kind that runs one action step of a run.
const StepKind = "agent.step"
