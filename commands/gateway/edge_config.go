package gateway

import (
	"errors"
	"time"
)

// EdgeConfig bounds the gateway's edge: sends, relays, the expiry scan
// and the credential canary.
type EdgeConfig struct {
	// DeliveryAttempts is how many attempts one email or instant message
	// gets when the provider fails or rate-limits (GATEWAY_DELIVERY_ATTEMPTS,
	// default 3); DeliveryBackoff the first pause, doubling
	// (GATEWAY_DELIVERY_BACKOFF, 250ms). A provider's Retry-After longer
	// than MaxRetryAfter (GATEWAY_DELIVERY_MAX_RETRY_AFTER, 5s) ends the
	// round: a request does not wait that long.
	DeliveryAttempts int
	DeliveryBackoff  time.Duration
	MaxRetryAfter    time.Duration
	// RelayAttempts is how many POSTs an inbound webhook's relay to the
	// owning app gets (GATEWAY_RELAY_ATTEMPTS, default 6) before
	// gateway.webhook.failed; RelayBackoff the first pause, doubling up to
	// RelayMaxBackoff (GATEWAY_RELAY_BACKOFF 2s, GATEWAY_RELAY_MAX_BACKOFF 10m).
	RelayAttempts   int
	RelayBackoff    time.Duration
	RelayMaxBackoff time.Duration
	// RelaySigningKey is the root of the relays' signing secrets
	// (GATEWAY_RELAY_SIGNING_KEY, base64 of at least 32 bytes): each
	// connection's secret is derived from it (RelaySecret), so an app can
	// tell a relay from a forged POST. Without it relays go unsigned.
	RelaySigningKey []byte
	// ExpiryScanInterval is how often the scan for tokens entering the
	// seven-day window runs (GATEWAY_EXPIRY_SCAN_INTERVAL, default 24h).
	ExpiryScanInterval time.Duration
	// CanaryInterval is how often the credential canary runs, besides at
	// start (GATEWAY_CANARY_INTERVAL, default 1h; negative: only at start).
	CanaryInterval time.Duration
	// WebhookTolerance bounds a signed webhook's timestamp either way
	// (GATEWAY_WEBHOOK_TOLERANCE, default 5m): older is a replay.
	WebhookTolerance time.Duration
	// BaseURLs are the providers' API base URLs for organizations' own
	// connections (GATEWAY_<PROVIDER>_BASE_URL; default each provider's
	// public API). Only the operator sets them: a tenant never names the
	// host its credential is sent to.
	BaseURLs map[string]string
}

// WithDefaults fills in zero values.
func (c EdgeConfig) WithDefaults() EdgeConfig {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	if c.DeliveryAttempts == 0 {
		c.DeliveryAttempts = 3
	}
	if c.RelayAttempts == 0 {
		c.RelayAttempts = 6
	}
	def(&c.DeliveryBackoff, 250*time.Millisecond)
	def(&c.MaxRetryAfter, 5*time.Second)
	def(&c.RelayBackoff, 2*time.Second)
	def(&c.RelayMaxBackoff, 10*time.Minute)
	def(&c.ExpiryScanInterval, 24*time.Hour)
	def(&c.CanaryInterval, time.Hour)
	def(&c.WebhookTolerance, 5*time.Minute)
	return c
}

// Validate names every problem at once.
func (c EdgeConfig) Validate() error {
	var problems []error
	if c.DeliveryAttempts < 1 || c.DeliveryAttempts > 10 || c.RelayAttempts < 1 || c.RelayAttempts > 20 {
		problems = append(problems, errors.New("gateway: delivery attempts must be 1..10 and relay attempts 1..20"))
	}
	if c.DeliveryBackoff <= 0 || c.MaxRetryAfter <= 0 || c.RelayBackoff <= 0 || c.RelayMaxBackoff < c.RelayBackoff {
		problems = append(problems, errors.New("gateway: delivery and relay backoffs must be positive, the relay's maximum at least its first"))
	}
	if n := len(c.RelaySigningKey); n > 0 && n < MinRelaySigningKey {
		problems = append(problems, errors.New("gateway: the relay signing key must be at least 32 bytes"))
	}
	if c.ExpiryScanInterval < time.Second || c.WebhookTolerance <= 0 {
		problems = append(problems, errors.New("gateway: the expiry scan interval must be at least 1s and the webhook tolerance positive"))
	}
	return errors.Join(problems...)
}

// relayBackoff is the pause before relay attempt n+1.
func (c EdgeConfig) relayBackoff(n int) time.Duration {
	d := c.RelayBackoff
	for i := 1; i < n && d < c.RelayMaxBackoff; i++ {
		d *= 2
	}
	return min(d, c.RelayMaxBackoff)
}
