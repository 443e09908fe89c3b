package app

import (
	"os"
	"strings"
	"time"

	"github.com/platform/backend/providers/email"
)

// AccessConfig: the access half of the identity service (magic links, the
// catalog's app entrypoints, the email provider).
type AccessConfig struct {
	// PublicURL is the identity service's browser-facing base URL; magic
	// links point at it (IDENTITY_PUBLIC_URL; default http://<identity addr>).
	PublicURL string
	// AppsBaseURL is where first-party app entrypoints live in the default
	// catalog (PLATFORM_APPS_BASE_URL; default http://127.0.0.1:3000).
	AppsBaseURL string
	// SMTP: when SMTP_ADDR is set, email goes through that server
	// (SMTP_FROM, SMTP_USERNAME, SMTP_PASSWORD); otherwise the sandbox
	// provider keeps messages in memory and logs that it did.
	SMTP email.SMTP
}

func accessFromEnv() AccessConfig {
	return AccessConfig{PublicURL: os.Getenv("IDENTITY_PUBLIC_URL"), AppsBaseURL: os.Getenv("PLATFORM_APPS_BASE_URL"),
		SMTP: email.SMTP{Addr: os.Getenv("SMTP_ADDR"), From: os.Getenv("SMTP_FROM"), Username: os.Getenv("SMTP_USERNAME"),
			Password: os.Getenv("SMTP_PASSWORD"), Timeout: 10 * time.Second}}
}

func (c AccessConfig) withDefaults(identityAddr string) AccessConfig {
	if c.PublicURL == "" {
		c.PublicURL = "http://" + identityAddr
	}
	c.PublicURL = strings.TrimRight(c.PublicURL, "/")
	if c.AppsBaseURL == "" {
		c.AppsBaseURL = "http://127.0.0.1:3000"
	}
	if c.SMTP.Addr != "" && c.SMTP.From == "" {
		c.SMTP.From = "noreply@platform.local"
	}
	return c
}
