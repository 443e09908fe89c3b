package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/gateway"
)

// Connection is a connection as connections.list and .get show it: never
// a secret, only its credential's reference (key id, version, the names of
// its members, its state).
type Connection struct {
	ConnectionID   string            `json:"connection_id"`
	Provider       string            `json:"provider"`
	Kind           string            `json:"kind"`
	Name           string            `json:"name"`
	Status         string            `json:"status"`
	StatusReason   string            `json:"status_reason"`
	AppID          *string           `json:"app_id"`
	WebhookURL     *string           `json:"webhook_url"`
	TokenExpiresAt *time.Time        `json:"token_expires_at"`
	BYOK           bool              `json:"byok"`
	Sandbox        bool              `json:"sandbox"`
	Settings       map[string]string `json:"settings"`
	Credential     *ConnectionSecret `json:"credential"`
	Choice         ConnectionChoice  `json:"choice"`
	CreatedAt      *time.Time        `json:"created_at"`
	UpdatedAt      *time.Time        `json:"updated_at"`
}

// ConnectionChoice says which connection of a provider the organization's
// calls use when they name none: in_use is the active connection chosen
// last (chosen_at; null: never chosen), or the platform's own when none of
// the organization's is.
type ConnectionChoice struct {
	ChosenAt *time.Time `json:"chosen_at"`
	InUse    bool       `json:"in_use"`
}

// ConnectionSecret is what the reads know of a credential.
type ConnectionSecret struct {
	CredentialID string    `json:"credential_id"`
	KeyID        string    `json:"key_id"`
	Version      int64     `json:"version"`
	Members      []string  `json:"members"`
	State        string    `json:"state"`
	UpdatedAt    time.Time `json:"updated_at"`
}

// connectionColumns: in_use is the rule the metered path resolves with
// (commands/gateway ownConnection): of the organization's active
// connections of the provider, the one chosen last.
const connectionColumns = `connection_id, provider, kind, name, status, status_reason, app_id, webhook_url, token_expires_at, byok,
	settings, credential, created_at, updated_at, chosen_at, status = 'active' AND chosen_at IS NOT NULL AND NOT EXISTS (
		SELECT 1 FROM {{gateway_connections}} o WHERE o.organization_id = c.organization_id AND o.provider = c.provider
		AND o.status = 'active' AND o.chosen_at IS NOT NULL AND (o.chosen_at, o.connection_id) > (c.chosen_at, c.connection_id))`

func scanConnectionView(r pgx.Row) (Connection, error) {
	var c Connection
	var settings, credential []byte
	var created, updated time.Time
	err := r.Scan(&c.ConnectionID, &c.Provider, &c.Kind, &c.Name, &c.Status, &c.StatusReason, &c.AppID, &c.WebhookURL, &c.TokenExpiresAt,
		&c.BYOK, &settings, &credential, &created, &updated, &c.Choice.ChosenAt, &c.Choice.InUse)
	if err != nil {
		return c, err
	}
	c.CreatedAt, c.UpdatedAt = &created, &updated
	if err := json.Unmarshal(settings, &c.Settings); err != nil {
		return c, err
	}
	var ref ConnectionSecret
	if err := json.Unmarshal(credential, &ref); err != nil {
		return c, err
	}
	if ref.CredentialID != "" {
		if ref.Members == nil {
			ref.Members = []string{}
		}
		c.Credential = &ref
	}
	return c, nil
}

// Connections lists the organization's connections, newest first.
func (q *Queries) Connections(ctx context.Context, org string) ([]Connection, error) {
	sql, err := q.sql(ctx, `SELECT `+connectionColumns+` FROM {{gateway_connections}} c WHERE organization_id = $1
		ORDER BY created_at DESC, connection_id LIMIT 500`)
	if err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, sql, org)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Connection, error) { return scanConnectionView(r) })
}

// Connection is one of the organization's connections (another
// organization's is missing, alike).
func (q *Queries) Connection(ctx context.Context, org, id string) (Connection, error) {
	sql, err := q.sql(ctx, `SELECT `+connectionColumns+` FROM {{gateway_connections}} c WHERE organization_id = $1 AND connection_id = $2`)
	if err != nil {
		return Connection{}, err
	}
	c, err := scanConnectionView(q.pool.QueryRow(ctx, sql, org, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return c, errs.NotFound("connection")
	}
	return c, err
}

// EmailProfiles lists the organization's email profiles, oldest first.
func (q *Queries) EmailProfiles(ctx context.Context, org string) ([]domain.EmailProfile, error) {
	sql, err := q.sql(ctx, `SELECT profile FROM {{gateway_email_profiles}} WHERE organization_id = $1 ORDER BY created_at, profile_id`)
	if err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, sql, org)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.EmailProfile, error) {
		var raw []byte
		var p domain.EmailProfile
		if err := r.Scan(&raw); err != nil {
			return p, err
		}
		return p, json.Unmarshal(raw, &p)
	})
}

// EmailProfile is one of the organization's email profiles.
func (q *Queries) EmailProfile(ctx context.Context, org, id string) (domain.EmailProfile, error) {
	sql, err := q.sql(ctx, `SELECT profile FROM {{gateway_email_profiles}} WHERE organization_id = $1 AND profile_id = $2`)
	if err != nil {
		return domain.EmailProfile{}, err
	}
	var raw []byte
	var p domain.EmailProfile
	err = q.pool.QueryRow(ctx, sql, org, id).Scan(&raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return p, errs.NotFound("email profile")
	}
	if err != nil {
		return p, err
	}
	return p, json.Unmarshal(raw, &p)
}

// Deliveries lists the organization's deliveries, newest first.
func (q *Queries) Deliveries(ctx context.Context, org string, limit int) ([]domain.DeliveryState, error) {
	sql, err := q.sql(ctx, `SELECT delivery FROM {{gateway_deliveries}} WHERE organization_id = $1 ORDER BY created_at DESC, delivery_id LIMIT $2`)
	if err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, sql, org, max(limit, 1))
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.DeliveryState, error) {
		var raw []byte
		var d domain.DeliveryState
		if err := r.Scan(&raw); err != nil {
			return d, err
		}
		return d, json.Unmarshal(raw, &d)
	})
}

// Delivery is one of the organization's deliveries.
func (q *Queries) Delivery(ctx context.Context, org, id string) (domain.DeliveryState, error) {
	sql, err := q.sql(ctx, `SELECT delivery FROM {{gateway_deliveries}} WHERE organization_id = $1 AND delivery_id = $2`)
	if err != nil {
		return domain.DeliveryState{}, err
	}
	var raw []byte
	var d domain.DeliveryState
	err = q.pool.QueryRow(ctx, sql, org, id).Scan(&raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return d, errs.NotFound("delivery")
	}
	if err != nil {
		return d, err
	}
	return d, json.Unmarshal(raw, &d)
}

// InboundWebhook is a received provider webhook and its relay, as
// webhooks.list shows it (never its body).
type InboundWebhook struct {
	WebhookID       string    `json:"webhook_id"`
	ConnectionID    string    `json:"connection_id"`
	Provider        string    `json:"provider"`
	EventType       string    `json:"event_type"`
	ProviderEventID string    `json:"provider_event_id"`
	Size            int       `json:"size"`
	RelayStatus     string    `json:"relay_status"`
	Attempts        int       `json:"attempts"`
	LastStatus      int       `json:"last_status"`
	LastError       string    `json:"last_error"`
	ReceivedAt      time.Time `json:"received_at"`
	UpdatedAt       time.Time `json:"updated_at"`
}

// Webhooks lists the organization's received webhooks, newest first.
func (q *Queries) Webhooks(ctx context.Context, org string, limit int) ([]InboundWebhook, error) {
	sql, err := q.sql(ctx, `SELECT webhook_id, connection_id, provider, event_type, provider_event_id, size, relay_status, attempts,
		last_status, last_error, received_at, updated_at FROM {{gateway_webhooks}} WHERE organization_id = $1
		ORDER BY received_at DESC, webhook_id LIMIT $2`)
	if err != nil {
		return nil, err
	}
	rows, err := q.pool.Query(ctx, sql, org, max(limit, 1))
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (InboundWebhook, error) {
		var w InboundWebhook
		err := r.Scan(&w.WebhookID, &w.ConnectionID, &w.Provider, &w.EventType, &w.ProviderEventID, &w.Size, &w.RelayStatus, &w.Attempts,
			&w.LastStatus, &w.LastError, &w.ReceivedAt, &w.UpdatedAt)
		return w, err
	})
}
