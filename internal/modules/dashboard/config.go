package dashboard

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/platform/backend/domain/text"
	"github.com/platform/backend/internal/module"
	view "github.com/platform/backend/projections/dashboard"
)

// Config is the dashboard's section.
type Config struct {
	// Launcher bounds the fan-out: DASHBOARD_APP_BUDGET (1.5s per app),
	// DASHBOARD_DEADLINE (2s for the whole answer), DASHBOARD_CACHE_ENTRIES
	// (100000 payloads in memory).
	Launcher view.LauncherConfig
	// RemoteWidgets are apps whose widget is fetched over HTTP from their
	// service, with the caller's credential, instead of in-process:
	// DASHBOARD_REMOTE_WIDGETS=publishing=http://publishing:8084,... (a
	// dashboard process that does not share the apps' database).
	RemoteWidgets map[string]string
	// AppsBaseURL is where app entrypoints live (<base>/<app id>), the
	// identity catalog's (PLATFORM_APPS_BASE_URL, http://127.0.0.1:3000).
	AppsBaseURL string
}

var _ module.Section = (*Config)(nil)

func (c *Config) FromEnv(getenv func(string) string) error {
	env := module.NewEnv(getenv)
	env.Duration("DASHBOARD_APP_BUDGET", &c.Launcher.AppBudget)
	env.Duration("DASHBOARD_DEADLINE", &c.Launcher.Deadline)
	env.Int("DASHBOARD_CACHE_ENTRIES", &c.Launcher.MaxEntries)
	env.String("PLATFORM_APPS_BASE_URL", &c.AppsBaseURL)
	env.Parse("DASHBOARD_REMOTE_WIDGETS", func(v string) error {
		c.RemoteWidgets = map[string]string{}
		for _, pair := range module.SplitList(v) {
			app, u, ok := strings.Cut(pair, "=")
			if !ok {
				return fmt.Errorf("%q: want app=url", pair)
			}
			c.RemoteWidgets[strings.TrimSpace(app)] = strings.TrimSpace(u)
		}
		return nil
	})
	return env.Err()
}

func (c *Config) Defaults() {
	c.Launcher = c.Launcher.WithDefaults()
	if c.AppsBaseURL == "" {
		c.AppsBaseURL = "http://127.0.0.1:3000"
	}
}

func (c *Config) Validate() error {
	var problems []error
	if c.Launcher.AppBudget > c.Launcher.Deadline {
		problems = append(problems, fmt.Errorf("DASHBOARD_APP_BUDGET (%s) must not exceed DASHBOARD_DEADLINE (%s)", c.Launcher.AppBudget, c.Launcher.Deadline))
	}
	if c.Launcher.Deadline > 30*time.Second {
		problems = append(problems, errors.New("DASHBOARD_DEADLINE must be at most 30s"))
	}
	for app, raw := range c.RemoteWidgets {
		if _, problem := text.ParseURL(raw, text.URLRules{}); problem != "" {
			problems = append(problems, fmt.Errorf("DASHBOARD_REMOTE_WIDGETS: the URL of %s %s", app, problem))
		}
	}
	return errors.Join(problems...)
}
