package identity

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
)

// WorkspaceGuard is what the service that holds a workspace's content says
// about deleting it, in the deletion's transaction: identity keeps
// workspaces, the services keep what is in them.
type WorkspaceGuard struct {
	// Prepare runs after the workspaces stream's lock, before the decision:
	// it locks what the workspace holds and refuses (an error) when it is
	// not empty.
	Prepare func(ctx context.Context, tx eventstore.Tx, workspaceID string) error
	// Writes are the service's own write-side statements, committed with
	// the deletion (a marker that keeps new content out of the workspace).
	Writes func(workspaceID string) []eventstore.Write
}

// DeleteWorkspace deletes a workspace of the caller's organization, named
// by its slug: never the default one (409 default_workspace), and only when
// the guard lets it.
func (a *Access) DeleteWorkspace(ctx context.Context, m commands.Meta, slug string, guard WorkspaceGuard) (commands.Result[domain.WorkspaceList], error) {
	ws, err := a.resolveWorkspace(ctx, m.OrganizationID, slug)
	if err != nil {
		return commands.Result[domain.WorkspaceList]{}, err
	}
	var opts []commands.Option
	if guard.Prepare != nil {
		opts = append(opts, commands.Prepared(func(ctx context.Context, tx eventstore.Tx) error {
			return guard.Prepare(ctx, tx, ws.WorkspaceID)
		}))
	}
	if guard.Writes != nil {
		opts = append(opts, commands.Also(func(domain.WorkspaceList) []eventstore.Write { return guard.Writes(ws.WorkspaceID) }))
	}
	return a.workspaceCommand(ctx, m, func(w *domain.Workspaces) ([]event.Change, error) {
		return w.Delete(ws.WorkspaceID, a.now())
	}, opts...)
}
