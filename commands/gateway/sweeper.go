package gateway

import (
	"cmp"
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/domain/gateway/prices"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/leader"
)

// SweeperActor is the actor of the usage events the sweeper records.
const SweeperActor = "gateway.sweeper"

// sweepBatch bounds one sweep.
const sweepBatch = 100

// SweeperLock makes the reservation sweeper one per deployment, CanaryLock
// the key upkeep and canary (both declared by the gateway module).
var (
	SweeperLock = leader.Named("gateway.reservation_sweeper")
	CanaryLock  = leader.Named("gateway.credential_canary")
)

// RunSweeper settles reservations left past their expiry (a process that
// died between reserve and settle) at their full amount, as usage events
// with outcome abandoned: spend is over-counted, never leaked; and it deletes
// the stored answers of idempotent calls that expired (answers.go). One
// process of a deployment sweeps (leader lock gateway.reservation_sweeper).
//
// An expired reservation may still belong to a call that was answered while
// the database was out: its process holds the settle and lands it once the
// database is back (landings.go). So the sweeper abandons nothing until it
// has reached the database without a failure for Config.SweepGrace, counted
// from the start of its term (a database restart ends the term: the lock's
// connection dies with it) and from its last failed sweep: long enough for
// every live process to land what it held. A process that died holding
// settles wrote them to the settle log first (settle_log.go): the sweeper
// abandons nothing either while the log's reactor has not handled every
// record the log holds (Sweep).
func (h *Handlers) RunSweeper(ctx context.Context, pool *pgxpool.Pool, every time.Duration) error {
	return leader.Run(ctx, pool, SweeperLock, leader.Config{}, h.log, func(ctx context.Context) error {
		reached := time.Now()
		return leader.Every(every, func(ctx context.Context) {
			now := h.now()
			if n, err := h.SweepAnswers(ctx, now); err != nil {
				reached = time.Now()
				h.log.Warn("gateway: expired stored answers not deleted", "err", err, "deleted", n)
				return
			}
			if time.Since(reached) < h.cfg.SweepGrace {
				return
			}
			if n, err := h.Sweep(ctx, now); err != nil {
				reached = time.Now()
				h.log.Warn("gateway: reservation sweep failed", "err", err, "settled", n)
			} else if n > 0 {
				h.log.Info("gateway: settled abandoned reservations", "count", n)
			}
		})(ctx)
	})
}

// Sweep settles every reservation that expired before now (now is passed
// in, so tests move the clock), except those whose settle this process
// holds (an answered call: its real cost lands when the database takes it);
// it returns how many it settled. It settles none while the settle log
// holds records its reactor has not landed yet: a settle is written to the
// log when its call answers, before its reservation expires, so every
// expired reservation's record is below the log's end read here, and lands
// (appending first) before this sweep abandons anything.
func (h *Handlers) Sweep(ctx context.Context, now time.Time) (int, error) {
	if h.settleLog != nil {
		landed, err := h.settleLog.landed(ctx, h.pool)
		if err != nil {
			return 0, err
		}
		if !landed {
			h.log.Info("gateway: the sweep waits for the settle log's records to land")
			return 0, nil
		}
	}
	settled := 0
	for {
		rows, err := h.pool.Query(ctx, `SELECT request_id, organization_id, amount, scopes, month, call FROM gateway_reservations
			WHERE expires_at < $1 AND NOT (request_id = ANY ($3)) ORDER BY expires_at LIMIT $2`, now, sweepBatch, h.landings.names(heldSettle))
		if err != nil {
			return settled, dbError(err)
		}
		type row struct {
			id, org, month string
			amount         int64
			scopes         []string
			call           []byte
		}
		batch, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
			var x row
			err := r.Scan(&x.id, &x.org, &x.amount, &x.scopes, &x.month, &x.call)
			return x, err
		})
		if err != nil {
			return settled, dbError(err)
		}
		items := make([]eventstore.BatchItem, 0, len(batch))
		for _, r := range batch {
			var call Call
			if err := json.Unmarshal(r.call, &call); err != nil {
				return settled, err
			}
			rec := domain.UsageRecordedV1{RequestID: r.id, PrincipalID: call.Caller.PrincipalID, PrincipalType: call.Caller.PrincipalType,
				UserID: call.Caller.UserID, AppID: call.Caller.AppID, UseCase: call.Caller.UseCase, Action: call.Action, Provider: call.Provider, Model: call.Model,
				Operation: call.Operation, ConnectionID: call.ConnectionID, BYOK: call.BYOK, Units: call.Estimate, Estimated: true,
				Outcome: domain.OutcomeAbandoned, Error: "never settled", ProviderCost: r.amount, Cost: r.amount, Reserved: r.amount,
				PriceVersion: prices.Current.Version, Month: r.month, OccurredAt: h.now()}
			if call.BYOK {
				// The reservation is the fee on the estimate; the rated cost is not known without the table's lookup.
				if p, err := prices.Current.Lookup(call.Provider, call.Model, call.Operation); err == nil {
					rec.ProviderCost, rec.ServiceFee = p.Cost(call.Estimate), r.amount
				}
			}
			m := commands.Meta{OrganizationID: r.org, Actor: eventstore.Actor{ID: SweeperActor, Type: "system"}, CorrelationID: call.Caller.CorrelationID}
			items = append(items, settleItem(m, rec, r.scopes))
		}
		// One transaction settles the whole batch; a call that settled
		// meanwhile appended first, and its item appends nothing.
		var done []string
		var failed error
		for i, res := range h.events.ExecuteBatch(ctx, items, settleWrites) {
			if res.Err != nil {
				failed = cmp.Or(failed, res.Err)
				continue
			}
			done = append(done, batch[i].id)
		}
		// The reservation is gone either way once the call's usage is recorded.
		if _, err := h.pool.Exec(ctx, `DELETE FROM gateway_reservations WHERE request_id = ANY($1)`, done); err != nil {
			return settled, dbError(err)
		}
		settled += len(done)
		if failed != nil {
			return settled, failed
		}
		if len(batch) < sweepBatch {
			return settled, nil
		}
	}
}
