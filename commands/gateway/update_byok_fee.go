package gateway

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/gateway"
)

// UpdateByokFee is billing.byok_fee.update.
type UpdateByokFee struct {
	ServiceFeeBps float64 `json:"serviceFeeBps"`
}

func (h *Handlers) UpdateByokFee(ctx context.Context, m commands.Meta, in UpdateByokFee) (commands.Result[domain.BillingState], error) {
	return run(ctx, h, m, domain.StreamBilling, domain.BillingStreamID(m.OrganizationID), domain.LoadBilling,
		func(b *domain.Billing) ([]event.Change, error) { return b.SetFee(in.ServiceFeeBps, h.now()) },
		billingState, mirrorBilling(m.OrganizationID))
}
