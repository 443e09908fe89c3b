package contacts

import (
	"errors"

	contactscmd "github.com/platform/backend/commands/contacts"
	"github.com/platform/backend/internal/module"
	"github.com/platform/backend/internal/objectstore"
)

// Config is the contacts service's section.
type Config struct {
	// Limits bound imports and attachments (CONTACTS_IMPORT_BATCH_ROWS,
	// CONTACTS_IMPORT_MAX_BYTES, CONTACTS_IMPORT_MAX_LINE_BYTES,
	// CONTACTS_IMPORT_TIMEOUT, CONTACTS_IMPORT_SPOOL_DIR,
	// CONTACTS_ATTACHMENT_MAX_BYTES).
	Limits contactscmd.Config
	// Objects is where attachments' bytes go: the platform's object store
	// (OBJECTSTORE_URL, PLATFORM_DATA_DIR, ...: internal/objectstore).
	Objects objectstore.Config
}

var _ module.Section = (*Config)(nil)

func (c *Config) FromEnv(getenv func(string) string) error {
	env := module.NewEnv(getenv)
	env.Int("CONTACTS_IMPORT_BATCH_ROWS", &c.Limits.ImportBatchRows)
	env.Int64("CONTACTS_IMPORT_MAX_BYTES", &c.Limits.ImportMaxBytes)
	env.Int("CONTACTS_IMPORT_MAX_LINE_BYTES", &c.Limits.ImportMaxLineBytes)
	env.Duration("CONTACTS_IMPORT_TIMEOUT", &c.Limits.ImportTimeout)
	env.String("CONTACTS_IMPORT_SPOOL_DIR", &c.Limits.SpoolDir)
	env.Int64("CONTACTS_ATTACHMENT_MAX_BYTES", &c.Limits.AttachmentMaxBytes)
	// The object store reads its own variables (from the process's
	// environment, as platformd's getenv does).
	objects, err := objectstore.FromEnv()
	c.Objects = objects
	return errors.Join(env.Err(), err)
}

func (c *Config) Defaults() {
	c.Limits = c.Limits.WithDefaults()
	c.Objects = c.Objects.WithDefaults()
}

func (c *Config) Validate() error { return errors.Join(c.Limits.Validate(), c.Objects.Validate()) }
