package identity

import (
	"context"
	"crypto/rand"
	"embed"
	"errors"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/internal/migrate"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrate creates the identity service's key tables.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	return migrate.Apply(ctx, pool, "identity", migrations, "migrations")
}

// Keyring holds the per-subject data keys (users, organizations) and the
// email pepper. Keys are written before the events that use them, in their
// own statement: a command that then fails leaves an unused key, never an
// event whose data cannot be read.
type Keyring struct {
	pool *pgxpool.Pool

	mu     sync.Mutex
	pepper []byte
}

func NewKeyring(pool *pgxpool.Pool) *Keyring { return &Keyring{pool: pool} }

func unavailable(err error) error {
	if _, typed := errs.As(err); typed {
		return err
	}
	return errs.Unavailable("identity key store unavailable", err)
}

// errSubjectErased is what sealing for an erased subject answers.
func errSubjectErased() error {
	return errs.Conflict("subject_erased", "the account or organization was permanently deleted; no data can be stored under its id again")
}

// Create returns the subject's key, making one on first use. A destroyed
// key is never made again (its row stays as the marker): errSubjectErased.
func (k *Keyring) Create(ctx context.Context, subject string) ([]byte, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	if _, err := k.pool.Exec(ctx, `INSERT INTO identity_data_keys (subject_id, data_key) VALUES ($1,$2) ON CONFLICT DO NOTHING`, subject, key); err != nil {
		return nil, unavailable(err)
	}
	got, err := k.Get(ctx, subject)
	if errors.Is(err, domain.ErrKeyDestroyed) {
		return nil, errSubjectErased()
	}
	return got, err
}

// Get returns the subject's key, or domain.ErrKeyDestroyed (also for a
// subject that never had one: nothing sealed exists for it).
func (k *Keyring) Get(ctx context.Context, subject string) ([]byte, error) {
	var key []byte
	err := k.pool.QueryRow(ctx, `SELECT data_key FROM identity_data_keys WHERE subject_id=$1`, subject).Scan(&key)
	if errors.Is(err, pgx.ErrNoRows) || err == nil && key == nil {
		return nil, domain.ErrKeyDestroyed
	}
	if err != nil {
		return nil, unavailable(err)
	}
	return key, nil
}

// Destroy drops the subject's key: its sealed data is erased everywhere.
// The row stays as a marker (data_key NULL), so Create refuses the id from
// now on; the row lock orders it against a concurrent Create.
func (k *Keyring) Destroy(ctx context.Context, subject string) error {
	if _, err := k.pool.Exec(ctx, `INSERT INTO identity_data_keys (subject_id, data_key, destroyed_at) VALUES ($1, NULL, now())
		ON CONFLICT (subject_id) DO UPDATE SET data_key=NULL, destroyed_at=coalesce(identity_data_keys.destroyed_at, now())`, subject); err != nil {
		return unavailable(err)
	}
	return nil
}

// Seal encrypts a value of the subject under its key (created when missing;
// refused with 409 subject_erased once the key was destroyed).
func (k *Keyring) Seal(ctx context.Context, subject, plaintext string) (string, error) {
	key, err := k.Create(ctx, subject)
	if err != nil {
		return "", err
	}
	return domain.Seal(key, subject, plaintext, rand.Reader)
}

// Open decrypts a subject's value; domain.ErrKeyDestroyed once it is erased.
func (k *Keyring) Open(ctx context.Context, subject, value string) (string, error) {
	if !domain.IsSealed(value) {
		return value, nil
	}
	key, err := k.Get(ctx, subject)
	if err != nil {
		return "", err
	}
	return domain.Open(key, subject, value)
}

// Pepper is the deployment's email-hash key, generated on first use.
func (k *Keyring) Pepper(ctx context.Context) ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.pepper != nil {
		return k.pepper, nil
	}
	fresh := make([]byte, 32)
	if _, err := rand.Read(fresh); err != nil {
		return nil, err
	}
	var p []byte
	err := k.pool.QueryRow(ctx, `WITH ins AS (INSERT INTO identity_secrets (name, value) VALUES ('email_pepper', $1)
		ON CONFLICT DO NOTHING RETURNING value) SELECT value FROM ins UNION ALL SELECT value FROM identity_secrets WHERE name='email_pepper'`,
		fresh).Scan(&p)
	if err != nil {
		return nil, unavailable(err)
	}
	k.pepper = p
	return p, nil
}

// EmailHash is the keyed hash of an email under the deployment's pepper.
func (k *Keyring) EmailHash(ctx context.Context, email string) (string, error) {
	p, err := k.Pepper(ctx)
	if err != nil {
		return "", err
	}
	return domain.EmailHash(p, email), nil
}
