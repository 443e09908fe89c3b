package identity

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
)

// Key changes after creation. resources_bound follows created in the same
// command when a key is created with bindings (the created payload predates
// bindings); updated replaces the key's scopes and bindings.
const (
	APIKeyResourcesBound = "identity.api_key.resources_bound"
	APIKeyUpdated        = "identity.api_key.updated"
)

// Access levels of a resource binding, lowest first.
var AccessLevels = []string{"read", "write", "admin"}

// ResourceBinding narrows a key to one resource (seed 001: rows carry
// accessLevel and allowedScopes; first-party resource type is `workspace`).
type ResourceBinding struct {
	ResourceType  string   `json:"resourceType"`
	ResourceID    string   `json:"resourceId"`
	AccessLevel   string   `json:"accessLevel"`
	AllowedScopes []string `json:"allowedScopes"`
}

type APIKeyUpdatedV1 struct {
	KeyID            string            `json:"key_id"`
	Name             string            `json:"name"`
	Scopes           []string          `json:"scopes"`
	ResourceBindings []ResourceBinding `json:"resource_bindings"`
	At               time.Time         `json:"at"`
}

func (k *APIKey) updated(p APIKeyUpdatedV1) {
	if p.Name != "" {
		k.created.Name = p.Name
	}
	k.created.Scopes = p.Scopes
	k.bindings = p.ResourceBindings
}

// Bindings are the key's current resource bindings.
func (k *APIKey) Bindings() []ResourceBinding {
	if k.bindings == nil {
		return []ResourceBinding{}
	}
	return k.bindings
}

// KeyUpdate is the input of a key update; nil members keep their value.
type KeyUpdate struct {
	Name     *string
	Scopes   []string
	Bindings []ResourceBinding
}

// Update replaces the key's scopes and bindings. A revoked key is final.
func (k *APIKey) Update(u KeyUpdate, now time.Time) ([]event.Change, error) {
	if !k.Exists() {
		return nil, errs.NotFound("api key")
	}
	if !k.Active() {
		return nil, errs.Conflict("api_key_revoked", "a revoked key cannot be changed")
	}
	name := k.created.Name
	if u.Name != nil {
		name = *u.Name
	}
	var f []errs.Field
	if strings.TrimSpace(name) == "" {
		f = append(f, errs.Field{Pointer: "/name", Detail: "must not be empty"})
	}
	if len(u.Scopes) == 0 {
		f = append(f, errs.Field{Pointer: "/scopes", Detail: "at least one scope is required"})
	}
	for i, s := range u.Scopes {
		if !ValidScope(s) {
			f = append(f, errs.Field{Pointer: "/scopes/" + strconv.Itoa(i), Detail: "scope " + s + " must look like resource:action"})
		}
	}
	f = append(f, validateBindings(u.Bindings)...)
	if len(f) > 0 {
		return nil, errs.Invalid(f...)
	}
	bindings := u.Bindings
	if bindings == nil {
		bindings = []ResourceBinding{}
	}
	if name == k.created.Name && slices.Equal(u.Scopes, k.created.Scopes) && bindingsEqual(bindings, k.Bindings()) {
		return nil, nil
	}
	return []event.Change{event.New(APIKeyUpdated, APIKeyUpdatedV1{KeyID: k.created.KeyID, Name: name, Scopes: u.Scopes,
		ResourceBindings: bindings, At: now})}, nil
}

func bindingsEqual(a, b []ResourceBinding) bool {
	return slices.EqualFunc(a, b, func(x, y ResourceBinding) bool {
		return x.ResourceType == y.ResourceType && x.ResourceID == y.ResourceID && x.AccessLevel == y.AccessLevel &&
			slices.Equal(x.AllowedScopes, y.AllowedScopes)
	})
}

// validateBindings checks the shape; what may be bound is CheckKeyRequest's.
func validateBindings(bs []ResourceBinding) []errs.Field {
	var f []errs.Field
	seen := map[string]bool{}
	for i, b := range bs {
		at := "/resourceBindings/" + strconv.Itoa(i)
		if b.ResourceType == "" {
			f = append(f, errs.Field{Pointer: at + "/resourceType", Detail: "must not be empty"})
		}
		if b.ResourceID == "" {
			f = append(f, errs.Field{Pointer: at + "/resourceId", Detail: "must not be empty"})
		}
		if !slices.Contains(AccessLevels, b.AccessLevel) {
			f = append(f, errs.Field{Pointer: at + "/accessLevel", Detail: "must be one of read, write, admin"})
		}
		key := b.ResourceType + "\x00" + b.ResourceID
		if seen[key] {
			f = append(f, errs.Field{Pointer: at, Detail: "the resource is bound twice"})
		}
		seen[key] = true
	}
	return f
}

// Workspace is a bindable resource of the organization.
type Workspace struct {
	ID   string
	Name string
}

// ScopeOption is a scope the caller may put on a key of the application.
type ScopeOption struct {
	Scope      string `json:"scope"`
	Permission string `json:"permission"`
}

// ResourceOption is one resource row of a selector.
type ResourceOption struct {
	ResourceID    string   `json:"resourceId"`
	Name          string   `json:"name"`
	AccessLevel   string   `json:"accessLevel"`
	AllowedScopes []string `json:"allowedScopes"`
}

// ResourceSelector is one resource type; the product names that mean the
// same type (aliases) collapse into it.
type ResourceSelector struct {
	ResourceType string           `json:"resourceType"`
	Aliases      []string         `json:"aliases"`
	Resources    []ResourceOption `json:"resources"`
}

// KeyOptions is the answer of api_keys.options.
type KeyOptions struct {
	AppID          string             `json:"appId"`
	OrganizationID string             `json:"organizationId"`
	Scopes         []ScopeOption      `json:"scopes"`
	Resources      []ResourceSelector `json:"resources"`
}

// OptionsInput is what the options calculation reads.
type OptionsInput struct {
	Catalog    *Catalog
	Access     *OrgAccess
	Caller     Caller
	AppID      string
	Workspaces []Workspace
}

// BindableOptions is the one calculation of what the caller may bind on a
// key of an application in its active organization: the catalog's scopes of
// the application that the caller holds itself (a key never exceeds its
// creator), and the organization's resources of the application's resource
// types, duplicates collapsed. Key creation and update call it again and
// accept only what it offers (CheckKeyRequest).
func BindableOptions(in OptionsInput) (KeyOptions, error) {
	entry, err := in.Catalog.Entry("/appId", in.AppID)
	if err != nil {
		return KeyOptions{}, err
	}
	if !in.Access.MayUse(in.Catalog, in.AppID) {
		return KeyOptions{}, errs.PermissionDenied("the organization may not use application " + in.AppID)
	}
	out := KeyOptions{AppID: entry.AppID, OrganizationID: in.Caller.OrganizationID, Scopes: []ScopeOption{}, Resources: []ResourceSelector{}}
	var offered []string
	for _, s := range entry.Scopes {
		perm := Qualify(entry.AppID, s)
		if PlatformBypass(in.Caller) || Holds(in.Caller.Permissions, perm) {
			out.Scopes = append(out.Scopes, ScopeOption{Scope: s, Permission: perm})
			offered = append(offered, s)
		}
	}
	if len(offered) == 0 {
		return out, nil // nothing to bind, so no resource either
	}
	level := "write"
	switch {
	case len(offered) == len(entry.Scopes):
		level = "admin"
	case !slices.ContainsFunc(offered, func(s string) bool { return !strings.HasSuffix(s, ":read") }):
		level = "read"
	}
	index := map[string]int{}
	for _, rt := range entry.ResourceTypes {
		i, ok := index[rt.Canonical]
		if !ok {
			i = len(out.Resources)
			index[rt.Canonical] = i
			sel := ResourceSelector{ResourceType: rt.Canonical, Aliases: []string{}, Resources: []ResourceOption{}}
			for _, w := range in.Workspaces {
				sel.Resources = append(sel.Resources, ResourceOption{ResourceID: w.ID, Name: w.Name, AccessLevel: level,
					AllowedScopes: slices.Clone(offered)})
			}
			out.Resources = append(out.Resources, sel)
		}
		if !slices.Contains(out.Resources[i].Aliases, rt.Type) {
			out.Resources[i].Aliases = append(out.Resources[i].Aliases, rt.Type)
		}
	}
	return out, nil
}

// CheckKeyRequest accepts scopes and bindings only when the options offer
// them, naming every member that they do not (422). It returns the bindings
// with canonical resource types and defaulted allowed scopes.
func CheckKeyRequest(opts KeyOptions, scopes []string, bindings []ResourceBinding) ([]ResourceBinding, error) {
	var f []errs.Field
	offered := map[string]bool{}
	for _, s := range opts.Scopes {
		offered[s.Scope] = true
	}
	for i, s := range scopes {
		if !offered[s] {
			f = append(f, errs.Field{Pointer: "/scopes/" + strconv.Itoa(i),
				Detail: "scope " + s + " is not offered for application " + opts.AppID + " to this caller (see api_keys.options)"})
		}
	}
	out := make([]ResourceBinding, 0, len(bindings))
	for i, b := range bindings {
		at := "/resourceBindings/" + strconv.Itoa(i)
		sel := slices.IndexFunc(opts.Resources, func(s ResourceSelector) bool {
			return s.ResourceType == b.ResourceType || slices.Contains(s.Aliases, b.ResourceType)
		})
		if sel < 0 {
			f = append(f, errs.Field{Pointer: at + "/resourceType", Detail: "resource type " + b.ResourceType + " is not offered for application " + opts.AppID})
			continue
		}
		s := opts.Resources[sel]
		ri := slices.IndexFunc(s.Resources, func(r ResourceOption) bool { return r.ResourceID == b.ResourceID })
		if ri < 0 {
			f = append(f, errs.Field{Pointer: at + "/resourceId", Detail: "resource " + b.ResourceID + " is not offered"})
			continue
		}
		r := s.Resources[ri]
		if slices.Index(AccessLevels, b.AccessLevel) > slices.Index(AccessLevels, r.AccessLevel) {
			f = append(f, errs.Field{Pointer: at + "/accessLevel", Detail: "at most " + r.AccessLevel + " is offered"})
		}
		allowed := b.AllowedScopes
		if len(allowed) == 0 {
			for _, sc := range scopes {
				if slices.Contains(r.AllowedScopes, sc) {
					allowed = append(allowed, sc)
				}
			}
		}
		for j, sc := range allowed {
			if !slices.Contains(r.AllowedScopes, sc) || !slices.Contains(scopes, sc) {
				f = append(f, errs.Field{Pointer: at + "/allowedScopes/" + strconv.Itoa(j),
					Detail: "scope " + sc + " must be offered for the resource and be one of the key's scopes"})
			}
		}
		b.ResourceType = s.ResourceType
		b.AllowedScopes = allowed
		out = append(out, b)
	}
	if len(f) > 0 {
		return nil, errs.Invalid(f...)
	}
	return out, nil
}

// WorkspaceBindings are a key's bindings on workspaces, as its principal
// carries them (services check them per workspace); nil for none.
func WorkspaceBindings(bs []ResourceBinding) []principal.WorkspaceBinding {
	var out []principal.WorkspaceBinding
	for _, b := range bs {
		if b.ResourceType == CanonicalResourceType {
			out = append(out, principal.WorkspaceBinding{WorkspaceID: b.ResourceID, AccessLevel: b.AccessLevel,
				AllowedScopes: slices.Clone(b.AllowedScopes)})
		}
	}
	return out
}
