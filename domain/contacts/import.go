package contacts

import (
	"maps"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// Import states.
const (
	StateCommitting = "committing" // batches are being committed (or were, until the request stopped)
	StateCompleted  = "completed"
	StateUndoing    = "undoing"
	StateUndone     = "undone"
)

// MaxStoredErrors bounds the row errors an import keeps (a dry run lists
// more: DryRunErrors).
const MaxStoredErrors = 100

// ImportState is an import: the write model of its stream (saved as the
// stream's snapshot with every batch) and the answer of its commands.
type ImportState struct {
	ImportID string            `json:"import_id"`
	State    string            `json:"state"`
	OnMatch  string            `json:"on_match"`
	Columns  map[string]string `json:"columns"`
	// IgnoredColumns are the file's columns no field reads.
	IgnoredColumns []string `json:"ignored_columns"`
	FileSHA256     string   `json:"file_sha256"`
	// Rows are the file's data rows; Failed those refused (Errors lists
	// the first MaxStoredErrors of them).
	Rows            int        `json:"rows"`
	Created         int        `json:"created"`
	Updated         int        `json:"updated"`
	Unchanged       int        `json:"unchanged"`
	Skipped         int        `json:"skipped"`
	Failed          int        `json:"failed"`
	Errors          []RowError `json:"errors"`
	ErrorsTruncated bool       `json:"errors_truncated"`
	Batches         int        `json:"batches"`
	// CommittedLine is the last line of the last committed batch: a
	// request that repeats the import id resumes after it.
	CommittedLine int `json:"committed_line"`
	// Undo: contacts removed, restored, and left alone because they
	// changed after the import (conflicts).
	Removed       int        `json:"removed"`
	Restored      int        `json:"restored"`
	Conflicts     []string   `json:"conflicts"`
	UndoBatches   int        `json:"undo_batches"`
	UndoBatchSize int        `json:"undo_batch_size"`
	StartedAt     time.Time  `json:"started_at"`
	CompletedAt   *time.Time `json:"completed_at"`
	UndoneAt      *time.Time `json:"undone_at"`
}

// Exists reports an import that was started.
func (s ImportState) Exists() bool { return s.ImportID != "" }

// LoadImport rebuilds an import from its snapshot and the events after it.
func LoadImport(history []event.Recorded) (ImportState, error) {
	var s ImportState
	for _, r := range history {
		if err := s.apply(r); err != nil {
			return ImportState{}, err
		}
	}
	return s, nil
}

func (s *ImportState) apply(r event.Recorded) error {
	switch r.Type {
	case event.SnapshotType:
		st, err := event.Decode[ImportState](r)
		*s = st
		return err
	case ImportStarted:
		p, err := event.Decode[ImportStartedV1](r)
		if err != nil {
			return err
		}
		*s = ImportState{ImportID: p.ImportID, State: StateCommitting, OnMatch: p.OnMatch, Columns: p.Columns, IgnoredColumns: nonNil(p.Ignored),
			FileSHA256: p.FileSHA256, Rows: p.Rows, Failed: p.Failed, Errors: p.Errors, ErrorsTruncated: p.ErrorsTruncated,
			Conflicts: []string{}, StartedAt: p.StartedAt}
		if s.Errors == nil {
			s.Errors = []RowError{}
		}
	case ImportBatchCommitted:
		p, err := event.Decode[ImportBatchV1](r)
		if err != nil {
			return err
		}
		s.Created += len(p.Created)
		s.Updated += len(p.Updated)
		s.Unchanged += p.Unchanged
		s.Skipped += p.Skipped
		s.Batches, s.CommittedLine = p.Batch, p.LastLine
	case ImportCompleted:
		p, err := event.Decode[ImportCompletedV1](r)
		if err != nil {
			return err
		}
		s.State, s.CompletedAt = StateCompleted, &p.CompletedAt
	case ImportBatchUndone:
		p, err := event.Decode[ImportBatchUndoneV1](r)
		if err != nil {
			return err
		}
		s.State = StateUndoing
		s.Removed += len(p.Removed)
		s.Restored += len(p.Restored)
		s.Conflicts = append(s.Conflicts, p.Conflicts...)
		s.UndoBatches = p.Batch
		if s.UndoBatchSize == 0 {
			s.UndoBatchSize = p.BatchSize
		}
	case ImportUndone:
		p, err := event.Decode[ImportUndoneV1](r)
		if err != nil {
			return err
		}
		s.State, s.UndoneAt = StateUndone, &p.UndoneAt
	}
	return nil
}

// ImportRequest is what an import is asked to do with what file; a request
// that repeats an import id must ask the same of the same file.
type ImportRequest struct {
	OnMatch    string
	Columns    map[string]string
	Ignored    []string
	FileSHA256 string
	Rows       int
	Failed     int
	// Errors are the file's row errors, the first ones; Truncated says
	// there were more.
	Errors    []RowError
	Truncated bool
}

// Start opens the import, or, for an import id seen before with the same
// request, does nothing (the caller resumes or answers what it did).
func (s ImportState) Start(id string, req ImportRequest, now time.Time) ([]event.Change, error) {
	if s.Exists() {
		if s.OnMatch != req.OnMatch || s.FileSHA256 != req.FileSHA256 || !maps.Equal(s.Columns, req.Columns) {
			return nil, errs.InvalidField("/importId", "this import id was used with another file or other options")
		}
		return nil, nil
	}
	errors, truncated := req.Errors, req.Truncated
	if len(errors) > MaxStoredErrors {
		errors, truncated = errors[:MaxStoredErrors], true
	}
	if errors == nil {
		errors = []RowError{}
	}
	return []event.Change{event.New(ImportStarted, ImportStartedV1{ImportID: id, OnMatch: req.OnMatch, Columns: req.Columns, Ignored: nonNil(req.Ignored),
		FileSHA256: req.FileSHA256, Rows: req.Rows, Failed: req.Failed, Errors: errors, ErrorsTruncated: truncated, StartedAt: now})}, nil
}

// Open reports an import that still takes batches.
func (s ImportState) Open() bool { return s.State == StateCommitting }

// Commit records a batch, unless its lines were committed before (a
// repeated request resuming): then nothing.
func (s ImportState) Commit(plan BatchPlan, firstLine, lastLine int) ([]event.Change, error) {
	if !s.Exists() {
		return nil, errs.NotFound("import")
	}
	if !s.Open() {
		return nil, errs.Conflict("import_closed", "the import is "+s.State+"; it takes no more rows")
	}
	if firstLine <= s.CommittedLine {
		return nil, nil
	}
	created := make([]ImportedContact, len(plan.Created))
	for i, c := range plan.Created {
		created[i] = imported(c.Contact)
	}
	return []event.Change{event.New(ImportBatchCommitted, ImportBatchV1{ImportID: s.ImportID, Batch: s.Batches + 1,
		FirstLine: firstLine, LastLine: lastLine, At: plan.At, PipelineID: plan.PipelineID, Created: created,
		Updated: nonNil(plan.Updated), Unchanged: plan.Unchanged, Skipped: plan.Skipped})}, nil
}

// Complete closes an import whose batches are all committed.
func (s ImportState) Complete(now time.Time) ([]event.Change, error) {
	if !s.Exists() {
		return nil, errs.NotFound("import")
	}
	if !s.Open() {
		return nil, nil
	}
	return []event.Change{event.New(ImportCompleted, ImportCompletedV1{ImportID: s.ImportID, CompletedAt: now})}, nil
}

// UndoBatch records the k-th batch of the undo, unless it was recorded
// before (an undo that is asked again resumes after the last one).
func (s ImportState) UndoBatch(k, size int, plan UndoPlan) ([]event.Change, error) {
	if !s.Exists() {
		return nil, errs.NotFound("import")
	}
	if s.State == StateUndone || k <= s.UndoBatches {
		return nil, nil
	}
	return []event.Change{event.New(ImportBatchUndone, ImportBatchUndoneV1{ImportID: s.ImportID, Batch: k, BatchSize: size,
		Removed: nonNil(plan.Removed), Restored: nonNil(plan.Restored), Conflicts: nonNil(plan.Conflicts)})}, nil
}

// FinishUndo closes the undo.
func (s ImportState) FinishUndo(now time.Time) ([]event.Change, error) {
	if !s.Exists() {
		return nil, errs.NotFound("import")
	}
	if s.State == StateUndone {
		return nil, nil
	}
	return []event.Change{event.New(ImportUndone, ImportUndoneV1{ImportID: s.ImportID, UndoneAt: now})}, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
