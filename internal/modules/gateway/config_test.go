package gateway

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/platform/backend/internal/keyring"
)

// TestRelaySigningKeyFromEnv: the relay signing key is base64 of at least
// 32 bytes; outside the sandbox a key ring (the platform's, under its name
// or the gateway's former one) needs one (its connections' relays are
// signed); the sandbox has a fixed one; errors never quote it.
func TestRelaySigningKeyFromEnv(t *testing.T) {
	ring := "k1:" + base64.StdEncoding.EncodeToString(make([]byte, 32))
	key := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("r", 32)))
	cases := []struct {
		name    string
		env     map[string]string
		wantErr string
		signed  bool
	}{
		{"ring and key", map[string]string{"PLATFORM_KEYRING": ring, "GATEWAY_RELAY_SIGNING_KEY": key}, "", true},
		{"ring without key", map[string]string{"PLATFORM_KEYRING": ring}, "GATEWAY_RELAY_SIGNING_KEY", false},
		{"former ring without key", map[string]string{"GATEWAY_KEYRING": ring}, "GATEWAY_RELAY_SIGNING_KEY", false},
		{"the sandbox's ring without key", map[string]string{"PLATFORM_KEYRING_SANDBOX": "true"}, "", false},
		{"neither (no connections can be stored)", map[string]string{}, "", false},
		{"sandbox", map[string]string{"GATEWAY_SANDBOX": "true"}, "", true},
		{"not base64", map[string]string{"GATEWAY_RELAY_SIGNING_KEY": "sec ret!"}, "not base64", false},
		{"short", map[string]string{"GATEWAY_RELAY_SIGNING_KEY": base64.StdEncoding.EncodeToString(make([]byte, 16))}, "at least 32 bytes", false},
	}
	for _, c := range cases {
		var cfg Config
		var rc keyring.Config
		getenv := func(k string) string { return c.env[k] }
		err := errors.Join(cfg.FromEnv(getenv), rc.FromEnv(getenv))
		if err == nil {
			cfg.Defaults()
			rc = rc.WithDefaults()
			err = errors.Join(cfg.Validate(), rc.Validate(), cfg.Edge.checkRing(rc.Ring, cfg.Sandbox))
		}
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%s: %v, want an error naming %q", c.name, err, c.wantErr)
		case err != nil && strings.Contains(err.Error(), "sec ret!"):
			t.Errorf("%s: the error quotes the key: %v", c.name, err)
		case err == nil && (len(cfg.Edge.RelaySigningKey) > 0) != c.signed:
			t.Errorf("%s: signing key of %d bytes", c.name, len(cfg.Edge.RelaySigningKey))
		}
	}
}
