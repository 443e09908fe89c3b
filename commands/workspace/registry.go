package workspace

import (
	"context"
	"strconv"

	"github.com/platform/backend/eventstore"
)

// Registry is a context's register of its workspace objects, kept on the
// write side with the events that make and delete them: which objects are
// live, of which kind, in which organization, workspace and project, and
// where their bytes are. Commands check it in their transaction (Guard),
// read models write only the objects it knows (so a rebuild brings nothing
// erased back), and an erasure forgets an organization at once (Erase).
// Its tables are <context>_objects (object_id, organization_id,
// workspace_id, kind, project_id, object_key, live, and a context's own
// columns) and <context>_object_deletions (object_key, organization_id),
// the bytes an erasure or a deletion leaves to delete after commit.
type Registry struct {
	// Context names the tables and the organization's advisory lock
	// ("design", "studio").
	Context string
	// Names are the kinds as a refusal names them ("no such <name> in
	// this workspace"): one sentence per kind, with no id, that clients and
	// the fuzzing gate's rules match.
	Names map[string]string
	// WorkspaceLocks: the context deletes workspaces (the studio). Every
	// command then also holds its workspace's lock shared, which the
	// deletion takes exclusively, and finds a workspace listed in
	// <context>_deleted_workspaces missing.
	WorkspaceLocks bool
}

// OrgLock is the organization's transaction-scoped advisory lock, the
// organization's id as $1 (hashtextextended of '<context>-org:<id>' under
// seed 7; streams use 2, idempotency keys 1). Every command holds it
// shared, an erasure exclusively: the erasure waits for the commands in
// flight, and the commands after it see it.
func (r *Registry) OrgLock() string { return r.lock("org", "$1") }

// WorkspaceLock is the workspace's lock, the workspace's id as $1
// (WorkspaceLocks): a workspace deletion takes it exclusively.
func (r *Registry) WorkspaceLock() string { return r.lock("ws", "$1") }

// lock is the advisory lock of a scope's id, given as the parameter param.
func (r *Registry) lock(scope, param string) string {
	return `hashtextextended('` + r.Context + `-` + scope + `:' || ` + param + `, 7)`
}

func (r *Registry) objects() string { return r.Context + "_objects" }

func (r *Registry) deletions() string { return r.Context + "_object_deletions" }

// Column is a context's own column of a registry row (the design
// service's design_id); "" is stored as NULL.
type Column struct {
	Name, Value string
}

// Register records a new object (with its creation's events); project,
// objectKey and the columns are NULL when "". A retried creation changes
// nothing.
func (r *Registry) Register(org, workspace, kind, id, project, objectKey string, more ...Column) eventstore.Write {
	cols := "object_id, organization_id, workspace_id, kind, project_id, object_key"
	vals := "$1, $2, $3, $4, nullif($5, ''), nullif($6, '')"
	args := []any{id, org, workspace, kind, project, objectKey}
	for _, c := range more {
		args = append(args, c.Value)
		cols += ", " + c.Name
		vals += ", nullif($" + strconv.Itoa(len(args)) + ", '')"
	}
	return eventstore.Write{SQL: `INSERT INTO ` + r.objects() + ` (` + cols + `) VALUES (` + vals + `) ON CONFLICT (object_id) DO NOTHING`,
		Args: args}
}

// Live reports whether the registry holds a live object of the kind in the
// organization's workspace, read outside a command's transaction (db: the
// pool): a check before the command's own, or a worker's.
func (r *Registry) Live(ctx context.Context, db eventstore.Tx, org, workspaceID, kind, id string) (bool, error) {
	var live bool
	err := db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+r.objects()+` WHERE object_id = $1 AND organization_id = $2
		AND workspace_id = $3 AND kind = $4 AND live)`, id, org, workspaceID, kind).Scan(&live)
	return live, err
}

// Retire marks an object deleted (with its deletion's events).
func (r *Registry) Retire(id string) eventstore.Write {
	return eventstore.Write{SQL: `UPDATE ` + r.objects() + ` SET live = false WHERE object_id = $1`, Args: []any{id}}
}

// Forget queues an object's bytes for deletion after commit
// (commands/deletions drains the queue).
func (r *Registry) Forget(org, key string) eventstore.Write {
	return eventstore.Write{SQL: `INSERT INTO ` + r.deletions() + ` (object_key, organization_id) VALUES ($1, $2)
		ON CONFLICT (object_key) DO NOTHING`, Args: []any{key, org}}
}
