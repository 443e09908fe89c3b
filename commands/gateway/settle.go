package gateway

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"slices"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/eventstore"
)

// settle records a call once: the usage event on the call's own stream (its
// id is the request id, so a retried settle, or the sweeper racing the call,
// appends nothing), the reservation deleted, and each budget row of the
// organization and the principal moving the reservation to settled at the
// actual cost, all in one transaction. Concurrent calls' settles share
// that transaction (a group commit, eventstore.GroupCommit): a call returns
// once its own settle has committed, so an answer still means recorded,
// while a burst of calls pays one commit. It reports whether this settle
// appended.
func (h *Handlers) settle(ctx context.Context, m commands.Meta, rec domain.UsageRecordedV1, reservedScopes []string) (bool, error) {
	it := settleItem(m, rec, reservedScopes)
	out, err := h.settles.Execute(ctx, it.Command, it.Decide)
	if err != nil {
		return false, err
	}
	appended, err := appendedOf(out.Result)
	if err == nil && appended {
		callsSettled.WithLabelValues(rec.Provider, rec.Operation, rec.Outcome).Inc()
		spendSettled.WithLabelValues(rec.Provider, rec.Operation).Add(float64(rec.Cost))
	}
	return appended, err
}

// settled and unsettled are a settle's result as the event store encodes
// it (json.Marshal of settling, TestSettleResultReadWithoutDecoding): a
// call's result is compared with them, not decoded (a decode by reflection
// a call, bench/README.md "gwcons"); anything else is decoded.
var settled, unsettled = []byte(`{"appended":true}`), []byte(`{"appended":false}`)

// appendedOf reads a settle's result: whether it appended.
func appendedOf(result []byte) (bool, error) {
	switch {
	case bytes.Equal(result, settled):
		return true, nil
	case bytes.Equal(result, unsettled):
		return false, nil
	}
	var s settling
	err := json.Unmarshal(result, &s)
	return s.Appended, err
}

// settling is a settle's decision result: whether it appended, and what
// the transaction's shared writes (settleWrites) need of it.
type settling struct {
	Appended bool `json:"appended"`
	org      string
	rec      domain.UsageRecordedV1
	scopes   []string // the hard-cap scopes the reservation holds
}

// settleItem is a settle as one command of a batch.
func settleItem(m commands.Meta, rec domain.UsageRecordedV1, reservedScopes []string) eventstore.BatchItem {
	// The usage stream is named by the call's request id, made for it: a
	// transaction of settles is one round trip (Command.New); a retried
	// settle, or the sweeper's racing the call, finds the stream there and
	// is decided on it (appends nothing).
	cmd := eventstore.Command{StreamType: domain.StreamUsage, StreamID: domain.UsageStreamID(rec.RequestID), OrganizationID: m.OrganizationID,
		Actor: m.Actor, CorrelationID: m.CorrelationID, CausationID: m.CausationID, New: true}
	return eventstore.BatchItem{Command: cmd, Decide: func(history []eventstore.Event) (eventstore.Decision, error) {
		changes, err := domain.Settle(commands.Recorded(history), rec)
		if err != nil {
			return eventstore.Decision{}, err
		}
		return eventstore.Decision{Events: changes,
			Result: settling{Appended: len(changes) > 0, org: m.OrganizationID, rec: rec, scopes: reservedScopes}}, nil
	}}
}

// budgetKey is one budget row.
type budgetKey struct{ org, scope, month string }

// settleWrites is the write-side statement of the settles a transaction
// appends, one however many there are (settleSQL): their reservations
// deleted, and their costs and releases summed per budget row and applied
// in (org, scope, month) order. That order is the one reservations lock
// rows in, so neither two settle transactions nor a settle and a
// reservation wait on each other in a cycle.
func settleWrites(appended []eventstore.Decision) []eventstore.Write {
	type delta struct{ settled, release int64 }
	deltas := map[budgetKey]*delta{}
	var ids []string
	for _, d := range appended {
		s, ok := d.Result.(settling)
		if !ok || !s.Appended {
			continue
		}
		ids = append(ids, s.rec.RequestID)
		for _, scope := range []string{domain.ScopeOrganization, domain.UserScope(s.rec.BudgetUser())} {
			k := budgetKey{s.org, scope, s.rec.Month}
			if deltas[k] == nil {
				deltas[k] = &delta{}
			}
			deltas[k].settled += s.rec.Cost
			if slices.Contains(s.scopes, scope) {
				deltas[k].release += s.rec.Reserved
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	keys := make([]budgetKey, 0, len(deltas))
	for k := range deltas {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b budgetKey) int {
		return cmp.Or(cmp.Compare(a.org, b.org), cmp.Compare(a.scope, b.scope), cmp.Compare(a.month, b.month))
	})
	orgs, scopes, months := make([]string, len(keys)), make([]string, len(keys)), make([]string, len(keys))
	settled, release := make([]int64, len(keys)), make([]int64, len(keys))
	for i, k := range keys {
		orgs[i], scopes[i], months[i] = k.org, k.scope, k.month
		settled[i], release[i] = deltas[k].settled, deltas[k].release
	}
	return []eventstore.Write{{SQL: settleSQL, Args: []any{ids, orgs, scopes, months, settled, release}}}
}

// settleSQL deletes the reservations ($1) and applies the budget rows'
// deltas ($2-$6, one row a key, in lock order) in one statement, where
// gateway_settle_budgets took a PL/pgSQL loop of one upsert a row and the
// delete a statement of its own. The rows are upserted in the order given
// (ORDER BY the arrays' ordinality); a row is inserted, at reserved 0, only
// for a scope that reserved nothing (a reservation inserts its rows first),
// an existing one gets its settled cost added and its release taken out of
// reserved. (The function stays for a process of the version before this
// one.)
const settleSQL = `WITH released AS (DELETE FROM gateway_reservations WHERE request_id = ANY ($1::text[]))
INSERT INTO gateway_budgets AS b (organization_id, scope, month, settled, reserved)
SELECT d.org, d.scope, d.month, d.settled, 0
FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[]) WITH ORDINALITY AS d(org, scope, month, settled, n)
ORDER BY d.n
ON CONFLICT (organization_id, scope, month) DO UPDATE SET settled = b.settled + EXCLUDED.settled,
	reserved = b.reserved - (SELECT r.release FROM unnest($2::text[], $3::text[], $4::text[], $6::bigint[]) AS r(org, scope, month, release)
		WHERE r.org = b.organization_id AND r.scope = b.scope AND r.month = b.month)`
