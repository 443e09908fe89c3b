// Package dashboard is the dashboard service's domain (seed 002): which
// apps of the catalog are installed in each active context (an
// organization's, or a person's own inside it), and the widget cache's
// rules (45 s fresh, five minutes stale). Pure Go: time is passed in.
package dashboard

import "time"

// StreamInstallations is the stream type of one context's installed apps.
const StreamInstallations = "dashboard.installations"

// Event types: dotted, past tense, schema version 1.
const (
	AppInstalled   = "dashboard.installations.app_installed"
	AppUninstalled = "dashboard.installations.app_uninstalled"
)

// EventTypes are every event type of the dashboard context.
var EventTypes = []string{AppInstalled, AppUninstalled}

// AppInstalledV1 and AppUninstalledV1: an app entered or left a context's
// dashboard. UserID is the person of a personal context ("" for the
// organization's).
type AppInstalledV1 struct {
	Context string    `json:"context"`
	UserID  string    `json:"user_id,omitempty"`
	AppID   string    `json:"app_id"`
	At      time.Time `json:"at"`
}

type AppUninstalledV1 struct {
	Context string    `json:"context"`
	UserID  string    `json:"user_id,omitempty"`
	AppID   string    `json:"app_id"`
	At      time.Time `json:"at"`
}
