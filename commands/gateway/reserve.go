package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/gateway"
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
// the organization and the principal, in one statement (gateway_reserve:
// one UPDATE per budget row, refused with GW402 when settled + reserved +
// amount would pass a cap). The database unreachable is 503: the check
// fails closed.
func (h *Handlers) reserve(ctx context.Context, r *reservation, expires time.Time) error {
	call, err := json.Marshal(r.Call)
	if err != nil {
		return err
	}
	scopes := []string{domain.ScopeOrganization, domain.UserScope(r.Call.Caller.PrincipalID)}
	err = h.pool.QueryRow(ctx, `SELECT gateway_reserve($1, $2, $3, $4, $5, $6, $7)`,
		r.RequestID, r.Org, scopes, r.Month, r.Amount, expires, call).Scan(&r.Scopes)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "GW402" {
		return capExceeded(pgErr.Detail)
	}
	return dbError(err)
}

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

// serviceFee reads the organization's BYOK fee (0 without one).
func (h *Handlers) serviceFee(ctx context.Context, org string) (float64, error) {
	var bps float64
	err := h.pool.QueryRow(ctx, `SELECT COALESCE((SELECT service_fee_bps FROM gateway_fees WHERE organization_id = $1), 0)`, org).Scan(&bps)
	return bps, dbError(err)
}
