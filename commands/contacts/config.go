package contacts

import (
	"errors"
	"os"
	"time"
)

// Config bounds imports and attachments.
type Config struct {
	// ImportBatchRows is how many rows one import batch commits (one
	// transaction, one event): CONTACTS_IMPORT_BATCH_ROWS, default 500.
	ImportBatchRows int
	// ImportMaxBytes bounds an import file (bytes, not rows):
	// CONTACTS_IMPORT_MAX_BYTES, default 1 GiB.
	ImportMaxBytes int64
	// ImportMaxLineBytes bounds one line of a file: a longer one is 400
	// naming it (CONTACTS_IMPORT_MAX_LINE_BYTES, default 1 MiB).
	ImportMaxLineBytes int
	// ImportTimeout is an import request's read deadline; its answer has
	// httpapi.AnswerMargin more (CONTACTS_IMPORT_TIMEOUT, default 10m).
	ImportTimeout time.Duration
	// ImportIdleTimeout bounds the wait for a file's next bytes within
	// ImportTimeout (CONTACTS_IMPORT_IDLE_TIMEOUT, default 30s, the listener's
	// read timeout of every other request): a client that stops sending is
	// answered 408 request_timeout then, not held until ImportTimeout.
	ImportIdleTimeout time.Duration
	// SpoolDir holds an import's valid rows between reading the file and
	// committing them (CONTACTS_IMPORT_SPOOL_DIR, default the system's).
	SpoolDir string
	// AttachmentMaxBytes bounds an attachment: CONTACTS_ATTACHMENT_MAX_BYTES,
	// default 10 MiB; larger uploads are 413 and nothing is stored.
	AttachmentMaxBytes int64
}

// DryRunErrors bounds the row errors a dry run lists (an import keeps
// domain.MaxStoredErrors); DryRunOutcomes the rows it says it would do
// something with.
const (
	DryRunErrors   = 10_000
	DryRunOutcomes = 1_000
)

func (c Config) WithDefaults() Config {
	if c.ImportBatchRows == 0 {
		c.ImportBatchRows = 500
	}
	if c.ImportMaxBytes == 0 {
		c.ImportMaxBytes = 1 << 30
	}
	if c.ImportMaxLineBytes == 0 {
		c.ImportMaxLineBytes = 1 << 20
	}
	if c.ImportTimeout == 0 {
		c.ImportTimeout = 10 * time.Minute
	}
	if c.ImportIdleTimeout == 0 {
		c.ImportIdleTimeout = 30 * time.Second
	}
	if c.SpoolDir == "" {
		c.SpoolDir = os.TempDir()
	}
	if c.AttachmentMaxBytes == 0 {
		c.AttachmentMaxBytes = 10 << 20
	}
	return c
}

// Validate names every problem.
func (c Config) Validate() error {
	var problems []error
	if c.ImportBatchRows < 1 || c.ImportBatchRows > 2000 {
		problems = append(problems, errors.New("CONTACTS_IMPORT_BATCH_ROWS must be 1..2000 (an event carries a batch)"))
	}
	if c.ImportMaxBytes < 1 || c.AttachmentMaxBytes < 1 || c.ImportMaxLineBytes < 1024 {
		problems = append(problems, errors.New("CONTACTS_IMPORT_MAX_BYTES and CONTACTS_ATTACHMENT_MAX_BYTES must be positive, CONTACTS_IMPORT_MAX_LINE_BYTES at least 1024"))
	}
	if c.ImportTimeout <= 0 {
		problems = append(problems, errors.New("CONTACTS_IMPORT_TIMEOUT must be positive"))
	}
	if c.ImportIdleTimeout <= 0 || c.ImportIdleTimeout > c.ImportTimeout {
		problems = append(problems, errors.New("CONTACTS_IMPORT_IDLE_TIMEOUT must be positive and at most CONTACTS_IMPORT_TIMEOUT"))
	}
	return errors.Join(problems...)
}
