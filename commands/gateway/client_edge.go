package gateway

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/gateway"
)

// WithEdge gives the client the edge's operations: email, instant
// messages, payments.
func (c *Client) WithEdge(e *Edge) *Client {
	c.edge = e
	return c
}

// Edge is the client's edge (nil without one).
func (c *Client) Edge() *Edge { return c.edge }

// SendEmail sends an email on behalf of the meta's organization (email.send).
func (c *Client) SendEmail(ctx context.Context, m commands.Meta, in SendEmail) (commands.Result[domain.DeliveryState], error) {
	if c.edge == nil {
		return commands.Result[domain.DeliveryState]{}, errs.Unavailable("the gateway's edge is not configured", nil)
	}
	return c.edge.SendEmail(ctx, m, in)
}

// SendMessage sends an instant message (instant_message.send).
func (c *Client) SendMessage(ctx context.Context, m commands.Meta, in SendMessage) (commands.Result[domain.DeliveryState], error) {
	if c.edge == nil {
		return commands.Result[domain.DeliveryState]{}, errs.Unavailable("the gateway's edge is not configured", nil)
	}
	return c.edge.SendMessage(ctx, m, in)
}

// InvokePayments runs a payments operation (payments.processor.invoke).
func (c *Client) InvokePayments(ctx context.Context, m commands.Meta, in InvokePayments) (PaymentsAnswer, error) {
	if c.edge == nil {
		return PaymentsAnswer{}, errs.Unavailable("the gateway's edge is not configured", nil)
	}
	return c.edge.InvokePayments(ctx, m, in)
}
