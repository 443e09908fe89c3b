package design

import (
	"context"

	"github.com/platform/backend/commands/workspace"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/eventstore"
)

// Object kinds of the registry (design_objects).
const (
	KindProject = "project"
	KindDesign  = "design"
	KindAsset   = "asset"
	KindExport  = "export"
)

// registry is the design service's register of its objects
// (design_objects, commands/workspace): only images are named by an
// input (a layer's image), "no such image in this workspace".
var registry = &workspace.Registry{Context: "design", Names: map[string]string{KindAsset: "image"}}

// designsOf counts a project's live designs in the guard's transaction
// (a project that holds any is not deleted).
func designsOf(project string, n *int) func(ctx context.Context, tx eventstore.Tx) error {
	return func(ctx context.Context, tx eventstore.Tx) error {
		return tx.QueryRow(ctx, `SELECT count(*) FROM design_objects WHERE project_id = $1 AND kind = 'design' AND live`, project).Scan(n)
	}
}

// registered answers 404 unless the registry holds a live object of the
// kind in the workspace (a check before a command's own, in its
// transaction).
func (h *Handlers) registered(ctx context.Context, org, workspaceID, id, kind string) error {
	ok, err := registry.Live(ctx, h.pool, org, workspaceID, kind, id)
	if err != nil {
		return errs.Unavailable("the design service's store is unavailable", err)
	}
	if !ok {
		return errs.NotFound(kind)
	}
	return nil
}

// register records a new object in the registry (with its creation's
// events), with the design it belongs to (an export's).
func register(org, workspaceID, kind, id, project, design, objectKey string) eventstore.Write {
	return registry.Register(org, workspaceID, kind, id, project, objectKey, workspace.Column{Name: "design_id", Value: design})
}

// objectKey is where an image's or an export's bytes are: the
// organization's namespace, then the design service's.
func objectKey(org, kind, id string) string { return org + "/design/" + kind + "s/" + id }

// guard and object are the workspace kernel's (commands/workspace) in this
// context's words; meta is a command's meta in the caller's organization.
type (
	guard            = workspace.Guard
	object[M, T any] = workspace.Object[M, T]
)

var meta = workspace.Meta
