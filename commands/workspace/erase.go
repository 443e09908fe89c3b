package workspace

import (
	"context"
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/erasure"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/eventstore"
)

// Erasure is what an erasure forgot: the registry's objects, those of
// them with stored bytes (Files), and the organization's erasures so far.
type Erasure struct {
	Objects, Files, Erasures int
}

// Erase is an organization's erasure in a context: in one transaction,
// under the organization's lock taken exclusively (no command of the
// organization runs meanwhile), the registry forgets every object (every
// later command and worker finds them missing), their bytes are queued for
// deletion, more (the context's own rows: the studio's quota counts) goes,
// and the erasure is recorded on the organization's stream (read models
// drop the organization's rows and write only objects the registry knows:
// a rebuild from the log brings nothing back; kind is the context's
// erasure write model). answer is the context's own
// (it is what an idempotent retry answers again). The caller drains the
// deletions after.
func Erase[T any](ctx context.Context, store commands.Store, m commands.Meta, r *Registry, streamType, streamID string,
	kind *erasure.Kind, confirmation string, now time.Time, answer func(Erasure) T,
	more ...eventstore.Write) (commands.Result[T], error) {
	org := m.OrganizationID
	var n Erasure
	prepare := func(ctx context.Context, tx eventstore.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(`+r.OrgLock()+`)`, org); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `SELECT count(*), count(object_key) FROM `+r.objects()+` WHERE organization_id = $1`, org).Scan(&n.Objects, &n.Files)
	}
	return commands.Execute(ctx, store, m, streamType, streamID, kind.Load,
		func(om *erasure.Model) ([]event.Change, error) {
			return om.Erase(org, confirmation, n.Objects, n.Files, now)
		}, func(om *erasure.Model) T {
			return answer(Erasure{Objects: n.Objects, Files: n.Files, Erasures: om.Erasures()})
		}, commands.Prepared(prepare), commands.Also(func(T) []eventstore.Write {
			return append([]eventstore.Write{
				{SQL: `INSERT INTO ` + r.deletions() + ` (object_key, organization_id) SELECT object_key, organization_id FROM ` + r.objects() + `
					WHERE organization_id = $1 AND object_key IS NOT NULL ON CONFLICT (object_key) DO NOTHING`, Args: []any{org}},
				{SQL: `DELETE FROM ` + r.objects() + ` WHERE organization_id = $1`, Args: []any{org}},
			}, more...)
		}))
}
