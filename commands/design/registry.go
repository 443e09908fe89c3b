package design

import (
	"context"
	"slices"

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

// orgLock is the organization's transaction-scoped advisory lock
// (hashtextextended of a name under seed 7, as the studio's): every design
// command holds it shared, an erasure exclusively, so an erasure waits for
// the commands in flight and the commands after it see it.
const orgLock = `hashtextextended('design-org:' || $1, 7)`

// guard is a command's check in the registry, made in its transaction
// after its stream's lock (commands.Prepared): which of the objects it
// names are live in the workspace, and (for a project's deletion) how many
// live designs the project holds.
type guard struct {
	org, workspace string
	ids            []string
	designsOf      string // a project whose live designs are counted

	live    map[string]entry
	designs int
}

type entry struct{ kind, project string }

func (g *guard) name(ids ...string) *guard {
	g.ids = append(g.ids, ids...)
	return g
}

func (g *guard) prepare(ctx context.Context, tx eventstore.Tx) error {
	// The lock in a statement of its own: the next reads with a snapshot
	// taken after it, so an erasure that committed meanwhile is seen.
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock_shared(`+orgLock+`)`, g.org); err != nil {
		return err
	}
	ids := slices.Compact(slices.Sorted(slices.Values(g.ids)))
	rows, err := tx.Query(ctx, `SELECT object_id, kind, coalesce(project_id, '') FROM design_objects WHERE object_id = ANY($1)
		AND organization_id = $2 AND workspace_id = $3 AND live`, ids, g.org, g.workspace)
	if err != nil {
		return err
	}
	defer rows.Close()
	g.live = map[string]entry{}
	for rows.Next() {
		var id string
		var e entry
		if err := rows.Scan(&id, &e.kind, &e.project); err != nil {
			return err
		}
		g.live[id] = e
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if g.designsOf != "" {
		return tx.QueryRow(ctx, `SELECT count(*) FROM design_objects WHERE project_id = $1 AND kind = 'design' AND live`,
			g.designsOf).Scan(&g.designs)
	}
	return nil
}

// is reports a live object of the kind in the workspace.
func (g *guard) is(id, kind string) bool { return g.live[id].kind == kind }

// missing answers 404 unless the object is a live object of its kind in
// the workspace.
func (g *guard) missing(id, kind string) error {
	if !g.is(id, kind) {
		return errs.NotFound(kind)
	}
	return nil
}

// refs answers 422 at each pointer whose id is not a live object of the
// kind in the workspace.
func (g *guard) refs(kind, what string, byPointer map[string]string) error {
	pointers := make([]string, 0, len(byPointer))
	for p := range byPointer {
		pointers = append(pointers, p)
	}
	slices.Sort(pointers)
	var fields []errs.Field
	for _, p := range pointers {
		if !g.is(byPointer[p], kind) {
			fields = append(fields, errs.Field{Pointer: p, Detail: "no such " + what + " in this workspace"})
		}
	}
	if len(fields) > 0 {
		return errs.Invalid(fields...)
	}
	return nil
}

// registered answers 404 unless the registry holds a live object of the
// kind in the workspace (a check before a command's own, in its
// transaction).
func (h *Handlers) registered(ctx context.Context, org, workspaceID, id, kind string) error {
	var ok bool
	err := h.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM design_objects WHERE object_id = $1 AND organization_id = $2
		AND workspace_id = $3 AND kind = $4 AND live)`, id, org, workspaceID, kind).Scan(&ok)
	if err != nil {
		return errs.Unavailable("the design service's store is unavailable", err)
	}
	if !ok {
		return errs.NotFound(kind)
	}
	return nil
}

// register records a new object in the registry (with its creation's events).
func register(org, workspace, kind, id, project, design, objectKey string) eventstore.Write {
	return eventstore.Write{SQL: `INSERT INTO design_objects (object_id, organization_id, workspace_id, kind, project_id, design_id, object_key)
		VALUES ($1, $2, $3, $4, nullif($5, ''), nullif($6, ''), nullif($7, '')) ON CONFLICT (object_id) DO NOTHING`,
		Args: []any{id, org, workspace, kind, project, design, objectKey}}
}

// retire marks an object deleted in the registry.
func retire(id string) eventstore.Write {
	return eventstore.Write{SQL: `UPDATE design_objects SET live = false WHERE object_id = $1`, Args: []any{id}}
}

// objectKey is where an image's or an export's bytes are: the
// organization's namespace, then the design service's.
func objectKey(org, kind, id string) string { return org + "/design/" + kind + "s/" + id }
