package keyring_test

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/platform/backend/internal/keyring"
)

func configFrom(t *testing.T, env map[string]string) (keyring.Config, error) {
	t.Helper()
	var c keyring.Config
	err := c.FromEnv(func(k string) string { return env[k] })
	if err != nil {
		return c, err
	}
	c = c.WithDefaults()
	return c, c.Validate()
}

// TestConfigReadsThePlatformAndTheGatewaysNames: PLATFORM_KEYRING is the
// ring; GATEWAY_KEYRING, its former name, still works alone (deployments
// keep running while they move), both set alike are fine, both set apart
// are an error naming neither key. The sandbox key comes with
// PLATFORM_KEYRING_SANDBOX or, unset, GATEWAY_SANDBOX (as before), never
// with a configured ring, never in production.
func TestConfigReadsThePlatformAndTheGatewaysNames(t *testing.T) {
	k1, k2 := "k1:"+b64(1), "k2:"+b64(2)
	for name, c := range map[string]struct {
		env     map[string]string
		active  string // "" with fail: an error is wanted
		fail    string
		sandbox bool
	}{
		"platform name":        {env: map[string]string{"PLATFORM_KEYRING": k1}, active: "k1"},
		"former name":          {env: map[string]string{"GATEWAY_KEYRING": k1 + "," + k2, "GATEWAY_KEYRING_ACTIVE": "k2"}, active: "k2"},
		"both alike":           {env: map[string]string{"PLATFORM_KEYRING": k1, "GATEWAY_KEYRING": k1}, active: "k1"},
		"both apart":           {env: map[string]string{"PLATFORM_KEYRING": k1, "GATEWAY_KEYRING": k2}, fail: "differ"},
		"active apart":         {env: map[string]string{"PLATFORM_KEYRING": k1 + "," + k2, "PLATFORM_KEYRING_ACTIVE": "k1", "GATEWAY_KEYRING_ACTIVE": "k2"}, fail: "differ"},
		"malformed":            {env: map[string]string{"PLATFORM_KEYRING": "k1:short"}, fail: "PLATFORM_KEYRING"},
		"none":                 {env: map[string]string{}, active: ""},
		"platform sandbox":     {env: map[string]string{"PLATFORM_KEYRING_SANDBOX": "true"}, active: keyring.SandboxKeyID, sandbox: true},
		"gateway sandbox":      {env: map[string]string{"GATEWAY_SANDBOX": "true"}, active: keyring.SandboxKeyID, sandbox: true},
		"sandbox switched off": {env: map[string]string{"PLATFORM_KEYRING_SANDBOX": "false", "GATEWAY_SANDBOX": "true"}, active: ""},
		"sandbox with a ring":  {env: map[string]string{"PLATFORM_KEYRING_SANDBOX": "true", "PLATFORM_KEYRING": k1}, active: "k1"},
		"sandbox in production": {env: map[string]string{"PLATFORM_KEYRING_SANDBOX": "true", "PLATFORM_ENV": "production"},
			fail: "production"},
		"sandbox key outside a sandbox": {env: map[string]string{"PLATFORM_KEYRING": keyring.SandboxKeyID + ":" + b64(3)}, fail: "sandbox key"},
		"bad switch":                    {env: map[string]string{"PLATFORM_KEYRING_SANDBOX": "yes please"}, fail: "PLATFORM_KEYRING_SANDBOX"},
	} {
		got, err := configFrom(t, c.env)
		if c.fail != "" {
			if err == nil || !strings.Contains(err.Error(), c.fail) {
				t.Errorf("%s: %v, want an error naming %q", name, err, c.fail)
			}
			if err != nil && (strings.Contains(err.Error(), b64(1)) || strings.Contains(err.Error(), b64(2))) {
				t.Errorf("%s: the error shows a key: %v", name, err)
			}
			continue
		}
		if err != nil || got.Ring.Active() != c.active || got.SandboxKey() != c.sandbox {
			t.Errorf("%s: active %q sandbox key %v (%v), want %q %v", name, got.Ring.Active(), got.SandboxKey(), err, c.active, c.sandbox)
		}
	}
}

// TestSandboxRingIsTheGatewaysFormerKey: what make run sealed with the
// gateway's sandbox key before the move opens with the platform's (the
// value below was sealed by the gateway's ring: AES-256-GCM, a zero nonce).
func TestSandboxRingIsTheGatewaysFormerKey(t *testing.T) {
	sealed, _ := hex.DecodeString("ca9a9623dc1c00febc3d53f1e7d89a730a027faf4c5a3a")
	v := keyring.Sealed{KeyID: "sandbox-not-secret", Nonce: make([]byte, 12), Ciphertext: sealed}
	if plain, err := keyring.SandboxRing().Open(v, []byte("ad")); err != nil || string(plain) != "sk_test" {
		t.Fatalf("%q %v", plain, err)
	}
}
