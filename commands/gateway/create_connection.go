package gateway

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/domain/text"
)

// CreateConnection is connections.create: an organization's own
// connection to a provider, with its credential (sealed at once; never
// answered, logged or evented).
type CreateConnection struct {
	Provider       string            `json:"provider"`
	Name           string            `json:"name"`
	AppID          *string           `json:"app_id"`
	WebhookURL     *string           `json:"webhook_url"`
	TokenExpiresAt *time.Time        `json:"token_expires_at"`
	Settings       map[string]string `json:"settings"`
	Credentials    Secrets           `json:"credentials"`
}

// newIDs makes a connection id and its credential's id: made here, unique
// across organizations, since webhook routes name a connection alone.
func newIDs() (connection, credential string) {
	hex := strings.ReplaceAll(uuid.Must(uuid.NewV7()).String(), "-", "")
	return "conn_" + hex, "cred_" + hex
}

func (e *Edge) CreateConnection(ctx context.Context, m commands.Meta, in CreateConnection) (commands.Result[domain.ConnectionV1], error) {
	if err := e.checkSecrets(in.Credentials); err != nil {
		return commands.Result[domain.ConnectionV1]{}, err
	}
	if err := e.checkWebhookURL(in.WebhookURL); err != nil {
		return commands.Result[domain.ConnectionV1]{}, err
	}
	id, credID := newIDs()
	sealed, err := e.seal(m.OrganizationID, credID, in.Credentials)
	if err != nil {
		return commands.Result[domain.ConnectionV1]{}, err
	}
	// A new connection takes the organization's calls to its provider only
	// when none is in use; otherwise an administrator chooses it
	// (connections.choose). Two first connections created at once are both
	// chosen, and the later choice is the one used.
	_, inUse, err := e.ownConnection(ctx, m.OrganizationID, in.Provider)
	if err != nil {
		return commands.Result[domain.ConnectionV1]{}, err
	}
	now := e.h.now()
	return run(ctx, e.h, m, domain.StreamConnection, domain.ConnectionStreamID(id), domain.LoadConnection,
		func(c *domain.Connection) ([]event.Change, error) {
			return c.Create(id, credID, sealed.KeyID, domain.ConnectionInput{Provider: in.Provider, Name: &in.Name, AppID: in.AppID,
				SetAppID: true, WebhookURL: in.WebhookURL, SetWebhookURL: true, TokenExpiresAt: in.TokenExpiresAt, SetExpiry: true,
				Settings: in.Settings, SecretMembers: in.Credentials.Members()}, !inUse, now)
		}, connectionState, indexConnection(m.OrganizationID, storeCredential(m.OrganizationID, credID, sealed, now)))
}

// checkSecrets bounds every credential member (the names are the
// domain's: which provider takes which). The detail never quotes a value.
func (e *Edge) checkSecrets(s Secrets) error {
	var fields []errs.Field
	for k, v := range s {
		if strings.TrimSpace(v) == "" || len(v) > domain.MaxSecretLength || !text.IsLine(v) {
			fields = append(fields, errs.Field{Pointer: "/credentials/" + k, Detail: "must be 1..4096 characters on one line"})
		}
	}
	if len(fields) > 0 {
		return errs.Invalid(fields...)
	}
	return nil
}

// checkWebhookURL refuses a relay target the outbound policy would refuse
// (an internal address literal); names are judged again at dial time.
func (e *Edge) checkWebhookURL(u *string) error {
	if u == nil || e.out == nil {
		return nil
	}
	if reason, detail := e.out.Policy().CheckURL(*u); reason != "" {
		return errs.InvalidField("/webhook_url", detail)
	}
	return nil
}
