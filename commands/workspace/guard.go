package workspace

import (
	"context"
	"slices"
	"strings"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/eventstore"
)

// Guard is a command's check in its context's registry, made in its
// transaction after its stream's lock (Prepare, as commands.Prepared): the
// locks its context's erasure and workspace deletion take exclusively,
// then which of the objects the command names are live in the workspace.
// The decision reads the results: Check before it, Refused after it (what
// the input names is checked once the input itself passed).
type Guard struct {
	Registry       *Registry
	Org, Workspace string
	// Object is the command's own object ("" when it makes one): 404 unless
	// live in the workspace.
	Object string
	// Project is the object's project ("" none): 404 project unless a live
	// project of the workspace. Another organization's stream is then
	// answered as a missing project too (Object.Run).
	Project string
	// Outside are refusals of references checked outside the transaction
	// (the brand service's kits), answered with the registry's (Refused).
	Outside []errs.Field
	// Also are the context's own reads in the same transaction, after the
	// registry's (the studio's quota, the design service's count of a
	// project's designs).
	Also []func(ctx context.Context, tx eventstore.Tx) error

	reads []string       // ids the decision asks about (Is)
	refs  map[string]ref // by JSON pointer

	wsDeleted bool
	live      map[string]entry // the live objects among those named
}

type entry struct{ kind, project string }

// ref is an object an input names (of a project, when project is set).
type ref struct{ kind, id, project string }

// Read adds objects the decision asks about (Is, Missing).
func (g *Guard) Read(ids ...string) *Guard {
	g.reads = append(g.reads, ids...)
	return g
}

// Ref adds an object the input names at a JSON pointer: it must be a live
// object of the kind in the workspace (422 at the pointer otherwise).
func (g *Guard) Ref(pointer, kind, id string) { g.RefIn(pointer, kind, id, "") }

// RefIn adds an object the input names that must also be of a project.
func (g *Guard) RefIn(pointer, kind, id, project string) {
	if g.refs == nil {
		g.refs = map[string]ref{}
	}
	g.refs[pointer] = ref{kind: kind, id: id, project: project}
}

// Prepare takes the locks and reads the registry (commands.Prepared).
func (g *Guard) Prepare(ctx context.Context, tx eventstore.Tx) error {
	r := g.Registry
	// The locks in a statement of their own: the next one reads with a
	// snapshot taken after them (READ COMMITTED), so an erasure or a
	// deletion that committed while this command waited is seen.
	locks, args := `SELECT pg_advisory_xact_lock_shared(`+r.OrgLock()+`)`, []any{g.Org}
	deleted := `false`
	if r.WorkspaceLocks {
		locks += `, pg_advisory_xact_lock_shared(` + r.lock("ws", "$2") + `)`
		args = append(args, g.Workspace)
		deleted = `EXISTS (SELECT 1 FROM ` + r.Context + `_deleted_workspaces WHERE workspace_id = $3)`
	}
	if _, err := tx.Exec(ctx, locks, args...); err != nil {
		return err
	}
	ids := append([]string{g.Object, g.Project}, g.reads...)
	for _, rf := range g.refs {
		ids = append(ids, rf.id)
	}
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	var liveIDs, liveKinds, liveParents []string
	err := tx.QueryRow(ctx, `SELECT `+deleted+`,
			coalesce(array_agg(object_id ORDER BY object_id), '{}'), coalesce(array_agg(kind ORDER BY object_id), '{}'),
			coalesce(array_agg(coalesce(project_id, '') ORDER BY object_id), '{}')
		FROM `+r.objects()+` WHERE object_id = ANY($1) AND organization_id = $2 AND workspace_id = $3 AND live`,
		ids, g.Org, g.Workspace).Scan(&g.wsDeleted, &liveIDs, &liveKinds, &liveParents)
	if err != nil {
		return err
	}
	g.live = make(map[string]entry, len(liveIDs))
	for i, id := range liveIDs {
		g.live[id] = entry{kind: liveKinds[i], project: liveParents[i]}
	}
	for _, also := range g.Also {
		if err := also(ctx, tx); err != nil {
			return err
		}
	}
	return nil
}

// Is reports a live object of the kind in the workspace.
func (g *Guard) Is(id, kind string) bool {
	e, ok := g.live[id]
	return ok && e.kind == kind
}

// Missing answers 404 (the kind) unless the object is a live object of its
// kind in the workspace.
func (g *Guard) Missing(id, kind string) error {
	if !g.Is(id, kind) {
		return errs.NotFound(kind)
	}
	return nil
}

// Check is the common part of a decision: the workspace stands, the
// project (when named) and the object (when named) are live in it; what
// names the object in answers ("composition version").
func (g *Guard) Check(what string) error {
	if g.wsDeleted {
		return errs.NotFound("workspace")
	}
	if g.Project != "" && !g.Is(g.Project, "project") {
		return errs.NotFound("project")
	}
	if _, live := g.live[g.Object]; g.Object != "" && !live {
		return errs.NotFound(what)
	}
	return nil
}

// Refused answers the named objects that are not live objects of their
// kind (and project) in the workspace, with the Outside refusals: 422 at
// their pointers, in pointer order.
func (g *Guard) Refused() error {
	fields := append([]errs.Field{}, g.Outside...)
	for p, r := range g.refs {
		e, live := g.live[r.id]
		if live && e.kind == r.kind && (r.project == "" || e.project == r.project) {
			continue
		}
		where := "workspace"
		if r.project != "" {
			where = "project"
		}
		fields = append(fields, errs.Field{Pointer: p, Detail: "no such " + g.Registry.Names[r.kind] + " in this " + where})
	}
	if len(fields) == 0 {
		return nil
	}
	slices.SortFunc(fields, func(a, b errs.Field) int { return strings.Compare(a.Pointer, b.Pointer) })
	return errs.Invalid(fields...)
}
