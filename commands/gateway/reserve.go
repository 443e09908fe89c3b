package gateway

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/eventstore"
)

// reservation is a call's hold on its budgets between reserve and settle.
type reservation struct {
	RequestID string
	Org       string
	Amount    int64
	Scopes    []string // the hard-cap scopes it holds
	Month     string
	Call      Call // what the sweeper records when the call never settles
}

// reserve holds the call's worst-case cost against every active hard cap of
// the organization and of the user the call acts as (Caller.BudgetUser:
// every credential of a user meets the same budget row, so its lock
// serializes a user's session and keys alike), or refuses it (402 when settled +
// reserved + amount would pass a cap), and records the reservation the
// sweeper settles if the call never does. The reservations of concurrent
// calls share one statement and one commit (reserves: a group commit); a
// call goes on only once its own reservation has committed, so a crash
// after it over-counts, never leaks. The database unreachable is 503: the
// check fails closed.
func (h *Handlers) reserve(ctx context.Context, r *reservation, expires time.Time) error {
	call, err := json.Marshal(r.Call)
	if err != nil {
		return err
	}
	res, err := h.reserves.Do(ctx, reserveItem{r: r, expires: expires, call: call})
	if err != nil {
		return err
	}
	r.Scopes = res.held
	return res.err
}

// reserveItem is one call's reservation in a batch, and reserved its answer.
type reserveItem struct {
	r       *reservation
	expires time.Time
	call    []byte
}

type reserved struct {
	held []string
	err  error
}

// reserveBatch is one statement (gateway_reserve_batch) and one commit for
// the reservations of concurrent calls, each reserved or refused on its
// own. Items go in sorted by organization, principal and month: the order
// budget rows are locked in everywhere. A statement refused for another
// reason than an outage is tried again item by item, so a bad item fails
// alone.
func (h *Handlers) reserveBatch(ctx context.Context, items []reserveItem) []reserved {
	out := make([]reserved, len(items))
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		x, y := items[a].r, items[b].r
		return cmp.Or(cmp.Compare(x.Org, y.Org), cmp.Compare(x.Call.Caller.BudgetUser(), y.Call.Caller.BudgetUser()), cmp.Compare(x.Month, y.Month))
	})
	n := len(items)
	ids, orgs, users, months := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	amounts, expires, calls := make([]int64, n), make([]time.Time, n), make([]string, n)
	for j, i := range order {
		r := items[i].r
		ids[j], orgs[j], users[j], months[j] = r.RequestID, r.Org, domain.UserScope(r.Call.Caller.BudgetUser()), r.Month
		amounts[j], expires[j], calls[j] = r.Amount, items[i].expires, string(items[i].call)
	}
	rows, err := h.pool.Query(ctx, reserveSQL, ids, orgs, users, months, amounts, expires, calls)
	if err == nil {
		for rows.Next() {
			var ord int
			var held []string
			var refused *string
			if err = rows.Scan(&ord, &held, &refused); err != nil {
				break
			}
			res := reserved{held: held}
			if refused != nil {
				res.err = capExceeded(*refused)
			}
			out[order[ord-1]] = res
		}
		rows.Close()
		err = cmp.Or(err, rows.Err())
	}
	if err == nil {
		return out
	}
	if err = dbError(err); errs.KindOf(err) == errs.KindUnavailable || len(items) == 1 {
		for i := range out {
			out[i] = reserved{err: err}
		}
		return out
	}
	for i := range items {
		out[i] = h.reserveBatch(ctx, items[i:i+1])[0]
	}
	return out
}

// reserveSQL reserves a batch (the arguments of gateway_reserve_batch) in
// one statement. A batch none of whose organizations has an active hard cap
// (most: caps are opt-in) holds no budget row: its reservations are one
// insert, every item reserved with nothing held, without the function's
// PL/pgSQL loop (a caps lookup, an insert and a returned row an item: about
// twice the PostgreSQL time of the insert alone). A batch that meets any
// active hard cap of one of its organizations runs the function, item by
// item, as before. The caps are read once, in the statement's snapshot,
// before anything is written, as the function reads them; each branch runs
// only when its one-time filter holds (the other is never executed). A free
// batch answers its held scopes as NULL, none, which scans without decoding
// an array.
const reserveSQL = `WITH free AS MATERIALIZED (
	SELECT NOT EXISTS (SELECT 1 FROM gateway_caps g WHERE g.organization_id = ANY ($2::text[]) AND g.hard AND g.active) AS free
), reserved AS (
	INSERT INTO gateway_reservations (request_id, organization_id, amount, scopes, month, call, expires_at)
	SELECT r.req, r.org, r.amount, '{}', r.month, r.call, r.expires
	FROM unnest($1::text[], $2::text[], $5::bigint[], $4::text[], $7::jsonb[], $6::timestamptz[]) AS r(req, org, amount, month, call, expires)
	WHERE (SELECT free FROM free)
)
SELECT i AS ord, NULL::text[] AS held, NULL::text AS refused FROM generate_series(1, cardinality($1::text[])) AS i WHERE (SELECT free FROM free)
UNION ALL
SELECT b.ord, b.held, b.refused FROM gateway_reserve_batch($1, $2, $3, $4, $5, $6, $7) AS b WHERE NOT (SELECT free FROM free)`

// capExceeded is the 402 of a refused reservation: which cap, its
// month-to-date spend and what the call needed, in cents.
func capExceeded(detail string) error {
	var d struct {
		Scope    string `json:"scope"`
		Cap      int64  `json:"cap"`
		Settled  int64  `json:"settled"`
		Reserved int64  `json:"reserved"`
		Amount   int64  `json:"amount"`
	}
	_ = json.Unmarshal([]byte(detail), &d) // the function writes it; a missing member stays 0
	return errs.PaymentRequired("spend_cap_exceeded",
		fmt.Sprintf("the %s spend cap of %s cents would be exceeded: %s cents spent this month, %s reserved by calls in flight, this call needs up to %s",
			d.Scope, cents(d.Cap), cents(d.Settled), cents(d.Reserved), cents(d.Amount)),
		map[string]any{"scope": d.Scope, "cap_cents": float64(d.Cap) / 1e6, "month_to_date_cents": float64(d.Settled) / 1e6,
			"reserved_cents": float64(d.Reserved) / 1e6, "reservation_cents": float64(d.Amount) / 1e6})
}

func cents(microcents int64) string { return fmt.Sprintf("%.4f", float64(microcents)/1e6) }

// WatchFees serves serviceFee from memory kept coherent by w, as the
// connection in use is (Edge.WatchConnections): the fee is set on the
// organization's billing stream, whose appends notify (the module makes
// the store announce domain.StreamBilling), and any billing stream's
// change drops every fee. So a fee set applies to every call reserved
// later than w's bound after it, on every process. Call before serving.
func (h *Handlers) WatchFees(w *eventstore.HeadWatch) {
	h.fees = eventstore.NewMemo[string, float64](w, domain.BillingStreamID(""))
}

// serviceFee is the organization's BYOK fee (0 without one).
func (h *Handlers) serviceFee(ctx context.Context, org string) (float64, error) {
	if h.fees == nil {
		return h.readServiceFee(ctx, org)
	}
	return h.fees.Get(ctx, org, func(ctx context.Context) (float64, error) { return h.readServiceFee(ctx, org) })
}

// readServiceFee reads the fee from the write side's mirror.
func (h *Handlers) readServiceFee(ctx context.Context, org string) (float64, error) {
	var bps float64
	err := h.pool.QueryRow(ctx, `SELECT COALESCE((SELECT service_fee_bps FROM gateway_fees WHERE organization_id = $1), 0)`, org).Scan(&bps)
	return bps, dbError(err)
}

// reserveBatchSize bounds one reservation statement: a batch holds its
// organizations' budget rows locked until it commits.
const reserveBatchSize = 64
