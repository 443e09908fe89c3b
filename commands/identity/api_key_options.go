package identity

import (
	"context"
	"slices"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
)

// keyContext is everything the options calculation reads, loaded from the
// write side for one principal and application.
type keyContext struct {
	caller domain.Caller
	cat    *domain.Catalog
	acc    *domain.OrgAccess
	opts   domain.KeyOptions
}

// keyOptions is the one calculation behind api_keys.options, key creation
// and key update: catalog + organization access + the caller's effective
// permissions, for the caller's active organization.
func (a *Access) keyOptions(ctx context.Context, p domain.Principal, appID string) (keyContext, error) {
	if err := a.h.requireOrganization(ctx, p.OrganizationID); err != nil {
		return keyContext{}, err
	}
	caller, cat, acc, err := a.authorize(ctx, p, p.OrganizationID, domain.Rule{})
	if err != nil {
		return keyContext{}, err
	}
	// Reading the options needs api_keys read or write (write implies read).
	if !domain.PlatformBypass(caller) && !domain.Holds(caller.Permissions, PermAPIKeysRead) && !domain.Holds(caller.Permissions, PermAPIKeysWrite) {
		return keyContext{}, errs.PermissionDenied("the credential lacks permission " + PermAPIKeysRead)
	}
	// The organization's workspaces are the resources every first-party
	// application binds (its default workspace's id is the organization's).
	all, err := a.Workspaces(ctx, p.OrganizationID)
	if err != nil {
		return keyContext{}, err
	}
	var ws []domain.Workspace
	for _, w := range all.List() {
		ws = append(ws, domain.Workspace{ID: w.WorkspaceID, Name: w.Name})
	}
	opts, err := domain.BindableOptions(domain.OptionsInput{Catalog: cat, Access: acc, Caller: caller, AppID: appID, Workspaces: ws})
	if err != nil {
		return keyContext{}, err
	}
	return keyContext{caller: caller, cat: cat, acc: acc, opts: opts}, nil
}

// KeyOptions answers api_keys.options.
func (a *Access) KeyOptions(ctx context.Context, p domain.Principal, appID string) (domain.KeyOptions, error) {
	kc, err := a.keyOptions(ctx, p, appID)
	return kc.opts, err
}

// mayMutateKeys: keys of a suspended or revoked workspace change only by a
// platform role, and only with the api_keys write permission otherwise.
func mayMutateKeys(kc keyContext) error {
	if domain.PlatformBypass(kc.caller) {
		return nil
	}
	if err := kc.acc.CanMutateKeys(); err != nil {
		return err
	}
	return domain.Authorize(kc.caller, kc.caller.OrganizationID, RuleAPIKeysWrite)
}

// targetApp is the key's application: the one named, or, when none is, the
// single catalog application that declares every requested scope.
func targetApp(cat *domain.Catalog, service string, scopes []string) (string, error) {
	if service != "" {
		return service, nil
	}
	var found []string
	for _, e := range cat.Entries() {
		all := len(scopes) > 0
		for _, s := range scopes {
			if !slices.Contains(e.Scopes, s) {
				all = false
			}
		}
		if all {
			found = append(found, e.AppID)
		}
	}
	if len(found) != 1 {
		return "", errs.InvalidField("/service", "name the key's target application (app id); the scopes do not single one out")
	}
	return found[0], nil
}

// CreateAPIKey creates a key for the caller's organization after repeating
// the options calculation: a scope or binding the options would not offer
// is refused, naming the member (422).
func (a *Access) CreateAPIKey(ctx context.Context, m commands.Meta, p domain.Principal, in CreateAPIKey) (commands.Result[APIKeyCreated], error) {
	var zero commands.Result[APIKeyCreated]
	cat, err := a.Catalog(ctx)
	if err != nil {
		return zero, err
	}
	app, err := targetApp(cat, in.Service, in.Scopes)
	if err != nil {
		return zero, err
	}
	kc, err := a.keyOptions(ctx, p, app)
	if err != nil {
		return zero, err
	}
	if err := mayMutateKeys(kc); err != nil {
		return zero, err
	}
	bindings, err := domain.CheckKeyRequest(kc.opts, in.Scopes, in.ResourceBindings)
	if err != nil {
		return zero, err
	}
	in.Service, in.ResourceBindings = app, bindings
	return a.h.createAPIKey(ctx, m, in)
}

// UpdateAPIKey is the input of a key update (PATCH semantics for name;
// scopes and bindings are replaced).
type UpdateAPIKey struct {
	KeyID            string                   `json:"keyId"`
	Name             *string                  `json:"name"`
	Scopes           []string                 `json:"scopes"`
	ResourceBindings []domain.ResourceBinding `json:"resourceBindings"`
}

// UpdateAPIKey replaces a key's scopes and bindings under the same
// calculation as creation, for the key's own application.
func (a *Access) UpdateAPIKey(ctx context.Context, m commands.Meta, p domain.Principal, in UpdateAPIKey) (commands.Result[APIKeyCreated], error) {
	var zero commands.Result[APIKeyCreated]
	k, err := a.loadKey(ctx, p, in.KeyID)
	if err != nil {
		return zero, err
	}
	kc, err := a.keyOptions(ctx, p, k.Created().Service)
	if err != nil {
		return zero, err
	}
	if err := mayMutateKeys(kc); err != nil {
		return zero, err
	}
	if err := a.mayChangeKey(ctx, kc.caller, k); err != nil {
		return zero, err
	}
	bindings, err := domain.CheckKeyRequest(kc.opts, in.Scopes, in.ResourceBindings)
	if err != nil {
		return zero, err
	}
	return commands.Execute(ctx, a.h.store, m, domain.StreamAPIKey, in.KeyID, domain.LoadAPIKey,
		func(k *domain.APIKey) ([]event.Change, error) {
			return k.Update(domain.KeyUpdate{Name: in.Name, Scopes: in.Scopes, Bindings: bindings}, a.now())
		}, keyAnswer)
}

// RevokeAPIKey revokes a key of the caller's organization; a suspended
// workspace cannot (seed 001: it cannot mutate keys), a platform role can.
func (a *Access) RevokeAPIKey(ctx context.Context, m commands.Meta, p domain.Principal, in RevokeAPIKey) (commands.Result[APIKeyCreated], error) {
	var zero commands.Result[APIKeyCreated]
	k, err := a.loadKey(ctx, p, in.KeyID)
	if err != nil {
		return zero, err
	}
	acc, err := a.OrgAccess(ctx, k.Created().OrganizationID)
	if err != nil {
		return zero, err
	}
	caller := a.Caller(p)
	if err := mayMutateKeys(keyContext{caller: caller, acc: acc}); err != nil {
		return zero, err
	}
	if err := a.mayChangeKey(ctx, caller, k); err != nil {
		return zero, err
	}
	return a.h.RevokeAPIKey(ctx, m, in)
}

// mayChangeKey: api_keys:write lets a principal manage keys, not every key.
// Only the key itself, whoever minted it (up its chain), or a role at or
// above its root creator's current role changes or revokes it (domain
// CheckKeyChange); before, any member could revoke the owner's keys.
func (a *Access) mayChangeKey(ctx context.Context, c domain.Caller, k *domain.APIKey) error {
	l, err := a.h.KeyLineage(ctx, k)
	if err != nil {
		return err
	}
	return domain.CheckKeyChange(c, k.Created().KeyID, l)
}

// loadKey finds a key of the caller's organization; another tenant's key is
// a missing key.
func (a *Access) loadKey(ctx context.Context, p domain.Principal, keyID string) (*domain.APIKey, error) {
	history, err := a.load(ctx, keyID)
	if err != nil {
		return nil, err
	}
	if len(history) > 0 && history[0].StreamType != domain.StreamAPIKey {
		return nil, errs.NotFound("api key")
	}
	k, err := domain.LoadAPIKey(commands.Recorded(history))
	if err != nil {
		return nil, err
	}
	if !k.Exists() || k.Created().OrganizationID != p.OrganizationID {
		return nil, errs.NotFound("api key")
	}
	return k, nil
}
