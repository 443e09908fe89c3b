package gateway

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/domain/text"
	"github.com/platform/backend/internal/keyring"
	"github.com/platform/backend/internal/module"
)

// EdgeSection is the configuration of the gateway's edge: the send, relay,
// scan and canary bounds, and the platform's own keys of the email,
// instant-message and payments providers. Credentials are sealed with the
// platform's key ring (module.Platform.KeyRing, PLATFORM_KEYRING; the
// gateway's GATEWAY_KEYRING is its former name, internal/keyring).
type EdgeSection struct {
	gatewaycmd.EdgeConfig
	// Platform are the platform's own keys per provider
	// (GATEWAY_<PROVIDER>_KEY, e.g. GATEWAY_EMAIL_PROVIDER_A_KEY; WhatsApp's
	// sending number GATEWAY_MESSAGE_PROVIDER_A_PHONE_NUMBER_ID): a provider
	// with a key is served by the platform's connection to organizations
	// without their own.
	Platform map[string]PlatformKey
	// sandboxRelayKey: no GATEWAY_RELAY_SIGNING_KEY and the sandbox on: a
	// fixed key, clearly named, so make run relays without setup.
	sandboxRelayKey bool
}

// PlatformKey is the platform's key of one provider.
type PlatformKey struct {
	Key           string
	PhoneNumberID string
}

// edgeProviders are the providers of the edge, in env-name order.
var edgeProviders = []string{domain.ProviderEmailA, domain.ProviderEmailB, domain.ProviderMessageA, domain.ProviderPaymentsA}

// envName is a provider's environment prefix: GATEWAY_EMAIL_PROVIDER_A.
func envName(provider string) string { return "GATEWAY_" + strings.ToUpper(provider) }

// fromEnv reads the section. A malformed relay key fails here, never
// quoting it (module.Env's errors quote the value, so it is read apart).
func (s *EdgeSection) fromEnv(env *module.Env, getenv func(string) string) error {
	var relayErr error
	if raw := getenv("GATEWAY_RELAY_SIGNING_KEY"); raw != "" {
		if s.RelaySigningKey, relayErr = base64.StdEncoding.DecodeString(raw); relayErr != nil {
			relayErr = errors.New("GATEWAY_RELAY_SIGNING_KEY: not base64 (standard alphabet, padded)")
		}
	}
	env.Int("GATEWAY_DELIVERY_ATTEMPTS", &s.DeliveryAttempts)
	env.Duration("GATEWAY_DELIVERY_BACKOFF", &s.DeliveryBackoff)
	env.Duration("GATEWAY_DELIVERY_MAX_RETRY_AFTER", &s.MaxRetryAfter)
	env.Int("GATEWAY_RELAY_ATTEMPTS", &s.RelayAttempts)
	env.Duration("GATEWAY_RELAY_BACKOFF", &s.RelayBackoff)
	env.Duration("GATEWAY_RELAY_MAX_BACKOFF", &s.RelayMaxBackoff)
	env.Duration("GATEWAY_EXPIRY_SCAN_INTERVAL", &s.ExpiryScanInterval)
	env.Duration("GATEWAY_CANARY_INTERVAL", &s.CanaryInterval)
	env.Duration("GATEWAY_WEBHOOK_TOLERANCE", &s.WebhookTolerance)
	for _, p := range edgeProviders {
		k := s.Platform[p]
		env.String(envName(p)+"_KEY", &k.Key)
		env.String(envName(p)+"_PHONE_NUMBER_ID", &k.PhoneNumberID)
		base := s.BaseURLs[p]
		env.String(envName(p)+"_BASE_URL", &base)
		if k != (PlatformKey{}) {
			if s.Platform == nil {
				s.Platform = map[string]PlatformKey{}
			}
			s.Platform[p] = k
		}
		if base != "" {
			if s.BaseURLs == nil {
				s.BaseURLs = map[string]string{}
			}
			s.BaseURLs[p] = base
		}
	}
	return relayErr
}

// defaults: the sandbox's relay signing key when the sandbox runs without one.
func (s *EdgeSection) defaults(sandbox bool) {
	s.EdgeConfig = s.EdgeConfig.WithDefaults()
	if len(s.RelaySigningKey) == 0 && sandbox {
		key := sha256.Sum256([]byte("platform gateway sandbox relay signing key: not a secret"))
		s.RelaySigningKey, s.sandboxRelayKey = key[:], true
	}
}

func (s *EdgeSection) validate() error {
	problems := []error{s.EdgeConfig.Validate()}
	for p, base := range s.BaseURLs {
		if _, problem := text.ParseURL(base, text.URLRules{}); problem != "" {
			problems = append(problems, fmt.Errorf("gateway: the base URL of %s %s", p, problem))
		}
	}
	return errors.Join(problems...)
}

// checkRing: with a key ring (the platform's), connections with a webhook
// URL can be made, and their relays must be signed, unless the gateway or
// the ring is a sandbox's. Checked when the module is built, since the ring
// is the platform's configuration, not the section's.
func (s *EdgeSection) checkRing(ring keyring.Ring, sandbox bool) error {
	if !sandbox && ring.Active() != "" && !ring.Has(keyring.SandboxKeyID) && len(s.RelaySigningKey) == 0 {
		return errors.New("gateway: GATEWAY_RELAY_SIGNING_KEY (base64 of at least 32 bytes) is required with a key ring: relays to apps are signed")
	}
	return nil
}
