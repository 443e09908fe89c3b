package contacts

import (
	"context"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/contacts"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/eventstore"
)

// importStream is an import's stream: the organization's namespace, then
// the client's import id, so two organizations never share one and an id
// a client picks can never name another context's stream.
func importStream(org, importID string) string {
	return domain.StreamImport + ":" + org + ":" + importID
}

// lockImports serializes the import batches and undo batches of one
// organization: each decides matches against rows the one before it has
// committed, so two imports of the same file at once make no duplicate.
func lockImports(ctx context.Context, tx eventstore.Tx, org string) error {
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 3))`, "contacts.import:"+org)
	return err
}

// onImport runs a command on an import's stream: the import's state is
// loaded from its snapshot (saved with every batch, so a batch never reads
// the batches before it), act decides, and the answer is the state after.
func (h *Handlers) onImport(ctx context.Context, m commands.Meta, stream string, prepare func(context.Context, eventstore.Tx) error,
	act func(domain.ImportState) ([]event.Change, []eventstore.Write, error)) (commands.Result[domain.ImportState], error) {
	// The import id is the idempotency of an import and its batches: an
	// Idempotency-Key of the request would be recorded by the first of
	// several commands and refused by the next.
	m.IdempotencyKey, m.RequestHash = "", ""
	return commands.RunOutcome(ctx, h.store, m, domain.StreamImport, stream,
		func(history []event.Recorded) (commands.Outcome[domain.ImportState], error) {
			var none commands.Outcome[domain.ImportState]
			s, err := domain.LoadImport(history)
			if err != nil {
				return none, err
			}
			changes, writes, err := act(s)
			if err != nil {
				return none, err
			}
			all, err := event.Append(history, changes)
			if err != nil {
				return none, err
			}
			if s, err = domain.LoadImport(all); err != nil {
				return none, err
			}
			return commands.Outcome[domain.ImportState]{Events: changes, Value: s, Writes: writes}, nil
		}, commands.Snapshots(domain.SnapshotSchema), commands.Prepared(prepare))
}

// startImport opens the import (nothing when the same request opened it before).
func (h *Handlers) startImport(ctx context.Context, m commands.Meta, stream, importID string, req domain.ImportRequest) (commands.Result[domain.ImportState], error) {
	now := h.now()
	return h.onImport(ctx, m, stream, nil, func(s domain.ImportState) ([]event.Change, []eventstore.Write, error) {
		changes, err := s.Start(importID, req, now)
		return changes, nil, err
	})
}

// commitBatch commits one batch of rows: under the organization's import
// lock, the live contacts the rows' keys match are read and locked on the
// write side, the plan decides, and the batch event and the contacts' rows
// are written together.
func (h *Handlers) commitBatch(ctx context.Context, m commands.Meta, stream string, rows []domain.Row) (commands.Result[domain.ImportState], error) {
	org := m.OrganizationID
	var existing []domain.Contact
	prepare := func(ctx context.Context, tx eventstore.Tx) error {
		if err := lockImports(ctx, tx, org); err != nil {
			return err
		}
		emails, names := keysOf(rows)
		var err error
		existing, err = matchCandidates(ctx, tx, org, emails, names, true)
		return err
	}
	now, p := h.now(), domain.DefaultPipeline(org)
	return h.onImport(ctx, m, stream, prepare, func(s domain.ImportState) ([]event.Change, []eventstore.Write, error) {
		plan := domain.Plan(rows, existing, s.OnMatch, p, newContactID, now)
		changes, err := s.Commit(plan, rows[0].Line, rows[len(rows)-1].Line)
		if err != nil || len(changes) == 0 {
			return nil, nil, err
		}
		contacts := changed(plan.Created, plan.Updated)
		if len(contacts) == 0 {
			return changes, nil, nil
		}
		row, err := saveContacts(org, contacts...)
		return changes, []eventstore.Write{row}, err
	})
}

// completeImport closes an import whose rows are all committed.
func (h *Handlers) completeImport(ctx context.Context, m commands.Meta, stream string) (commands.Result[domain.ImportState], error) {
	now := h.now()
	return h.onImport(ctx, m, stream, nil, func(s domain.ImportState) ([]event.Change, []eventstore.Write, error) {
		changes, err := s.Complete(now)
		return changes, nil, err
	})
}
