package eventstore

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// claimUnique applies the events' unique claims and releases in the
// command's transaction. A concurrent claim of the same value waits on the
// primary key and then loses: exactly one stream holds a value.
func claimUnique(ctx context.Context, tx *pgx.Conn, streamID string, changes []event.Change) error {
	for _, c := range changes {
		for _, u := range c.Unique {
			if u.Release {
				if _, err := tx.Exec(ctx, `DELETE FROM es_unique WHERE kind=$1 AND value=$2 AND stream_id=$3`, u.Kind, u.Value, streamID); err != nil {
					return err
				}
				continue
			}
			var owner string
			err := tx.QueryRow(ctx, `INSERT INTO es_unique (kind, value, stream_id) VALUES ($1,$2,$3)
				ON CONFLICT (kind, value) DO NOTHING RETURNING stream_id`, u.Kind, u.Value, streamID).Scan(&owner)
			if errors.Is(err, pgx.ErrNoRows) {
				err = tx.QueryRow(ctx, `SELECT stream_id FROM es_unique WHERE kind=$1 AND value=$2`, u.Kind, u.Value).Scan(&owner)
			}
			if err != nil {
				return err
			}
			if owner != streamID {
				return errs.Conflict(u.Kind+"_taken", "this "+u.Kind+" is already taken")
			}
		}
	}
	return nil
}

// Holder is the stream holding a unique value, "" when none. Lookups that
// must see a write at once (sign-in by email right after sign-up) read it
// instead of a read model.
func (s *Store) Holder(ctx context.Context, kind, value string) (string, error) {
	var owner string
	err := s.pool.QueryRow(ctx, `SELECT stream_id FROM es_unique WHERE kind=$1 AND value=$2`, kind, value).Scan(&owner)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return owner, err
}

// Taken reports whether a unique value is held by a stream (slug
// availability answers from it).
func (s *Store) Taken(ctx context.Context, kind, value string) (bool, error) {
	var taken bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM es_unique WHERE kind=$1 AND value=$2)`, kind, value).Scan(&taken)
	return taken, err
}
