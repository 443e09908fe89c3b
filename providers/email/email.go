// Package email sends transactional email through provider adapters.
//
// Two ways in, one way out:
//   - Provider.Deliver takes the full Outgoing message the usage gateway's
//     email.send takes and returns a delivery.Receipt or a classified
//     *delivery.Error. The SMTP adapter here, postmark and resend implement it.
//   - Sender.Send takes the simple plain-text Message the identity service
//     sends (sign-up links, invitations); SMTP and Sandbox implement it by
//     turning the Message into an Outgoing and delivering that.
//
// The Sandbox is the clearly named local provider: it keeps messages in
// memory and logs that it did.
package email

import (
	"context"

	"github.com/platform/backend/providers/delivery"
)

// Provider delivers a full message: what the gateway calls.
type Provider interface {
	Deliver(ctx context.Context, m Outgoing) (delivery.Receipt, error)
}

// Message is one plain-text email to one recipient: the identity service's
// simple message.
type Message struct {
	To      string
	Subject string
	Text    string
}

// Sender delivers a simple message or says why not.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// outgoing is m as a full message from the given sender.
func (m Message) outgoing(from Address) Outgoing {
	return Outgoing{From: from, To: []Address{{Email: m.To}}, Subject: m.Subject, Text: m.Text}
}
