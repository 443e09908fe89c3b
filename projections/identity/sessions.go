package identity

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	identitycmd "github.com/platform/backend/commands/identity"
)

var _ identitycmd.SessionDirectory = (*Queries)(nil)

// OpenSessions implements identitycmd.SessionDirectory: the user's sessions
// not ended and not expired at now, newest first (the commands confirm each
// on the write side). organizationID "" lists every organization's.
func (q *Queries) OpenSessions(ctx context.Context, userID, organizationID string, now time.Time) ([]identitycmd.SessionInfo, error) {
	sql, err := q.sql(ctx, `SELECT session_id, user_id, organization_id, service, started_at, refreshed_at, expires_at
		FROM {{identity_sessions}} WHERE user_id=$1 AND ($2 = '' OR organization_id=$2) AND ended_at IS NULL AND expires_at > $3
		ORDER BY started_at DESC LIMIT 200`)
	if err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, sql, userID, organizationID, now)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (identitycmd.SessionInfo, error) {
		var s identitycmd.SessionInfo
		err := r.Scan(&s.SessionID, &s.UserID, &s.OrganizationID, &s.Service, &s.StartedAt, &s.RefreshedAt, &s.ExpiresAt)
		return s, err
	})
}
