package gateway

import (
	"context"
	"encoding/json"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/gateway"
)

// UpdateConnection is connections.update: its name, app, relay target,
// token expiry and settings (null clears a nullable member). Credentials
// change through SetCredentials.
type UpdateConnection struct {
	ConnectionID   string            `json:"connectionId"`
	Name           *string           `json:"name"`
	AppID          json.RawMessage   `json:"app_id"`
	WebhookURL     json.RawMessage   `json:"webhook_url"`
	TokenExpiresAt json.RawMessage   `json:"token_expires_at"`
	Settings       map[string]string `json:"settings"`
}

func (e *Edge) UpdateConnection(ctx context.Context, m commands.Meta, in UpdateConnection) (commands.Result[domain.ConnectionV1], error) {
	var d domain.ConnectionInput
	var err error
	d.Name, d.Settings = in.Name, in.Settings
	if d.AppID, d.SetAppID, err = nullableString(in.AppID, "/app_id"); err != nil {
		return commands.Result[domain.ConnectionV1]{}, err
	}
	if d.WebhookURL, d.SetWebhookURL, err = nullableString(in.WebhookURL, "/webhook_url"); err != nil {
		return commands.Result[domain.ConnectionV1]{}, err
	}
	if err := e.checkWebhookURL(d.WebhookURL); err != nil {
		return commands.Result[domain.ConnectionV1]{}, err
	}
	if d.TokenExpiresAt, d.SetExpiry, err = nullableTime(in.TokenExpiresAt, "/token_expires_at"); err != nil {
		return commands.Result[domain.ConnectionV1]{}, err
	}
	now := e.h.now()
	return run(ctx, e.h, m, domain.StreamConnection, domain.ConnectionStreamID(in.ConnectionID), domain.LoadConnection,
		func(c *domain.Connection) ([]event.Change, error) { return c.Update(d, now) },
		connectionState, indexConnection(m.OrganizationID))
}
