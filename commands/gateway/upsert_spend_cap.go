package gateway

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/gateway"
)

// UpsertSpendCap is billing.spend_caps.upsert: one cap per scope.
type UpsertSpendCap struct {
	ScopeType        string    `json:"scopeType"`
	ScopeValue       *string   `json:"scopeValue"`
	MonthlyCapCents  float64   `json:"monthlyCapCents"`
	CapMode          *string   `json:"capMode"`
	IsActive         *bool     `json:"isActive"`
	NotifyThresholds []float64 `json:"notifyThresholds"`
}

func (h *Handlers) UpsertSpendCap(ctx context.Context, m commands.Meta, in UpsertSpendCap) (commands.Result[domain.BillingState], error) {
	return run(ctx, h, m, domain.StreamBilling, domain.BillingStreamID(m.OrganizationID), domain.LoadBilling,
		func(b *domain.Billing) ([]event.Change, error) {
			return b.UpsertCap(m.OrganizationID, domain.CapInput{ScopeType: in.ScopeType, ScopeValue: in.ScopeValue,
				MonthlyCapCents: in.MonthlyCapCents, CapMode: in.CapMode, IsActive: in.IsActive, NotifyThresholds: in.NotifyThresholds}, h.now())
		}, billingState, mirrorBilling(m.OrganizationID))
}
