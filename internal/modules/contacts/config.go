package contacts

import (
	contactscmd "github.com/platform/backend/commands/contacts"
	"github.com/platform/backend/internal/module"
)

// Config is the contacts service's section.
type Config struct {
	// Limits bound imports and attachments (CONTACTS_IMPORT_BATCH_ROWS,
	// CONTACTS_IMPORT_MAX_BYTES, CONTACTS_IMPORT_MAX_LINE_BYTES,
	// CONTACTS_IMPORT_TIMEOUT, CONTACTS_IMPORT_IDLE_TIMEOUT, CONTACTS_IMPORT_SPOOL_DIR,
	// CONTACTS_ATTACHMENT_MAX_BYTES). Attachments' bytes go to the
	// platform's object store (module.Platform.Objects).
	Limits contactscmd.Config
}

var _ module.Section = (*Config)(nil)

func (c *Config) FromEnv(getenv func(string) string) error {
	env := module.NewEnv(getenv)
	env.Int("CONTACTS_IMPORT_BATCH_ROWS", &c.Limits.ImportBatchRows)
	env.Int64("CONTACTS_IMPORT_MAX_BYTES", &c.Limits.ImportMaxBytes)
	env.Int("CONTACTS_IMPORT_MAX_LINE_BYTES", &c.Limits.ImportMaxLineBytes)
	env.Duration("CONTACTS_IMPORT_TIMEOUT", &c.Limits.ImportTimeout)
	env.Duration("CONTACTS_IMPORT_IDLE_TIMEOUT", &c.Limits.ImportIdleTimeout)
	env.String("CONTACTS_IMPORT_SPOOL_DIR", &c.Limits.SpoolDir)
	env.Int64("CONTACTS_ATTACHMENT_MAX_BYTES", &c.Limits.AttachmentMaxBytes)
	return env.Err()
}

func (c *Config) Defaults() { c.Limits = c.Limits.WithDefaults() }

func (c *Config) Validate() error { return c.Limits.Validate() }
