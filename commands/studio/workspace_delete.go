package studio

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/commands/workspace"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/eventstore"
)

// DeleteWorkspace is workspaces.delete.
type DeleteWorkspace struct {
	WorkspaceSlug string `json:"workspaceSlug"`
}

// WorkspaceList is the organization's workspaces after a deletion.
type WorkspaceList struct {
	Workspaces []WorkspaceView `json:"workspaces"`
}

// WorkspaceView is a workspace as the studio answers it.
type WorkspaceView = workspace.View

// Views are workspaces as the studio answers them.
func Views(all []Workspace) []WorkspaceView { return workspace.Views(all) }

// DeleteWorkspace deletes a non-default empty workspace (identity's record,
// with the studio's check in the same transaction): 409 default_workspace
// for the default one, 409 workspace_not_empty while it holds a live
// project, asset, template or preset. The workspace's lock, taken
// exclusively, waits for the studio commands in flight in it; the ones after
// the deletion find it deleted.
func (h *Handlers) DeleteWorkspace(ctx context.Context, m commands.Meta, p principal.Principal, in DeleteWorkspace) (WorkspaceList, error) {
	ws, err := h.Enter(ctx, p, in.WorkspaceSlug, PermWorkspaceDelete)
	if err != nil {
		return WorkspaceList{}, err
	}
	if ws.Default {
		return WorkspaceList{}, errs.Conflict("default_workspace", "the organization's default workspace cannot be deleted; make another one the default first")
	}
	all, err := h.dir.DeleteWorkspace(ctx, meta(m, p), ws.Slug, WorkspaceGuard{
		Prepare: func(ctx context.Context, tx eventstore.Tx, workspaceID string) error {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(`+registry.WorkspaceLock()+`)`, workspaceID); err != nil {
				return err
			}
			var held int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM studio_objects WHERE workspace_id = $1 AND live
				AND kind IN ('project', 'asset', 'template', 'preset')`, workspaceID).Scan(&held); err != nil {
				return err
			}
			if held > 0 {
				return errs.Conflict("workspace_not_empty", "the workspace still holds projects, assets, templates or presets: delete them first")
			}
			return nil
		},
		Writes: func(workspaceID string) []eventstore.Write {
			return []eventstore.Write{{SQL: `INSERT INTO studio_deleted_workspaces (workspace_id, organization_id) VALUES ($1, $2)
				ON CONFLICT (workspace_id) DO NOTHING`, Args: []any{workspaceID, p.OrganizationID}}}
		},
	})
	if err != nil {
		return WorkspaceList{}, err
	}
	return WorkspaceList{Workspaces: Views(all)}, nil
}
