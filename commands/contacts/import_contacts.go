package contacts

import (
	"context"
	"encoding/json"
	"errors"
	"io"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/contacts"
	"github.com/platform/backend/eventstore"
)

// ImportContacts is contacts.import's query: the file is the body (CSV or
// vCard).
type ImportContacts struct {
	// ImportID names the import (default: a new one). A request that
	// repeats it with the same file and options imports nothing twice: it
	// answers what the import did, or resumes it after its last batch.
	ImportID string `json:"importId"`
	// DryRun answers what the import would do, and does nothing.
	DryRun bool `json:"dryRun"`
	// OnMatch is update (default), skip or create.
	OnMatch string `json:"onMatch"`
	// Format is the file's: FormatCSV (text/csv) or FormatVCard (text/vcard),
	// from the body's media type.
	Format string `json:"-"`
	ImportMapping
}

// ImportMapping names, per field, the file's column that fills it
// (map.email=E-mail); without any, columns are recognised by their names.
type ImportMapping struct {
	FirstName string `json:"map.firstName"`
	LastName  string `json:"map.lastName"`
	Email     string `json:"map.email"`
	Phone     string `json:"map.phone"`
	Company   string `json:"map.company"`
	JobTitle  string `json:"map.jobTitle"`
	Tags      string `json:"map.tags"`
	Stage     string `json:"map.stage"`
}

func (m ImportMapping) explicit() map[string]string {
	out := map[string]string{}
	for field, column := range map[string]string{"firstName": m.FirstName, "lastName": m.LastName, "email": m.Email,
		"phone": m.Phone, "company": m.Company, "jobTitle": m.JobTitle, "tags": m.Tags, "stage": m.Stage} {
		if column != "" {
			out[field] = column
		}
	}
	return out
}

// ImportReport is contacts.import's answer: the import as it stands, and
// for a dry run what each row would do.
type ImportReport struct {
	domain.ImportState
	DryRun   bool                `json:"dry_run"`
	Outcomes []domain.RowOutcome `json:"outcomes"`
	// OutcomesTruncated: a dry run lists the first DryRunOutcomes rows.
	OutcomesTruncated bool `json:"outcomes_truncated"`
}

// StateDryRun is the state a dry run answers with.
const StateDryRun = "dry_run"

func newContactID() string { return uuid.Must(uuid.NewV7()).String() }

// ImportContacts imports a CSV file streamed from body: it is read whole
// first (valid rows spooled to disk, row errors listed), so a malformed
// file commits nothing; then its rows are committed in batches, each one
// transaction and one event carrying every contact it creates or updates.
// The answer's position is the import stream's, for read-your-writes.
func (h *Handlers) ImportContacts(ctx context.Context, m commands.Meta, in ImportContacts, body io.Reader) (ImportReport, *eventstore.Position, error) {
	if in.OnMatch == "" {
		in.OnMatch = domain.OnMatchUpdate
	}
	if in.DryRun {
		report, err := h.dryRun(ctx, m.OrganizationID, in, body)
		return report, nil, err
	}
	if in.ImportID == "" {
		in.ImportID = newContactID()
	}
	sc, err := h.scan(body, in.Format, in.explicit(), m.OrganizationID, domain.MaxStoredErrors, true)
	if err != nil {
		return ImportReport{}, nil, err
	}
	defer func() { _ = sc.spool.close() }() // a temporary file
	stream := importStream(m.OrganizationID, in.ImportID)
	res, err := h.startImport(ctx, m, stream, in.ImportID, domain.ImportRequest{OnMatch: in.OnMatch, Columns: sc.mapping.Columns(),
		Ignored: sc.mapping.Ignored(), FileSHA256: sc.hash, Rows: sc.rows, Failed: sc.failed, Errors: sc.errors, Truncated: sc.truncated})
	if err != nil {
		return ImportReport{}, nil, err
	}
	if res.Value.Open() {
		if res, err = h.commitRows(ctx, m, stream, sc.spool, res); err != nil {
			return ImportReport{}, nil, err
		}
		if res, err = h.completeImport(ctx, m, stream); err != nil {
			return ImportReport{}, nil, err
		}
	}
	return ImportReport{ImportState: res.Value, Outcomes: []domain.RowOutcome{}}, &res.Position, nil
}

// batchBytes bounds the estimated size of one batch's event: it travels as
// one Kafka record (the broker takes 1 MiB).
const batchBytes = 512 << 10

// commitRows commits the spooled rows after the import's committed line,
// in batches of at most ImportBatchRows rows and batchBytes.
func (h *Handlers) commitRows(ctx context.Context, m commands.Meta, stream string, sp *spool, res commands.Result[domain.ImportState]) (commands.Result[domain.ImportState], error) {
	next, err := sp.reader()
	if err != nil {
		return res, err
	}
	var batch []domain.Row
	size := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		r, err := h.commitBatch(ctx, m, stream, batch)
		if err != nil {
			return err
		}
		res, batch, size = r, batch[:0], 0
		return nil
	}
	for {
		row, err := next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return res, err
		}
		if row.Line <= res.Value.CommittedLine {
			continue // committed by an earlier request with this import id
		}
		batch = append(batch, row)
		size += estimate(row)
		if len(batch) >= h.cfg.ImportBatchRows || size >= batchBytes {
			if err := flush(); err != nil {
				return res, err
			}
		}
	}
	return res, flush()
}

// estimate is a row's share of its batch event: the contact it makes,
// and the state before for an update, with their envelopes.
func estimate(r domain.Row) int {
	raw, _ := json.Marshal(r.Fields)
	return 2*len(raw) + 600
}

// dryRun reads the file and plans every row against the write side as it
// stands, without locking or writing anything.
func (h *Handlers) dryRun(ctx context.Context, org string, in ImportContacts, body io.Reader) (ImportReport, error) {
	sc, err := h.scan(body, in.Format, in.explicit(), org, DryRunErrors, false)
	if err != nil {
		return ImportReport{}, err
	}
	var existing []domain.Contact
	if in.OnMatch != domain.OnMatchCreate {
		for i := 0; i < len(sc.valid); i += 1000 {
			emails, names := keysOf(sc.valid[i:min(i+1000, len(sc.valid))])
			found, err := matchCandidates(ctx, h.pool, org, emails, names, false)
			if err != nil {
				return ImportReport{}, err
			}
			existing = append(existing, found...)
		}
	}
	plan := domain.Plan(sc.valid, existing, in.OnMatch, domain.DefaultPipeline(org), newContactID, h.now())
	outcomes := plan.Outcomes
	if outcomes == nil {
		outcomes = []domain.RowOutcome{}
	}
	truncated := len(outcomes) > DryRunOutcomes
	if truncated {
		outcomes = outcomes[:DryRunOutcomes]
	}
	return ImportReport{DryRun: true, Outcomes: outcomes, OutcomesTruncated: truncated, ImportState: domain.ImportState{
		ImportID: in.ImportID, State: StateDryRun, OnMatch: in.OnMatch, Columns: sc.mapping.Columns(), IgnoredColumns: sc.mapping.Ignored(),
		FileSHA256: sc.hash, Rows: sc.rows, Created: len(plan.Created), Updated: len(plan.Updated), Unchanged: plan.Unchanged,
		Skipped: plan.Skipped, Failed: sc.failed, Errors: sc.errors, ErrorsTruncated: sc.truncated, Conflicts: []string{}}}, nil
}
