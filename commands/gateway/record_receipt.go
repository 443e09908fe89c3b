package gateway

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/gateway"
)

// applyReceipt records one receipt a verified webhook carried on the
// delivery of its message: a delivered or bounced message updates the
// delivery's state (a bounce -> gateway.delivery.failed, once per
// delivery). Only the connection's organization's deliveries are found;
// a message the gateway did not send is no one's receipt.
func (e *Edge) applyReceipt(ctx context.Context, m commands.Meta, w domain.WebhookReceivedV1, rc domain.Receipt) error {
	var id string
	err := e.h.pool.QueryRow(ctx, `SELECT d.delivery_id FROM gateway_delivery_index d
		JOIN gateway_connection_index c ON c.connection_id = $3 AND c.organization_id = d.organization_id AND c.provider = d.provider
		WHERE d.provider = $1 AND d.message_id = $2`, w.Provider, rc.MessageID, w.ConnectionID).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return dbError(err)
	}
	r := domain.DeliveryReceiptV1{Kind: rc.Kind, RecipientHash: rc.RecipientHash, Reason: rc.Reason, WebhookID: w.WebhookID,
		OccurredAt: rc.OccurredAt}
	_, err = e.deliveryCommand(ctx, m, id, func(d *domain.Delivery) ([]event.Change, error) { return d.Receive(r), nil })
	return err
}
