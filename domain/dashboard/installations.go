package dashboard

import (
	"slices"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// Installations is the write model of one context's stream: the apps
// installed there, and since when.
type Installations struct {
	apps map[string]time.Time
}

// LoadInstallations folds a context's stream.
func LoadInstallations(history []event.Recorded) (*Installations, error) {
	return installationsFold.Load(&Installations{apps: map[string]time.Time{}}, history)
}

var installationsFold = event.Fold[*Installations]{
	AppInstalled:   event.Apply(func(i *Installations, p AppInstalledV1) { i.apps[p.AppID] = p.At }),
	AppUninstalled: event.Apply(func(i *Installations, p AppUninstalledV1) { delete(i.apps, p.AppID) }),
}

// Installation is the answer of install and uninstall: the app's state in
// the context afterwards.
type Installation struct {
	AppID       string     `json:"appId"`
	Context     string     `json:"context"`
	Installed   bool       `json:"installed"`
	InstalledAt *time.Time `json:"installedAt"`
}

// Installed reports whether appID is installed.
func (i *Installations) Installed(appID string) bool { _, ok := i.apps[appID]; return ok }

// Install puts a catalog app on the context's dashboard; installing one
// that is there changes nothing (the answer is the same). An app the
// catalog does not list is missing (404).
func (i *Installations) Install(c Context, appID string, catalog []string, now time.Time) ([]event.Change, Installation, error) {
	if !slices.Contains(catalog, appID) {
		return nil, Installation{}, errs.NotFound("app " + appID)
	}
	if at, ok := i.apps[appID]; ok {
		return nil, Installation{AppID: appID, Context: c.Kind, Installed: true, InstalledAt: &at}, nil
	}
	return []event.Change{event.New(AppInstalled, AppInstalledV1{Context: c.Kind, UserID: c.UserID, AppID: appID, At: now})},
		Installation{AppID: appID, Context: c.Kind, Installed: true, InstalledAt: &now}, nil
}

// Uninstall takes an app off the context's dashboard (still available in
// the catalog); an app that is not installed changes nothing. An app
// neither in the catalog nor installed is missing (404); one installed but
// since gone from the catalog can still be taken off.
func (i *Installations) Uninstall(c Context, appID string, catalog []string, now time.Time) ([]event.Change, Installation, error) {
	if _, ok := i.apps[appID]; !ok {
		if !slices.Contains(catalog, appID) {
			return nil, Installation{}, errs.NotFound("app " + appID)
		}
		return nil, Installation{AppID: appID, Context: c.Kind}, nil
	}
	return []event.Change{event.New(AppUninstalled, AppUninstalledV1{Context: c.Kind, UserID: c.UserID, AppID: appID, At: now})},
		Installation{AppID: appID, Context: c.Kind}, nil
}
