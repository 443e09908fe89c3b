package gateway

import (
	"context"
	"fmt"
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/commands/timers"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/eventstore"
)

// expiryBatch bounds one scan; a scan that fills it runs again a minute
// later rather than a day.
const expiryBatch = 200

// ScanExpiring warns every active connection whose token expires within
// seven days of now and was not warned for that expiry (now is passed in,
// so tests move the clock). It returns how many it warned and whether
// more wait.
func (e *Edge) ScanExpiring(ctx context.Context, now time.Time) (int, bool, error) {
	rows, err := e.h.pool.Query(ctx, `SELECT connection_id, organization_id FROM gateway_connection_index
		WHERE status = 'active' AND token_expires_at IS NOT NULL AND token_expires_at <= $1
		AND (warned_expiry IS NULL OR warned_expiry <> token_expires_at) ORDER BY token_expires_at LIMIT $2`,
		now.Add(domain.ExpiryWindow), expiryBatch)
	if err != nil {
		return 0, false, dbError(err)
	}
	type due struct{ id, org string }
	var list []due
	for rows.Next() {
		var d due
		if err := rows.Scan(&d.id, &d.org); err != nil {
			rows.Close()
			return 0, false, dbError(err)
		}
		list = append(list, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, false, dbError(err)
	}
	warned := 0
	for _, d := range list {
		res, err := e.WarnExpiring(ctx, d.org, d.id, now)
		if err != nil {
			return warned, true, fmt.Errorf("warn %s: %w", d.id, err)
		}
		if res.Value.WarnedExpiry != nil {
			warned++
		}
	}
	return warned, len(list) == expiryBatch, nil
}

// scanMeta is the meta of the scan stream's commands.
func scanMeta() commands.Meta {
	return commands.Meta{OrganizationID: principal.PlatformTenant, Actor: eventstore.Actor{ID: ExpiryActor, Type: "system"},
		CorrelationID: "expiry-scan"}
}

// EnsureExpiryScan schedules the first scan, once per deployment (every
// process asks at start; the scan's stream decides under its lock).
func (e *Edge) EnsureExpiryScan(ctx context.Context) error {
	now := e.h.now()
	_, err := commands.Run(ctx, e.h.store, scanMeta(), domain.StreamExpiryScan, domain.ExpiryScanStreamID,
		func(history []event.Recorded) ([]event.Change, int, error) {
			s, _ := domain.LoadExpiryScan(history)
			return s.Ensure(now, now), s.Runs, nil
		})
	return err
}

// fireExpiryScan is the scan timer's command: scan, then record the run
// with the next scan's timer (in a day, or in a minute when the batch was
// full), firing this one in the same transaction.
func (e *Edge) fireExpiryScan(ctx context.Context, f timers.Fire) error {
	now := e.h.now()
	warned, more, err := e.ScanExpiring(ctx, now)
	if err != nil {
		return err
	}
	next := now.Add(e.cfg.ExpiryScanInterval)
	if more {
		next = now.Add(time.Minute)
	}
	m := scanMeta()
	m.IdempotencyKey, m.RequestHash = f.Meta.IdempotencyKey, f.Meta.RequestHash
	_, err = commands.Run(ctx, e.h.store, m, domain.StreamExpiryScan, domain.ExpiryScanStreamID,
		func(history []event.Recorded) ([]event.Change, int, error) {
			s, _ := domain.LoadExpiryScan(history)
			return s.Completed(warned, next, now), warned, nil
		}, f.Option())
	return err
}

// RegisterTimers maps the edge's timer kinds to their commands: the daily
// expiry scan and the webhook relay's retries.
func (e *Edge) RegisterTimers(r *timers.Registry) error {
	if err := r.Register(domain.TimerKindExpiryScan, e.fireExpiryScan); err != nil {
		return err
	}
	return r.Register(domain.TimerKindWebhookRelay, e.fireRelay)
}
