package gateway

import (
	"context"
	"time"

	"github.com/google/uuid"

	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/eventstore"
)

// ReserveBatch reserves calls of the given organizations, acting as user,
// as one batch (reserveBatch), for tests: each call's held scopes, or its
// refusal.
func (h *Handlers) ReserveBatch(ctx context.Context, orgs []string, user string, amount int64) (held [][]string, refused []error) {
	items := make([]reserveItem, len(orgs))
	now := h.now()
	for i, org := range orgs {
		items[i] = reserveItem{r: &reservation{RequestID: uuid.NewString(), Org: org, Amount: amount, Month: domain.Month(now),
			Call: Call{Caller: Caller{OrganizationID: org, PrincipalID: user, UserID: user}}}, expires: now.Add(time.Hour), call: []byte(`{}`)}
	}
	for _, r := range h.reserveBatch(ctx, items) {
		held, refused = append(held, r.held), append(refused, r.err)
	}
	return held, refused
}

// SettleWrites is the shared writes of settles of an organization's usage
// records (settleWrites), each with the hard-cap scopes its reservation held.
func SettleWrites(org string, recs []domain.UsageRecordedV1, held [][]string) []eventstore.Write {
	var appended []eventstore.Decision
	for i, rec := range recs {
		appended = append(appended, eventstore.Decision{Result: settling{Appended: true, org: org, rec: rec, scopes: held[i]}})
	}
	return settleWrites(appended)
}
