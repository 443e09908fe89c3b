package identity

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/leader"
	"github.com/platform/backend/projections/history"
)

// Privacy maintenance limits (seed 001).
const (
	TombstoneRetention = 30 * 24 * time.Hour
	AuditRetention     = history.Retention
	PurgeBatchSize     = 100
)

// PrivacyReport says what one maintenance run did.
type PrivacyReport struct {
	Now               time.Time `json:"now"`
	TombstonesPurged  int       `json:"tombstones_purged"`
	TombstonesSkipped int       `json:"tombstones_skipped"`
	AuditPurged       int64     `json:"audit_records_purged"`
	// LoginFailuresPurged: runs of failed password attempts older than a day
	// (domain.LoginFailureMemory) forgotten, the per-account backoff's rows.
	LoginFailuresPurged int64 `json:"login_failures_purged"`
	Batches             int   `json:"batches"`
}

// PurgeExpired runs privacy maintenance as of now (injected, so tests and
// operators can run it for a given day): soft-deleted organizations and users
// whose tombstone is older than 30 days are permanently deleted, and audit
// records older than 365 days are deleted, in batches of 100. Each purge is an
// ordinary command with a deterministic idempotency key, so two runs (or two
// leaders in a hand-over) purge a subject once.
func (h *Handlers) PurgeExpired(ctx context.Context, now time.Time) (PrivacyReport, error) {
	rep := PrivacyReport{Now: now}
	if h.dir == nil {
		return rep, errs.Unavailable("the accounts directory is not configured", nil)
	}
	cutoff := now.Add(-TombstoneRetention)
	var last Tombstone
	for {
		batch, err := h.dir.Tombstones(ctx, cutoff, last, PurgeBatchSize)
		if err != nil {
			return rep, err
		}
		for _, t := range batch {
			last = t
			purged, err := h.purgeTombstone(ctx, t, cutoff)
			if err != nil {
				return rep, err
			}
			if purged {
				rep.TombstonesPurged++
			} else {
				rep.TombstonesSkipped++
			}
		}
		if len(batch) > 0 {
			rep.Batches++
		}
		if len(batch) < PurgeBatchSize {
			break
		}
	}
	auditCutoff := now.Add(-AuditRetention)
	for {
		n, err := h.dir.PurgeAudit(ctx, auditCutoff, PurgeBatchSize)
		if err != nil {
			return rep, err
		}
		rep.AuditPurged += n
		if n > 0 {
			rep.Batches++
		}
		if n < PurgeBatchSize {
			break
		}
	}
	n, err := h.attempts.purge(ctx, now.Add(-domain.LoginFailureMemory), PurgeBatchSize)
	rep.LoginFailuresPurged = n
	return rep, err
}

// purgeTombstone confirms on the write side that the subject is still
// soft-deleted since before the cutoff (it may have been restored since the
// read model listed it), then erases it.
func (h *Handlers) purgeTombstone(ctx context.Context, t Tombstone, cutoff time.Time) (bool, error) {
	key := "privacy:purge:" + t.Kind + ":" + t.ID
	m := commands.Meta{OrganizationID: t.OrganizationID, Actor: eventstore.Actor{ID: "privacy-maintenance", Type: "system"},
		IdempotencyKey: key, RequestHash: eventstore.HashRequest([]byte(key))}
	var err error
	switch t.Kind {
	case "organization":
		o, lerr := h.loadOrganization(ctx, t.ID)
		if lerr != nil {
			return false, lerr
		}
		if o.Lifecycle() != domain.StateDeleted || !o.DeletedAt().Before(cutoff) {
			return false, nil
		}
		_, err = h.DeleteOrganizationPermanently(ctx, m, t.ID)
	case "user":
		u, lerr := h.loadUser(ctx, t.ID)
		if lerr != nil {
			return false, lerr
		}
		if u.Lifecycle() != domain.StateDeleted || !u.DeletedAt().Before(cutoff) {
			return false, nil
		}
		_, err = h.eraseUser(ctx, m, u)
	default:
		return false, nil
	}
	switch errs.KindOf(err) {
	case errs.KindNotFound, errs.KindConflict:
		return false, nil // erased or restored meanwhile
	}
	return err == nil, err
}

// PrivacyMaintenanceLock makes scheduled maintenance one per deployment
// (declared by the identity module).
var PrivacyMaintenanceLock = leader.Named("identity.privacy_maintenance")

// RunPrivacyMaintenance purges every interval in the one process holding the
// privacy maintenance leader lock, until ctx ends: each purge is keyed, so a
// second process would only repeat work, but the lists it reads are not free.
func (h *Handlers) RunPrivacyMaintenance(ctx context.Context, pool *pgxpool.Pool, interval time.Duration, log *slog.Logger) {
	err := leader.Run(ctx, pool, PrivacyMaintenanceLock, leader.Config{}, log, leader.Every(interval, func(ctx context.Context) {
		rep, err := h.PurgeExpired(ctx, h.now())
		if err != nil {
			log.Warn("privacy maintenance", "err", err)
			return
		}
		if rep.TombstonesPurged > 0 || rep.AuditPurged > 0 {
			log.Info("privacy maintenance", "tombstones", rep.TombstonesPurged, "audit_records", rep.AuditPurged)
		}
	}))
	if err != nil {
		log.Error("privacy maintenance: not started", "err", err)
	}
}
