package identity

import (
	"strings"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// Workspace status lives on the organization's access stream: a developer
// workspace that is suspended or revoked cannot mutate its API keys (seed
// 001). Revoked is final; suspended can be reinstated.
const (
	WorkspaceSuspended  = "identity.access.workspace_suspended"
	WorkspaceReinstated = "identity.access.workspace_reinstated"
	WorkspaceRevoked    = "identity.access.workspace_revoked"

	WorkspaceActive         = "active"
	WorkspaceStateSuspended = "suspended"
	WorkspaceStateRevoked   = "revoked"
)

type WorkspaceStatusV1 struct {
	OrganizationID string    `json:"organization_id"`
	Reason         string    `json:"reason,omitempty"`
	At             time.Time `json:"at"`
}

// workspaceStatusFold folds a workspace's status changes into its access
// model (permissions_access.go joins it to the access table).
var workspaceStatusFold = event.Fold[*OrgAccess]{
	WorkspaceSuspended:  workspaceStatus(WorkspaceStateSuspended),
	WorkspaceReinstated: workspaceStatus(WorkspaceActive),
	WorkspaceRevoked:    workspaceStatus(WorkspaceStateRevoked),
}

func workspaceStatus(status string) event.Step[*OrgAccess] {
	return event.Apply(func(a *OrgAccess, _ WorkspaceStatusV1) { a.status = status })
}

// Status is active, suspended or revoked.
func (a *OrgAccess) Status() string { return a.status }

// CanMutateKeys refuses key changes of a suspended or revoked workspace.
func (a *OrgAccess) CanMutateKeys() error {
	switch a.status {
	case WorkspaceStateSuspended:
		return errs.Conflict("workspace_suspended", "the workspace is suspended: its API keys cannot be changed")
	case WorkspaceStateRevoked:
		return errs.Conflict("workspace_revoked", "the workspace is revoked: its API keys cannot be changed")
	}
	return nil
}

// SetWorkspaceStatus moves the workspace to active, suspended or revoked.
func (a *OrgAccess) SetWorkspaceStatus(status, reason string, now time.Time) ([]event.Change, error) {
	if a.status == status {
		return nil, nil
	}
	if a.status == WorkspaceStateRevoked {
		return nil, errs.Conflict("workspace_revoked", "a revoked workspace stays revoked")
	}
	payload := WorkspaceStatusV1{OrganizationID: a.organizationID, Reason: strings.TrimSpace(reason), At: now}
	switch status {
	case WorkspaceStateSuspended:
		return []event.Change{event.New(WorkspaceSuspended, payload)}, nil
	case WorkspaceActive:
		return []event.Change{event.New(WorkspaceReinstated, payload)}, nil
	case WorkspaceStateRevoked:
		return []event.Change{event.New(WorkspaceRevoked, payload)}, nil
	}
	return nil, errs.InvalidField("/status", "must be one of active, suspended, revoked")
}
