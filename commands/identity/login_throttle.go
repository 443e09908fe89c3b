package identity

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	domain "github.com/platform/backend/domain/identity"
)

// loginThrottle keeps each account's run of failed password attempts
// (domain.LoginFailures) in identity_login_failures, keyed by the email's
// keyed hash: the same for an address with or without an account, so the
// answers (401, or 429 during the window) never tell them apart. The
// decision is the domain's; this only loads and stores it under a row lock,
// so concurrent guesses are counted one after the other.
type loginThrottle struct{ pool *pgxpool.Pool }

// attempt counts one password attempt for the account before the password
// is checked, or refuses it (429 rate_limited) during a backoff window.
func (t *loginThrottle) attempt(ctx context.Context, account string, now time.Time) error {
	if t == nil {
		return nil
	}
	var refused error
	err := pgx.BeginFunc(ctx, t.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO identity_login_failures (account, failures, last_failure_at) VALUES ($1, 0, $2)
			ON CONFLICT (account) DO NOTHING`, account, now); err != nil {
			return err
		}
		var f domain.LoginFailures
		var blocked *time.Time
		if err := tx.QueryRow(ctx, `SELECT failures, last_failure_at, blocked_until FROM identity_login_failures
			WHERE account=$1 FOR UPDATE`, account).Scan(&f.Failures, &f.LastFailureAt, &blocked); err != nil {
			return err
		}
		if blocked != nil {
			f.BlockedUntil = *blocked
		}
		if refused = f.Check(now); refused != nil {
			return nil
		}
		f = f.Attempt(now)
		var until *time.Time
		if !f.BlockedUntil.IsZero() {
			until = &f.BlockedUntil
		}
		_, err := tx.Exec(ctx, `UPDATE identity_login_failures SET failures=$2, last_failure_at=$3, blocked_until=$4 WHERE account=$1`,
			account, f.Failures, f.LastFailureAt, until)
		return err
	})
	if err != nil {
		return unavailable(err)
	}
	return refused
}

// succeeded ends the account's run: the right password (or a completed
// password reset, which proves the mailbox) clears the count.
func (t *loginThrottle) succeeded(ctx context.Context, account string) error {
	if t == nil || account == "" {
		return nil
	}
	if _, err := t.pool.Exec(ctx, `DELETE FROM identity_login_failures WHERE account=$1`, account); err != nil {
		return unavailable(err)
	}
	return nil
}

// purge forgets runs whose last failure is before the cutoff, in batches,
// and says how many rows it deleted.
func (t *loginThrottle) purge(ctx context.Context, before time.Time, batch int) (int64, error) {
	if t == nil {
		return 0, nil
	}
	var total int64
	for {
		tag, err := t.pool.Exec(ctx, `DELETE FROM identity_login_failures WHERE account IN (
			SELECT account FROM identity_login_failures WHERE last_failure_at < $1 LIMIT $2)`, before, batch)
		if err != nil {
			return total, unavailable(err)
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < int64(batch) {
			return total, nil
		}
	}
}
