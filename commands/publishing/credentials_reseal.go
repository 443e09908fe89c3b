package publishing

import (
	"context"
	"log/slog"

	"github.com/jackc/pgx/v5"
)

// Resealed is what one re-seal sweep did.
type Resealed struct {
	Resealed   int // now under the active key
	Unreadable int // left as they are: their key is not in the ring (named in the log by connection and key id)
}

// Reseal moves every stored token that is not under the ring's active key
// (the legacy form, or a key rotated out of the active place) to the
// active key: open with the key the row names, seal with the active one,
// write only if the row did not change meanwhile (a refresh that saved
// newer tokens wins). Tokens that never expire (Mastodon's) are never
// refreshed, so a save alone would leave them under the old key for ever.
// Every process of a rolling deploy must hold the new key before it
// becomes active: a process without it cannot open what the others seal.
func (c *Credentials) Reseal(ctx context.Context, log *slog.Logger) (Resealed, error) {
	var out Resealed
	active := c.vault.active()
	if active == "" {
		return out, nil // nothing to seal with
	}
	for after := ""; ; {
		rows, err := c.pool.Query(ctx, `SELECT connection_id, key_id, nonce, sealed FROM publishing_credentials
			WHERE key_id IS DISTINCT FROM $1 AND connection_id > $2 ORDER BY connection_id LIMIT 100`, active, after)
		if err != nil {
			return out, dbError(err)
		}
		type row struct {
			ID string
			stored
		}
		batch, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
			var x row
			return x, r.Scan(&x.ID, &x.KeyID, &x.Nonce, &x.Sealed)
		})
		if err != nil || len(batch) == 0 {
			return out, dbError(err)
		}
		for _, x := range batch {
			after = x.ID
			plain, err := c.vault.open(x.stored, []byte(x.ID))
			if err != nil {
				out.Unreadable++
				log.Warn("publishing: a connection's tokens do not open; not re-sealed (reconnect it, or put its key back in the ring)",
					"connection", x.ID, "key_id", keyName(x.KeyID))
				continue
			}
			s, err := c.vault.seal(plain, []byte(x.ID))
			if err != nil {
				return out, err
			}
			tag, err := c.pool.Exec(ctx, `UPDATE publishing_credentials SET key_id=$2, nonce=$3, sealed=$4, updated_at=now()
				WHERE connection_id=$1 AND sealed=$5`, x.ID, s.KeyID, s.Nonce, s.Sealed, x.Sealed)
			if err != nil {
				return out, dbError(err)
			}
			out.Resealed += int(tag.RowsAffected())
		}
	}
}

func keyName(id *string) string {
	if id == nil {
		return "legacy"
	}
	return *id
}
