package contacts

import (
	"context"
	"encoding/json"

	"github.com/jackc/pgx/v5"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/contacts"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/eventstore"
)

// UndoImport is imports.undo.
type UndoImport struct {
	ImportID string `json:"importId"`
}

// UndoImport undoes an import from its events: the batches are folded into
// what the import did to each contact (domain.FoldBatches), and undone in
// batches of the same size, each one transaction and one event: contacts it
// created are removed, contacts it updated restored to their state before
// it, contacts changed since left as they are (listed as conflicts). Asked
// again, it resumes after the last undone batch, or answers what it did.
func (h *Handlers) UndoImport(ctx context.Context, m commands.Meta, in UndoImport) (commands.Result[domain.ImportState], error) {
	stream := importStream(m.OrganizationID, in.ImportID)
	state, err := h.ImportReport(ctx, m.OrganizationID, in.ImportID)
	if err != nil {
		return commands.Result[domain.ImportState]{}, err
	}
	if state.State != domain.StateUndone {
		batches, err := h.importBatches(ctx, stream)
		if err != nil {
			return commands.Result[domain.ImportState]{}, err
		}
		touched := domain.FoldBatches(batches)
		size := state.UndoBatchSize
		if size == 0 {
			size = h.cfg.ImportBatchRows
		}
		for k := state.UndoBatches + 1; (k-1)*size < len(touched); k++ {
			part := touched[(k-1)*size : min(k*size, len(touched))]
			if _, err := h.undoBatch(ctx, m, stream, k, size, part, len(batches)); err != nil {
				return commands.Result[domain.ImportState]{}, err
			}
		}
	}
	now := h.now()
	return h.onImport(ctx, m, stream, nil, func(s domain.ImportState) ([]event.Change, []eventstore.Write, error) {
		changes, err := s.FinishUndo(now)
		return changes, nil, err
	})
}

// importBatches reads an import's committed batches from the event store,
// in order: the record the undo restores from.
func (h *Handlers) importBatches(ctx context.Context, stream string) ([]domain.ImportBatchV1, error) {
	rows, err := h.pool.Query(ctx, `SELECT payload FROM es_events WHERE stream_id=$1 AND event_type=$2 ORDER BY stream_version`,
		stream, domain.ImportBatchCommitted)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.ImportBatchV1, error) {
		var raw []byte
		var b domain.ImportBatchV1
		if err := r.Scan(&raw); err != nil {
			return b, err
		}
		return b, json.Unmarshal(raw, &b)
	})
}

// undoBatch undoes one batch of the import's contacts, judged against their
// rows as they are now (locked, under the organization's import lock).
func (h *Handlers) undoBatch(ctx context.Context, m commands.Meta, stream string, k, size int, touched []domain.Touched, batches int) (commands.Result[domain.ImportState], error) {
	org := m.OrganizationID
	ids := make([]string, len(touched))
	for i, t := range touched {
		ids[i] = t.ContactID
	}
	var current map[string]domain.Contact
	prepare := func(ctx context.Context, tx eventstore.Tx) error {
		if err := lockImports(ctx, tx, org); err != nil {
			return err
		}
		var err error
		current, err = contactsByID(ctx, tx, org, ids)
		return err
	}
	now, p := h.now(), domain.DefaultPipeline(org)
	return h.onImport(ctx, m, stream, prepare, func(s domain.ImportState) ([]event.Change, []eventstore.Write, error) {
		if s.Open() && s.Batches != batches {
			return nil, nil, errs.Conflict("import_running", "the import is still committing batches; undo it when it has finished")
		}
		plan := domain.PlanUndo(touched, current, p, now)
		changes, err := s.UndoBatch(k, size, plan)
		if err != nil || len(changes) == 0 {
			return nil, nil, err
		}
		var writes []eventstore.Write
		if len(plan.Removed) > 0 {
			removed := make([]string, len(plan.Removed))
			for i, r := range plan.Removed {
				removed[i] = r.ContactID
			}
			writes = append(writes, removeContacts(org, removed))
		}
		if len(plan.Restored) > 0 {
			row, err := saveContacts(org, changed(plan.Restored)...)
			if err != nil {
				return nil, nil, err
			}
			writes = append(writes, row)
		}
		return changes, writes, nil
	})
}

// ImportReport is an import as the write side has it (imports.get): its
// stream's snapshot and the events after it. Another organization's import
// id names another stream, so it is simply not found.
func (h *Handlers) ImportReport(ctx context.Context, org, importID string) (domain.ImportState, error) {
	history, err := h.store.LoadLatest(ctx, importStream(org, importID), domain.SnapshotSchema)
	if err != nil {
		return domain.ImportState{}, err
	}
	if len(history) == 0 || history[0].OrganizationID != org {
		return domain.ImportState{}, errs.NotFound("import")
	}
	s, err := domain.LoadImport(commands.Recorded(history))
	if err != nil {
		return domain.ImportState{}, err
	}
	if !s.Exists() {
		return domain.ImportState{}, errs.NotFound("import")
	}
	return s, nil
}
