package gateway

import (
	"encoding/json"

	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/projections"
)

// edgeArea: the gateway's edge as its reads show it: connections (with
// their credential's reference, never a secret), email profiles,
// deliveries and inbound webhooks; their configuration changes also go to
// the gateway's audit trail.
var edgeArea = area{
	tables: []string{"gateway_connections", "gateway_email_profiles", "gateway_deliveries", "gateway_webhooks"},
	schema: []string{
		`CREATE TABLE IF NOT EXISTS {{gateway_connections}} (
			connection_id text PRIMARY KEY, organization_id text NOT NULL, provider text NOT NULL, kind text NOT NULL, name text NOT NULL,
			status text NOT NULL, status_reason text NOT NULL, app_id text, webhook_url text, token_expires_at timestamptz,
			byok boolean NOT NULL, settings jsonb NOT NULL, credential jsonb NOT NULL, created_at timestamptz NOT NULL,
			updated_at timestamptz NOT NULL, chosen_at timestamptz)`,
		`CREATE INDEX IF NOT EXISTS {{gateway_connections}}_org ON {{gateway_connections}} (organization_id, created_at DESC)`,
		// chosen_at came with connections.choose: the engine runs this schema
		// for every generation it starts, so a generation created before
		// gains the column, and its rows (all recorded before choices
		// existed) count as chosen when created, as their events do
		// (domain ConnectionV1.Chosen).
		`DO $$ BEGIN
			IF NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = '{{gateway_connections}}'::regclass AND attname = 'chosen_at'
				AND NOT attisdropped) THEN
				ALTER TABLE {{gateway_connections}} ADD COLUMN chosen_at timestamptz;
				UPDATE {{gateway_connections}} SET chosen_at = created_at;
			END IF;
		END $$`,
		`CREATE TABLE IF NOT EXISTS {{gateway_email_profiles}} (
			profile_id text PRIMARY KEY, organization_id text NOT NULL, profile jsonb NOT NULL, is_default boolean NOT NULL,
			created_at timestamptz NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{gateway_email_profiles}}_org ON {{gateway_email_profiles}} (organization_id, created_at)`,
		`CREATE TABLE IF NOT EXISTS {{gateway_deliveries}} (
			delivery_id text PRIMARY KEY, organization_id text NOT NULL, delivery jsonb NOT NULL, created_at timestamptz NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{gateway_deliveries}}_org ON {{gateway_deliveries}} (organization_id, created_at DESC)`,
		`CREATE TABLE IF NOT EXISTS {{gateway_webhooks}} (
			webhook_id text PRIMARY KEY, organization_id text NOT NULL, connection_id text NOT NULL, provider text NOT NULL,
			event_type text NOT NULL, provider_event_id text NOT NULL, size int NOT NULL, relay_status text NOT NULL,
			attempts int NOT NULL, last_status int NOT NULL, last_error text NOT NULL, received_at timestamptz NOT NULL,
			updated_at timestamptz NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS {{gateway_webhooks}}_org ON {{gateway_webhooks}} (organization_id, received_at DESC)`,
	},
	reducers: ignored(projections.Reducers{
		domain.ConnectionCreated:       both(projections.On(connectionSet), audited),
		domain.ConnectionUpdated:       both(projections.On(connectionSet), audited),
		domain.ConnectionDisconnected:  both(projections.On(connectionStatus), audited),
		domain.ConnectionExpiring:      audited,
		domain.ConnectionChosen:        both(projections.On(connectionChosen), audited),
		domain.CredentialStored:        both(projections.On(credentialSet), audited),
		domain.CredentialRotated:       both(projections.On(credentialRotated), audited),
		domain.CredentialUndecryptable: both(projections.On(credentialUnreadable), audited),
		domain.EmailProfileCreated:     both(projections.On(profileSet), audited),
		domain.EmailProfileUpdated:     both(projections.On(profileSet), audited),
		domain.EmailProfileDeleted:     both(projections.On(profileDeleted), audited),
		domain.DeliveryRequested:       projections.On(deliveryRequested),
		domain.DeliverySent:            projections.On(deliveryOutcome(domain.DeliveryStatusSent)),
		domain.DeliveryFailed:          projections.On(deliveryOutcome(domain.DeliveryStatusFailed)),
		domain.DeliveryUnknown:         projections.On(deliveryOutcome(domain.DeliveryStatusUnknown)),
		domain.DeliveryReceipt:         projections.On(deliveryReceipt),
		domain.WebhookReceived:         projections.On(webhookReceived),
		domain.WebhookRelayAttempted:   projections.On(webhookAttempted),
		domain.WebhookRelayFailed:      projections.On(webhookFailed),
	}),
}

func connectionSet(e eventstore.Event, p domain.ConnectionV1) ([]projections.Statement, error) {
	settings, err := json.Marshal(p.Settings)
	if err != nil {
		return nil, err
	}
	return []projections.Statement{projections.Exec(`INSERT INTO {{gateway_connections}} (connection_id, organization_id, provider, kind,
		name, status, status_reason, app_id, webhook_url, token_expires_at, byok, settings, credential, created_at, updated_at, chosen_at)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,'{}',$13,$14,$15) ON CONFLICT (connection_id) DO UPDATE SET name = EXCLUDED.name,
		status = EXCLUDED.status, status_reason = EXCLUDED.status_reason, app_id = EXCLUDED.app_id, webhook_url = EXCLUDED.webhook_url,
		token_expires_at = EXCLUDED.token_expires_at, settings = EXCLUDED.settings, updated_at = EXCLUDED.updated_at,
		chosen_at = EXCLUDED.chosen_at`,
		p.ConnectionID, e.OrganizationID, p.Provider, p.Kind, p.Name, p.Status, p.StatusReason, p.AppID, p.WebhookURL, p.TokenExpiresAt,
		p.BYOK, json.RawMessage(settings), p.CreatedAt, p.UpdatedAt, p.Chosen())}, nil
}

// connectionChosen moves a connection's choice (which one is in use is the
// query's: the active one chosen last).
func connectionChosen(e eventstore.Event, p domain.ConnectionChosenV1) ([]projections.Statement, error) {
	return []projections.Statement{projections.Exec(`UPDATE {{gateway_connections}} SET chosen_at = $3 WHERE organization_id = $1
		AND connection_id = $2`, e.OrganizationID, p.ConnectionID, p.At)}, nil
}

func connectionStatus(e eventstore.Event, p domain.ConnectionDisconnectedV1) ([]projections.Statement, error) {
	credential := `credential`
	if p.Status == domain.StatusDeleted {
		credential = `jsonb_set(credential, '{state}', '"destroyed"')`
	}
	return []projections.Statement{projections.Exec(`UPDATE {{gateway_connections}} SET status = $3, status_reason = $4, updated_at = $5,
		credential = `+credential+` WHERE organization_id = $1 AND connection_id = $2`,
		e.OrganizationID, p.ConnectionID, p.Status, p.Reason, p.At)}, nil
}

// credentialRef is the reference a connection's read row keeps.
type credentialRef struct {
	CredentialID string   `json:"credential_id"`
	KeyID        string   `json:"key_id"`
	Version      int64    `json:"version"`
	Members      []string `json:"members"`
	State        string   `json:"state"`
	UpdatedAt    any      `json:"updated_at"`
}

func credentialSet(e eventstore.Event, p domain.CredentialStoredV1) ([]projections.Statement, error) {
	raw, err := json.Marshal(credentialRef{CredentialID: p.CredentialID, KeyID: p.KeyID, Version: p.Version, Members: p.Members,
		State: domain.CredentialActive, UpdatedAt: p.At})
	if err != nil {
		return nil, err
	}
	return []projections.Statement{projections.Exec(`UPDATE {{gateway_connections}} SET credential = $3 WHERE organization_id = $1
		AND connection_id = $2`, e.OrganizationID, p.ConnectionID, json.RawMessage(raw))}, nil
}

func credentialRotated(e eventstore.Event, p domain.CredentialRotatedV1) ([]projections.Statement, error) {
	return []projections.Statement{projections.Exec(`UPDATE {{gateway_connections}} SET credential = credential ||
		jsonb_build_object('key_id', $3::text, 'version', $4::bigint, 'state', 'active', 'updated_at', $5::timestamptz)
		WHERE organization_id = $1 AND connection_id = $2`, e.OrganizationID, p.ConnectionID, p.KeyID, p.Version, p.At)}, nil
}

func credentialUnreadable(e eventstore.Event, p domain.CredentialUndecryptableV1) ([]projections.Statement, error) {
	return []projections.Statement{projections.Exec(`UPDATE {{gateway_connections}} SET credential = jsonb_set(credential, '{state}',
		'"undecryptable"') WHERE organization_id = $1 AND connection_id = $2 AND (credential->>'version')::bigint = $3`,
		e.OrganizationID, p.ConnectionID, p.Version)}, nil
}

func profileSet(e eventstore.Event, p domain.EmailProfile) ([]projections.Statement, error) {
	raw, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	out := []projections.Statement{}
	if p.IsDefault { // one default per organization: the new one takes it
		out = append(out, projections.Exec(`UPDATE {{gateway_email_profiles}} SET is_default = false,
			profile = jsonb_set(profile, '{is_default}', 'false') WHERE organization_id = $1 AND profile_id <> $2 AND is_default`,
			e.OrganizationID, p.ProfileID))
	}
	return append(out, projections.Exec(`INSERT INTO {{gateway_email_profiles}} (profile_id, organization_id, profile, is_default, created_at)
		VALUES ($1,$2,$3,$4,$5) ON CONFLICT (profile_id) DO UPDATE SET profile = EXCLUDED.profile, is_default = EXCLUDED.is_default`,
		p.ProfileID, e.OrganizationID, json.RawMessage(raw), p.IsDefault, p.CreatedAt)), nil
}

func profileDeleted(e eventstore.Event, p domain.EmailProfileDeletedV1) ([]projections.Statement, error) {
	return []projections.Statement{projections.Exec(`DELETE FROM {{gateway_email_profiles}} WHERE organization_id = $1 AND profile_id = $2`,
		e.OrganizationID, p.ProfileID)}, nil
}

func deliveryRequested(e eventstore.Event, p domain.DeliveryRequestedV1) ([]projections.Statement, error) {
	d := domain.DeliveryState{DeliveryID: p.DeliveryID, Channel: p.Channel, Status: domain.DeliveryStatusRequested, Provider: p.Provider,
		ConnectionID: p.ConnectionID, AppID: p.AppID, Recipients: p.Recipients, Sandbox: p.Sandbox, Round: p.Round, UpdatedAt: p.At}
	raw, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	return []projections.Statement{projections.Exec(`INSERT INTO {{gateway_deliveries}} (delivery_id, organization_id, delivery, created_at)
		VALUES ($1,$2,$3,$4) ON CONFLICT (delivery_id) DO UPDATE SET delivery = EXCLUDED.delivery`,
		p.DeliveryID, e.OrganizationID, json.RawMessage(raw), p.At)}, nil
}

func deliveryOutcome(status string) func(eventstore.Event, domain.DeliveryOutcomeV1) ([]projections.Statement, error) {
	return func(e eventstore.Event, p domain.DeliveryOutcomeV1) ([]projections.Statement, error) {
		raw, err := json.Marshal(map[string]any{"status": status, "message_id": p.MessageID, "provider_request_id": p.ProviderRequestID,
			"request_id": p.RequestID, "attempts": p.Attempts, "outcome": p.Outcome, "error": p.Error, "updated_at": p.At})
		if err != nil {
			return nil, err
		}
		return []projections.Statement{projections.Exec(`UPDATE {{gateway_deliveries}} SET delivery = delivery || $3::jsonb
			WHERE organization_id = $1 AND delivery_id = $2`, e.OrganizationID, p.DeliveryID, json.RawMessage(raw))}, nil
	}
}

// deliveryReceipt: delivered moves a sent delivery on; a bounce or a
// failure marks it bounced whatever came before.
func deliveryReceipt(e eventstore.Event, p domain.DeliveryReceiptV1) ([]projections.Statement, error) {
	status := domain.DeliveryStatusBounced
	if p.Kind == domain.ReceiptDelivered {
		status = domain.DeliveryStatusDelivered
	}
	return []projections.Statement{projections.Exec(`UPDATE {{gateway_deliveries}} SET delivery = delivery ||
		jsonb_build_object('status', $3::text, 'updated_at', $4::timestamptz)
		WHERE organization_id = $1 AND delivery_id = $2 AND ($3 = 'bounced' OR delivery->>'status' = 'sent')`,
		e.OrganizationID, p.DeliveryID, status, p.OccurredAt)}, nil
}

func webhookReceived(e eventstore.Event, p domain.WebhookReceivedV1) ([]projections.Statement, error) {
	relay := domain.RelayNone
	if p.Relay {
		relay = domain.RelayPending
	}
	return []projections.Statement{projections.Exec(`INSERT INTO {{gateway_webhooks}} (webhook_id, organization_id, connection_id, provider,
		event_type, provider_event_id, size, relay_status, attempts, last_status, last_error, received_at, updated_at)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,0,0,'',$9,$9) ON CONFLICT (webhook_id) DO NOTHING`,
		p.WebhookID, e.OrganizationID, p.ConnectionID, p.Provider, p.EventType, p.ProviderEventID, p.Size, relay, p.ReceivedAt)}, nil
}

func webhookAttempted(e eventstore.Event, p domain.WebhookRelayAttemptedV1) ([]projections.Statement, error) {
	return []projections.Statement{projections.Exec(`UPDATE {{gateway_webhooks}} SET attempts = $3, last_status = $4, last_error = $5,
		relay_status = CASE WHEN $6 THEN 'relayed' ELSE relay_status END, updated_at = $7 WHERE organization_id = $1 AND webhook_id = $2`,
		e.OrganizationID, p.WebhookID, p.Attempt, p.Status, p.Error, p.OK, p.At)}, nil
}

func webhookFailed(e eventstore.Event, p domain.WebhookRelayFailedV1) ([]projections.Statement, error) {
	return []projections.Statement{projections.Exec(`UPDATE {{gateway_webhooks}} SET relay_status = 'failed', updated_at = $3
		WHERE organization_id = $1 AND webhook_id = $2`, e.OrganizationID, p.WebhookID, p.At)}, nil
}
