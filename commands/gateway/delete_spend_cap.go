package gateway

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/gateway"
)

// DeleteSpendCap is billing.spend_caps.delete.
type DeleteSpendCap struct {
	ID string `json:"id"`
}

func (h *Handlers) DeleteSpendCap(ctx context.Context, m commands.Meta, in DeleteSpendCap) (commands.Result[domain.BillingState], error) {
	return run(ctx, h, m, domain.StreamBilling, domain.BillingStreamID(m.OrganizationID), domain.LoadBilling,
		func(b *domain.Billing) ([]event.Change, error) { return b.DeleteCap(in.ID, h.now()) },
		billingState, mirrorBilling(m.OrganizationID))
}
