package identity

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/domain/text"
)

// The service catalog is one stream of the platform tenant: every command
// that needs it (key options, permission evaluation) loads it whole from the
// write side, so an authorization never depends on projection lag.
const (
	StreamCatalog  = "identity.catalog"
	CatalogStream  = "catalog"
	PlatformTenant = principal.PlatformTenant

	CatalogEntrySeeded     = "identity.catalog.entry_seeded"
	DeveloperAppRegistered = "identity.catalog.developer_app_registered"

	// DeveloperAppPrefix starts developer-portal application ids, a different
	// identifier space from identity app ids.
	DeveloperAppPrefix = "dapp_"
	// CanonicalResourceType is the resource type of every first-party app,
	// whatever the product calls it.
	CanonicalResourceType = "workspace"
)

// Surface kinds of catalog entries.
const (
	SurfaceApp          = "app"
	SurfacePlatform     = "platform"
	SurfaceConsole      = "console"
	SurfaceDeveloperApp = "developer_app"
)

var surfaceKinds = []string{SurfaceApp, SurfacePlatform, SurfaceConsole, SurfaceDeveloperApp}

// ResourceType is a bindable resource kind as the product names it.
type ResourceType struct {
	Type      string `json:"type"`
	Canonical string `json:"canonical"`
}

// CatalogEntry is one service the platform knows.
type CatalogEntry struct {
	AppID         string   `json:"app_id"`
	Name          string   `json:"name"`
	SurfaceKind   string   `json:"surface_kind"`
	SurfaceGroup  string   `json:"surface_group"`
	Launchable    bool     `json:"launchable"`
	FirstParty    bool     `json:"first_party"`
	DefaultAccess bool     `json:"default_access"` // a default platform service of every organization
	Scopes        []string `json:"scopes"`
	// PlatformScopes are held only through the platform bypass: never by a
	// role bundle, an override or a key (replays, privacy maintenance).
	PlatformScopes      []string       `json:"platform_scopes,omitempty"`
	ResourceTypes       []ResourceType `json:"resource_types"`
	EntrypointURL       string         `json:"entrypoint_url,omitempty"`
	DeveloperAppID      string         `json:"developer_app_id,omitempty"`
	OwnerOrganizationID string         `json:"owner_organization_id,omitempty"`
	UpdatedAt           time.Time      `json:"updated_at"`
}

// CatalogEntryV1 is the payload of both catalog events.
type CatalogEntryV1 struct {
	CatalogEntry
}

// ws is the resource types of a first-party app: none is nil, as the
// entries written before the modules had it (an empty list would differ
// from them and be seeded again).
func ws(types ...string) []ResourceType {
	if len(types) == 0 {
		return nil
	}
	out := make([]ResourceType, len(types))
	for i, t := range types {
		out[i] = ResourceType{Type: t, Canonical: CanonicalResourceType}
	}
	return out
}

// DefaultCatalog is the identity service's own entry and the first-party
// services the seeds name that no module declares yet (their scopes are the
// seeds'). The catalog-seeding command writes it with the entries the
// platform's modules declare (FirstPartyEntry), which replace an entry of the
// same app id. Product names of a workspace collapse to `workspace`.
func DefaultCatalog(baseURL string) []CatalogEntry {
	base := strings.TrimRight(baseURL, "/")
	return []CatalogEntry{
		{AppID: "app_platform_auth", Name: "Identity", SurfaceKind: SurfacePlatform, SurfaceGroup: "platform", FirstParty: true, DefaultAccess: true,
			Scopes: []string{"api_keys:read", "api_keys:write", "permissions:read", "permissions:manage", "service_access:read",
				"service_access:manage", "catalog:read", "catalog:manage", "preferences:read", "preferences:write", "users:read",
				"users:manage", "organizations:read", "organizations:manage", "organizations:delete", "organizations:restore",
				"sessions:manage", "security:manage"},
			PlatformScopes: []string{"privacy:maintain", "service_tokens:issue"},
			EntrypointURL:  base + "/identity"},
		{AppID: "dashboard", Name: "Dashboard", SurfaceKind: SurfacePlatform, SurfaceGroup: "platform", Launchable: true, FirstParty: true,
			DefaultAccess: true, Scopes: []string{"dashboard:read", "widgets:read"}, ResourceTypes: ws("workspace"),
			EntrypointURL: base + "/dashboard"},
		{AppID: "design", Name: "Design", SurfaceKind: SurfaceApp, SurfaceGroup: "create", Launchable: true, FirstParty: true,
			Scopes: []string{"workspace:read", "brands:read"}, ResourceTypes: ws("workspace", "design_workspace", "brand_kit_space"),
			EntrypointURL: base + "/design"},
		{AppID: "studio", Name: "Studio", SurfaceKind: SurfaceApp, SurfaceGroup: "create", Launchable: true, FirstParty: true,
			Scopes: []string{"studio:read", "studio:write"}, ResourceTypes: ws("studio_workspace"), EntrypointURL: base + "/studio"},
		{AppID: "publishing", Name: "Publishing", SurfaceKind: SurfaceApp, SurfaceGroup: "publish", Launchable: true, FirstParty: true,
			Scopes: []string{"posts:read", "posts:write"}, ResourceTypes: ws("brand", "workspace"), EntrypointURL: base + "/publishing"},
		{AppID: "contacts", Name: "Contacts", SurfaceKind: SurfaceApp, SurfaceGroup: "engage", Launchable: true, FirstParty: true,
			Scopes: []string{"contacts:read", "contacts:write"}, ResourceTypes: ws("audience"), EntrypointURL: base + "/contacts"},
		{AppID: "gateway", Name: "Usage gateway", SurfaceKind: SurfacePlatform, SurfaceGroup: "platform", Launchable: true, FirstParty: true,
			Scopes: []string{"dashboard:read", "organizations:read", "audit:read", "usage:read", "ai:invoke", "ai:translate", "email:write",
				"email:send", "message:send", "payments:invoke", "billing:read", "billing:write"},
			ResourceTypes: ws("workspace"), EntrypointURL: base + "/gateway"},
		{AppID: "agent", Name: "Agent", SurfaceKind: SurfaceApp, SurfaceGroup: "assist", Launchable: true, FirstParty: true,
			Scopes: []string{"agent:read", "agent:invoke"}, ResourceTypes: ws("workspace"), EntrypointURL: base + "/agent"},
	}
}

// FirstPartyEntry is a module's catalog entry (internal/module.App) as the
// catalog stores it; its entrypoint is <base>/<app id>.
func FirstPartyEntry(baseURL, appID, name, surfaceKind, surfaceGroup string, launchable, defaultAccess bool,
	scopes, platformScopes, resourceTypes []string) CatalogEntry {
	return CatalogEntry{AppID: appID, Name: name, SurfaceKind: surfaceKind, SurfaceGroup: surfaceGroup, Launchable: launchable,
		FirstParty: true, DefaultAccess: defaultAccess, Scopes: scopes, PlatformScopes: platformScopes,
		ResourceTypes: ws(resourceTypes...), EntrypointURL: strings.TrimRight(baseURL, "/") + "/" + appID}
}

// WithDeclared is the catalog to seed: defaults, with each declared entry
// replacing the default of its app id (or added), in a stable order.
func WithDeclared(defaults, declared []CatalogEntry) []CatalogEntry {
	out := make([]CatalogEntry, 0, len(defaults)+len(declared))
	for _, d := range defaults {
		if !slices.ContainsFunc(declared, func(e CatalogEntry) bool { return e.AppID == d.AppID }) {
			out = append(out, d)
		}
	}
	return append(out, declared...)
}

// Catalog is the write model of the catalog stream.
type Catalog struct {
	entries map[string]CatalogEntry
	devApps map[string]string // dapp id -> app id
}

func LoadCatalog(history []event.Recorded) (*Catalog, error) {
	return catalogFold.Load(&Catalog{entries: map[string]CatalogEntry{}, devApps: map[string]string{}}, history)
}

var catalogFold = event.Fold[*Catalog]{
	CatalogEntrySeeded:     event.Apply((*Catalog).entry),
	DeveloperAppRegistered: event.Apply((*Catalog).entry),
}

func (c *Catalog) entry(p CatalogEntryV1) {
	c.entries[p.AppID] = p.CatalogEntry
	if p.DeveloperAppID != "" {
		c.devApps[p.DeveloperAppID] = p.AppID
	}
}

// Entries lists the catalog sorted by app id.
func (c *Catalog) Entries() []CatalogEntry {
	out := make([]CatalogEntry, 0, len(c.entries))
	for _, e := range c.entries {
		out = append(out, e)
	}
	return sortedCatalog(out)
}

// SquattedIDs are the ids among entries a developer application holds.
func (c *Catalog) SquattedIDs(entries []CatalogEntry) []string {
	var out []string
	for _, e := range entries {
		if old, ok := c.entries[e.AppID]; ok && old.DeveloperAppID != "" {
			out = append(out, e.AppID)
		}
	}
	return out
}

// Entry finds an application by app id. A developer-portal id is refused by
// name: it is another identifier space, never looked up as an app id.
func (c *Catalog) Entry(pointer, appID string) (CatalogEntry, error) {
	if IsDeveloperAppID(appID) {
		return CatalogEntry{}, errs.InvalidField(pointer, "a developer-portal id (dapp_...) is not an app id; use the application's app_id")
	}
	e, ok := c.entries[appID]
	if !ok {
		return CatalogEntry{}, errs.NotFound("application " + appID)
	}
	return e, nil
}

// DefaultServices are the applications every organization may use.
func (c *Catalog) DefaultServices() []string {
	var out []string
	for _, e := range c.Entries() {
		if e.DefaultAccess {
			out = append(out, e.AppID)
		}
	}
	return out
}

func validateEntry(e CatalogEntry, developer bool) []errs.Field {
	var f []errs.Field
	if !ValidAppID(e.AppID) {
		detail := "lowercase letters, digits and underscores, starting with a letter"
		if IsDeveloperAppID(e.AppID) {
			detail = "a developer-portal id (dapp_...) is not an app id"
		}
		f = append(f, errs.Field{Pointer: "/appId", Detail: detail})
	}
	if strings.TrimSpace(e.Name) == "" {
		f = append(f, errs.Field{Pointer: "/name", Detail: "must not be empty"})
	}
	if !slices.Contains(surfaceKinds, e.SurfaceKind) {
		f = append(f, errs.Field{Pointer: "/surfaceKind", Detail: "must be one of " + strings.Join(surfaceKinds, ", ")})
	}
	for i, s := range e.Scopes {
		if !ValidScope(s) {
			f = append(f, errs.Field{Pointer: "/scopes/" + strconv.Itoa(i), Detail: "scope " + s + " must look like resource:action"})
		}
	}
	for i, s := range e.PlatformScopes {
		if !ValidScope(s) || slices.Contains(e.Scopes, s) {
			f = append(f, errs.Field{Pointer: "/platformScopes/" + strconv.Itoa(i), Detail: "platform scope " + s + " must look like resource:action and not be a scope too"})
		}
	}
	for i, r := range e.ResourceTypes {
		if !principal.SegmentPattern.MatchString(r.Type) || r.Type == "*" || r.Canonical == "" {
			f = append(f, errs.Field{Pointer: "/resourceTypes/" + strconv.Itoa(i), Detail: "a resource type is lowercase letters, digits, _ and -"})
		}
	}
	if e.EntrypointURL != "" {
		// A developer's URL (and a first-party seed's) is shown in every
		// member's launcher and receives the SSO codes: no credentials.
		f = text.URL(f, "/entrypointUrl", e.EntrypointURL, text.URLRules{Detail: "must be an absolute http(s) URL without credentials"})
	}
	if developer && !strings.HasPrefix(e.DeveloperAppID, DeveloperAppPrefix) {
		f = append(f, errs.Field{Pointer: "/developerAppId", Detail: "must be a developer-portal id (dapp_...)"})
	}
	return f
}

// Seed writes the given entries; unchanged ones append nothing, so seeding
// at every start-up is idempotent.
func (c *Catalog) Seed(entries []CatalogEntry, now time.Time) ([]event.Change, error) {
	var changes []event.Change
	for _, e := range entries {
		if f := validateEntry(e, false); len(f) > 0 {
			return nil, errs.Invalid(f...)
		}
		if old, ok := c.entries[e.AppID]; ok {
			old.UpdatedAt = e.UpdatedAt
			if reflect.DeepEqual(old, e) {
				continue
			}
			if old.DeveloperAppID != "" {
				// A developer application registered this id first: the
				// first-party entry waits (SquattedIDs names it) rather than
				// the platform failing to start.
				continue
			}
		}
		e.UpdatedAt = now
		changes = append(changes, event.New(CatalogEntrySeeded, CatalogEntryV1{e}))
	}
	return changes, nil
}

// DeveloperApp is an approved developer application handed off by the
// developer portal.
type DeveloperApp struct {
	DeveloperAppID      string
	AppID               string
	Name                string
	OwnerOrganizationID string
	SurfaceGroup        string
	Scopes              []string
	ResourceTypes       []string
	EntrypointURL       string
}

// RegisterDeveloperApp adds the application as a catalog row. The handoff is
// idempotent: the same dapp id with the same app id registers once.
func (c *Catalog) RegisterDeveloperApp(d DeveloperApp, now time.Time) ([]event.Change, CatalogEntry, error) {
	types := make([]ResourceType, len(d.ResourceTypes))
	for i, t := range d.ResourceTypes {
		types[i] = ResourceType{Type: t, Canonical: t} // third-party types keep their own names
	}
	group := d.SurfaceGroup
	if group == "" {
		group = "developer"
	}
	e := CatalogEntry{AppID: d.AppID, Name: d.Name, SurfaceKind: SurfaceDeveloperApp, SurfaceGroup: group,
		Launchable: d.EntrypointURL != "", Scopes: d.Scopes, ResourceTypes: types, EntrypointURL: d.EntrypointURL,
		DeveloperAppID: d.DeveloperAppID, OwnerOrganizationID: d.OwnerOrganizationID}
	f := validateEntry(e, true)
	if d.OwnerOrganizationID == "" {
		f = append(f, errs.Field{Pointer: "/organizationId", Detail: "must name the developer workspace"})
	}
	if len(f) > 0 {
		return nil, CatalogEntry{}, errs.Invalid(f...)
	}
	if app, ok := c.devApps[d.DeveloperAppID]; ok {
		if app != d.AppID {
			return nil, CatalogEntry{}, errs.Conflict("developer_app_registered", "developer application "+d.DeveloperAppID+" is registered as "+app)
		}
		return nil, c.entries[app], nil
	}
	if _, ok := c.entries[d.AppID]; ok {
		return nil, CatalogEntry{}, errs.Conflict("app_id_taken", "app id "+d.AppID+" is taken")
	}
	e.UpdatedAt = now
	return []event.Change{event.New(DeveloperAppRegistered, CatalogEntryV1{e})}, e, nil
}
