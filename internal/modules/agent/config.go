package agent

import (
	"errors"
	"fmt"
	"strings"

	agentcmd "github.com/platform/backend/commands/agent"
	"github.com/platform/backend/domain/text"
	"github.com/platform/backend/internal/module"
)

// Config is the agent's section.
type Config struct {
	// Commands: AGENT_APPROVAL_TTL, AGENT_STEP_TIMEOUT, AGENT_STEP_LEASE,
	// AGENT_STEP_ATTEMPTS, AGENT_STEP_BACKOFF, AGENT_MAX_TRIGGER_DEPTH,
	// AGENT_CHAT_SESSION_TTL.
	Commands agentcmd.Config
	// ServiceURLs are the base URLs flows call each service at
	// (AGENT_SERVICE_URLS "status=https://status.internal,contacts=...");
	// a service not named is called at this process's listener for it.
	ServiceURLs map[string]string
	// Verifier is the human-verification provider of the public chat
	// (AGENT_VERIFIER: turnstile, or sandbox outside production, the
	// default there). Turnstile: AGENT_TURNSTILE_SITE_KEY,
	// AGENT_TURNSTILE_SECRET_KEY, AGENT_TURNSTILE_URL (default
	// Cloudflare's), AGENT_TURNSTILE_HOSTNAMES (the sites' hostnames a
	// verdict must name).
	Verifier           string
	TurnstileURL       string
	TurnstileSiteKey   string
	TurnstileSecretKey string
	TurnstileHostnames []string
	// ChatPerMinute and ChatBurst bound the public chat per client address
	// (AGENT_CHAT_PER_MINUTE 30, AGENT_CHAT_BURST 10); ChatSessionPerMinute
	// and ChatSessionBurst per chat session (AGENT_CHAT_SESSION_PER_MINUTE
	// 12, AGENT_CHAT_SESSION_BURST 6).
	ChatPerMinute        float64
	ChatBurst            int
	ChatSessionPerMinute float64
	ChatSessionBurst     int
	// Production (PLATFORM_ENV=production) refuses the sandbox verifier.
	Production bool
}

var _ module.Section = (*Config)(nil)

func (c *Config) FromEnv(getenv func(string) string) error {
	env := module.NewEnv(getenv)
	env.Duration("AGENT_APPROVAL_TTL", &c.Commands.ApprovalTTL)
	env.Duration("AGENT_STEP_TIMEOUT", &c.Commands.StepTimeout)
	env.Duration("AGENT_STEP_LEASE", &c.Commands.StepLease)
	env.Int("AGENT_STEP_ATTEMPTS", &c.Commands.StepAttempts)
	env.Duration("AGENT_STEP_BACKOFF", &c.Commands.StepBackoff)
	env.Int("AGENT_MAX_TRIGGER_DEPTH", &c.Commands.MaxDepth)
	env.Duration("AGENT_CHAT_SESSION_TTL", &c.Commands.ChatSessionTTL)
	env.Parse("AGENT_SERVICE_URLS", func(v string) error {
		c.ServiceURLs = map[string]string{}
		for _, pair := range module.SplitList(v) {
			name, base, ok := strings.Cut(pair, "=")
			name, base = strings.TrimSpace(name), strings.TrimSpace(base)
			if !ok || name == "" {
				return errors.New("AGENT_SERVICE_URLS is service=http(s)://base,...")
			}
			c.ServiceURLs[name] = base
		}
		return nil
	})
	env.String("AGENT_VERIFIER", &c.Verifier)
	env.String("AGENT_TURNSTILE_URL", &c.TurnstileURL)
	env.String("AGENT_TURNSTILE_SITE_KEY", &c.TurnstileSiteKey)
	env.String("AGENT_TURNSTILE_SECRET_KEY", &c.TurnstileSecretKey)
	env.List("AGENT_TURNSTILE_HOSTNAMES", &c.TurnstileHostnames)
	env.Float("AGENT_CHAT_PER_MINUTE", &c.ChatPerMinute)
	env.Int("AGENT_CHAT_BURST", &c.ChatBurst)
	env.Float("AGENT_CHAT_SESSION_PER_MINUTE", &c.ChatSessionPerMinute)
	env.Int("AGENT_CHAT_SESSION_BURST", &c.ChatSessionBurst)
	env.Parse("PLATFORM_ENV", func(v string) error { c.Production = strings.EqualFold(v, "production"); return nil })
	return env.Err()
}

func (c *Config) Defaults() {
	c.Commands = c.Commands.WithDefaults()
	if c.Verifier == "" && !c.Production {
		c.Verifier = "sandbox"
	}
	if c.ChatPerMinute == 0 {
		c.ChatPerMinute = 30
	}
	if c.ChatBurst == 0 {
		c.ChatBurst = 10
	}
	if c.ChatSessionPerMinute == 0 {
		c.ChatSessionPerMinute = 12
	}
	if c.ChatSessionBurst == 0 {
		c.ChatSessionBurst = 6
	}
}

func (c *Config) Validate() error {
	problems := []error{c.Commands.Validate()}
	switch c.Verifier {
	case "sandbox":
		if c.Production {
			problems = append(problems, errors.New("AGENT_VERIFIER=sandbox proves nothing about a visitor: production needs turnstile"))
		}
	case "turnstile":
		if c.TurnstileSiteKey == "" || c.TurnstileSecretKey == "" {
			problems = append(problems, errors.New("AGENT_VERIFIER=turnstile needs AGENT_TURNSTILE_SITE_KEY and AGENT_TURNSTILE_SECRET_KEY"))
		}
	default:
		problems = append(problems, errors.New("AGENT_VERIFIER must be turnstile (or sandbox outside production)"))
	}
	if c.ChatPerMinute <= 0 || c.ChatBurst < 1 || c.ChatSessionPerMinute <= 0 || c.ChatSessionBurst < 1 {
		problems = append(problems, errors.New("the public chat's rates and bursts must be positive"))
	}
	// Siteverify is POSTed to <it>/turnstile/v0/siteverify.
	problems = append(problems, text.URLSetting("AGENT_TURNSTILE_URL", c.TurnstileURL, text.URLRules{NoQuery: true, NoFragment: true}))
	for name, base := range c.ServiceURLs {
		// Checked here, not where the list is read: a refused value is
		// quoted there, and this one may hold credentials.
		if _, problem := text.ParseURL(base, text.URLRules{}); problem != "" {
			problems = append(problems, fmt.Errorf("AGENT_SERVICE_URLS: the URL of %s %s", name, problem))
		}
	}
	return errors.Join(problems...)
}
