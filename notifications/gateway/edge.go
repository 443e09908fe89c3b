package gateway

import (
	"fmt"
	"time"

	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/notifications"
)

// edgeMapping maps the edge's events to five of seed 001's contracts:
// credential.invalid, delivery.failed, provider.connection_expiring,
// provider.disconnected and webhook.failed. Keys are deterministic from the
// event, so the delivery log emits each once.
func edgeMapping(dashboard string) notifications.Mapping {
	return notifications.Mapping{
		domain.ConnectionDisconnected:  notifications.MapAs(disconnected(dashboard)),
		domain.ConnectionExpiring:      notifications.MapAs(expiring(dashboard)),
		domain.CredentialUndecryptable: notifications.MapAs(credentialInvalid(dashboard)),
		domain.DeliveryFailed:          notifications.MapAs(deliveryFailed(dashboard)),
		domain.DeliveryReceipt:         notifications.MapAs(deliveryBounced(dashboard)),
		domain.WebhookRelayFailed:      notifications.MapAs(webhookFailed(dashboard)),
	}
}

// common are the members every gateway contract requires.
func common(title, body, object string, at string, cta string) map[string]any {
	return map[string]any{"title": title, "body": body, "object_id": object, "occurred_at": at, "cta_url": cta}
}

func disconnected(dashboard string) func(eventstore.Event, domain.ConnectionDisconnectedV1) ([]notifications.Notification, error) {
	return func(e eventstore.Event, p domain.ConnectionDisconnectedV1) ([]notifications.Notification, error) {
		body := fmt.Sprintf("The %s connection %s is %s.", p.Provider, p.ConnectionID, p.Status)
		if p.Reason != "" {
			body += " " + p.Reason
		}
		n := common(p.Provider+" connection "+p.Status, body, p.ConnectionID, notifications.Timestamp(p.At),
			link(dashboard, "/connections/"+p.ConnectionID))
		n["provider"], n["connection_id"], n["status"] = p.Provider, p.ConnectionID, p.Status
		key := fmt.Sprintf("gateway:provider-disconnected:%s:v%d", p.ConnectionID, e.StreamVersion)
		return notifications.One("gateway.provider.disconnected", key, n), nil
	}
}

func expiring(dashboard string) func(eventstore.Event, domain.ConnectionExpiringV1) ([]notifications.Notification, error) {
	return func(_ eventstore.Event, p domain.ConnectionExpiringV1) ([]notifications.Notification, error) {
		n := common(p.Provider+" connection expiring", fmt.Sprintf("The token of the %s connection %s expires at %s: renew its credentials.",
			p.Provider, p.ConnectionID, notifications.Timestamp(p.ExpiresAt)), p.ConnectionID, notifications.Timestamp(p.At),
			link(dashboard, "/connections/"+p.ConnectionID))
		n["provider"], n["connection_id"], n["expires_at"] = p.Provider, p.ConnectionID, notifications.Timestamp(p.ExpiresAt)
		key := fmt.Sprintf("gateway:connection-expiring:%s:%d", p.ConnectionID, p.ExpiresAt.UnixMicro())
		return notifications.One("gateway.provider.connection_expiring", key, n), nil
	}
}

func credentialInvalid(dashboard string) func(eventstore.Event, domain.CredentialUndecryptableV1) ([]notifications.Notification, error) {
	return func(_ eventstore.Event, p domain.CredentialUndecryptableV1) ([]notifications.Notification, error) {
		n := common("Credential cannot be decrypted", fmt.Sprintf("The credential of the %s connection %s (key %s) cannot be decrypted with "+
			"the key ring: set new credentials.", p.Provider, p.ConnectionID, p.KeyID), p.CredentialID, notifications.Timestamp(p.At),
			link(dashboard, "/connections/"+p.ConnectionID))
		n["credential_table"], n["credential_identity"] = p.CredentialTable, p.CredentialIdentity
		key := fmt.Sprintf("gateway:credential-invalid:%s:v%d:%s", p.CredentialID, p.Version, p.KeyID)
		return notifications.One("gateway.credential.invalid", key, n), nil
	}
}

// deliveryFailed notifies a round that reached a failed terminal result
// after at least one provider attempt (a refusal before any attempt, a
// spend cap, or the caller leaving is not the provider's result).
func deliveryFailed(dashboard string) func(eventstore.Event, domain.DeliveryOutcomeV1) ([]notifications.Notification, error) {
	return func(e eventstore.Event, p domain.DeliveryOutcomeV1) ([]notifications.Notification, error) {
		if p.Attempts == 0 || p.Outcome == domain.OutcomeCallerCanceled || p.RequestID == "" {
			return nil, nil
		}
		return failedDelivery(dashboard, e, p.DeliveryID, p.Channel, p.Provider, p.AppID, p.RequestID, firstOf(p.Error, p.Outcome),
			fmt.Sprintf("gateway:delivery-failed:%s:v%d", p.DeliveryID, e.StreamVersion), p.At), nil
	}
}

// deliveryBounced notifies the first bounce or failure a provider reports
// of a sent message, once per delivery.
func deliveryBounced(dashboard string) func(eventstore.Event, domain.DeliveryReceiptV1) ([]notifications.Notification, error) {
	return func(e eventstore.Event, p domain.DeliveryReceiptV1) ([]notifications.Notification, error) {
		if p.Kind == domain.ReceiptDelivered || p.RequestID == "" {
			return nil, nil
		}
		why := p.Kind
		if p.Reason != "" {
			why += ": " + p.Reason
		}
		return failedDelivery(dashboard, e, p.DeliveryID, p.Channel, p.Provider, p.AppID, p.RequestID, why,
			"gateway:delivery-failed:"+p.DeliveryID+":receipt", p.OccurredAt), nil
	}
}

// failedDelivery is gateway.delivery.failed (error is a sensitive member).
func failedDelivery(dashboard string, _ eventstore.Event, id, channel, provider, appID, requestID, why, key string, at time.Time) []notifications.Notification {
	what := "Email"
	if channel == domain.ChannelMessage {
		what = "Instant message"
	}
	n := common(what+" not delivered", fmt.Sprintf("%s %s through %s failed.", what, id, provider), id, notifications.Timestamp(at),
		link(dashboard, "/deliveries/"+id))
	n["provider"], n["app_id"], n["request_id"], n["error"] = provider, firstOf(appID, "unknown"), requestID, why
	return notifications.One("gateway.delivery.failed", key, n)
}

func webhookFailed(dashboard string) func(eventstore.Event, domain.WebhookRelayFailedV1) ([]notifications.Notification, error) {
	return func(_ eventstore.Event, p domain.WebhookRelayFailedV1) ([]notifications.Notification, error) {
		n := common("Webhook not relayed", fmt.Sprintf("A %s webhook of the connection %s could not be relayed after %d attempts.",
			p.Provider, p.ConnectionID, p.Attempts), p.WebhookID, notifications.Timestamp(p.At), link(dashboard, "/webhooks"))
		n["provider"], n["request_id"], n["error"] = p.Provider, p.WebhookID, firstOf(p.Error, "relay failed")
		return notifications.One("gateway.webhook.failed", "gateway:webhook-failed:"+p.WebhookID, n), nil
	}
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
