package gateway

import (
	"context"
	"encoding/json"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/domain/gateway/prices"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/providers/delivery"
	"github.com/platform/backend/providers/message"
)

// SendMessage is instant_message.send's input (seed 001).
type SendMessage struct {
	To            string           `json:"to"`
	ConnectionID  *string          `json:"connection_id"`
	PhoneNumberID *string          `json:"phone_number_id"`
	AppID         *string          `json:"app_id"`
	Type          *string          `json:"type"`
	Text          *string          `json:"text"`
	PreviewURL    *bool            `json:"preview_url"`
	Template      *MessageTemplate `json:"template"`
}

// MessageTemplate is an approved template and its components.
type MessageTemplate struct {
	Name       string            `json:"name"`
	Language   string            `json:"language"`
	Components []json.RawMessage `json:"components"`
}

// SendMessage sends one WhatsApp Cloud API message (text or template)
// through the metered path (one message). Only the notification and
// messaging-dispatch services call it (the route says so); they speak for
// no organization, so the message belongs to the connection's organization
// (connection_id), or to the platform on the platform's own connection.
func (e *Edge) SendMessage(ctx context.Context, m commands.Meta, in SendMessage) (commands.Result[domain.DeliveryState], error) {
	link, err := e.Resolve(ctx, m.OrganizationID, domain.ProviderMessageA, ptr(in.ConnectionID))
	if err != nil {
		return commands.Result[domain.DeliveryState]{}, err
	}
	if link.Message == nil {
		return commands.Result[domain.DeliveryState]{}, errs.InvalidField("/connection_id", "the connection does not send instant messages")
	}
	if m.OrganizationID == "" {
		m.OrganizationID = firstOf(link.OrganizationID, principal.PlatformTenant)
	}
	msg := message.Outgoing{To: in.To, PhoneNumberID: ptr(in.PhoneNumberID), Type: ptr(in.Type), Text: ptr(in.Text)}
	if in.PreviewURL != nil {
		msg.PreviewURL = *in.PreviewURL
	}
	if in.Template != nil {
		msg.Template = message.Template{Name: in.Template.Name, Language: in.Template.Language, Components: in.Template.Components}
	}
	if err := msg.Validate("whatsapp"); err != nil {
		return commands.Result[domain.DeliveryState]{}, invalidMessage(err)
	}
	caller := CallerOf(m, firstOf(ptr(in.AppID), DefaultAppID), "other")
	return e.deliver(ctx, m, send{Channel: domain.ChannelMessage, Action: "instant_message.send", Model: msg.Kind(), Operation: prices.OpMessage,
		Link: link, Caller: caller, Recipients: 1, Estimate: prices.Units{Messages: 1},
		Do: func(ctx context.Context) (delivery.Receipt, error) { return link.Message.Deliver(ctx, msg) }})
}
