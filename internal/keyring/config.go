package keyring

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The key ring's variables. The platform's names came with the move out of
// the gateway; the gateway's old names are still read, so a deployment
// keeps working unchanged and moves at its own pace (docs/configuration.md, "Secrets at
// rest"): set PLATFORM_KEYRING to the value of GATEWAY_KEYRING (and
// PLATFORM_KEYRING_ACTIVE to GATEWAY_KEYRING_ACTIVE), then drop the old
// names. Both set to different values is an error, never a silent choice.
const (
	EnvRing          = "PLATFORM_KEYRING"
	EnvActive        = "PLATFORM_KEYRING_ACTIVE"
	EnvSandbox       = "PLATFORM_KEYRING_SANDBOX"
	LegacyEnvRing    = "GATEWAY_KEYRING"
	LegacyEnvActive  = "GATEWAY_KEYRING_ACTIVE"
	LegacyEnvSandbox = "GATEWAY_SANDBOX" // the gateway's sandbox sealed with the sandbox key
)

// SandboxKeyID names the sandbox's fixed key (the gateway's since its
// first release: what make run sealed before still opens).
const SandboxKeyID = "sandbox-not-secret"

// Config is the platform's key ring configuration (app.Config.KeyRing).
type Config struct {
	// Ring seals and opens every context's secrets: PLATFORM_KEYRING
	// ("<key id>:<base64 of 32 bytes>", comma-separated) and
	// PLATFORM_KEYRING_ACTIVE (the active key's id; optional with one key).
	Ring Ring
	// Sandbox: without a ring, seal with a fixed key that is no secret, so
	// make run and the tests store credentials without setup
	// (PLATFORM_KEYRING_SANDBOX; unset: GATEWAY_SANDBOX decides, as before
	// the move). Refused with PLATFORM_ENV=production.
	Sandbox bool
	// Production: PLATFORM_ENV=production.
	Production bool
	// Source is the variable the ring was read from (logs).
	Source string
}

// FromEnv reads the ring, the sandbox switch and the environment. A
// malformed ring fails here, naming the problem and never a key.
func (c *Config) FromEnv(getenv func(string) string) error {
	var problems []error
	ring, active := getenv(EnvRing), getenv(EnvActive)
	legacyRing, legacyActive := getenv(LegacyEnvRing), getenv(LegacyEnvActive)
	source := EnvRing
	switch {
	case ring == "" && active == "":
		ring, active, source = legacyRing, legacyActive, LegacyEnvRing
	case legacyRing != "" && legacyRing != ring || legacyActive != "" && legacyActive != active:
		problems = append(problems, fmt.Errorf("%s and %s (its former name) are both set and differ: keep %s only",
			EnvRing, LegacyEnvRing, EnvRing))
	}
	if ring != "" || active != "" {
		r, err := Parse(ring, active)
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: %w", source, err))
		}
		c.Ring, c.Source = r, source
	}
	sandbox := getenv(EnvSandbox)
	name := EnvSandbox
	if sandbox == "" {
		sandbox, name = getenv(LegacyEnvSandbox), LegacyEnvSandbox
	}
	if sandbox != "" {
		on, err := strconv.ParseBool(sandbox)
		if err != nil {
			problems = append(problems, fmt.Errorf("%s=%q: not a boolean", name, sandbox))
		}
		c.Sandbox = on
	}
	if strings.EqualFold(getenv("PLATFORM_ENV"), "production") {
		c.Production = true
	}
	return errors.Join(problems...)
}

// WithDefaults gives a sandbox without a ring the sandbox key.
func (c Config) WithDefaults() Config {
	if c.Ring.Active() == "" && c.Sandbox {
		c.Ring, c.Source = SandboxRing(), EnvSandbox
	}
	return c
}

// SandboxRing holds only the sandbox's fixed key: derived from a public
// phrase, so anything sealed with it is readable by anyone.
func SandboxRing() Ring {
	key := sha256.Sum256([]byte("platform gateway sandbox credential key: not a secret"))
	r, _ := FromKeys(SandboxKeyID, map[string][]byte{SandboxKeyID: key[:]}) // a fixed 32-byte key: cannot fail
	return r
}

// SandboxKey reports whether the ring holds the sandbox's key.
func (c Config) SandboxKey() bool { return c.Ring.Has(SandboxKeyID) }

// Validate: the sandbox key only in a sandbox, and never in production.
func (c Config) Validate() error {
	var problems []error
	if c.SandboxKey() && !c.Sandbox {
		problems = append(problems, fmt.Errorf("keyring: the sandbox key %q is for %s only", SandboxKeyID, EnvSandbox))
	}
	if c.SandboxKey() && c.Production {
		problems = append(problems, fmt.Errorf("keyring: the sandbox key is no secret: PLATFORM_ENV=production needs %s", EnvRing))
	}
	return errors.Join(problems...)
}
