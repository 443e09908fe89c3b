package identity

import (
	"context"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	domain "github.com/platform/backend/domain/identity"
	httpapi "github.com/platform/backend/http"
	accessview "github.com/platform/backend/projections/access"
)

// The access half's actions whose input or answer is not a command's or a
// query's own: each maps its named input (inputs.go) to the call, so the
// action binds with httpapi.Query, CommandAs or Perform.

func (d AccessDeps) keyOptions(ctx context.Context, p domain.Principal, in KeyOptionsQuery) (domain.KeyOptions, error) {
	return d.Access.KeyOptions(ctx, p, in.AppID)
}

// APIKeyList is the answer of api_keys.list.
type APIKeyList struct {
	Keys []accessview.KeyView `json:"keys"`
}

func (d AccessDeps) listAPIKeys(ctx context.Context, p domain.Principal, in APIKeyListQuery) (APIKeyList, error) {
	if err := d.Access.AuthorizeAny(ctx, p, identitycmd.PermAPIKeysRead, identitycmd.PermAPIKeysWrite); err != nil {
		return APIKeyList{}, err
	}
	if in.State == "all" {
		in.State = ""
	}
	keys, err := d.Queries.APIKeys(ctx, p.OrganizationID, in.State, in.Limit)
	return APIKeyList{Keys: keys}, err
}

func (d AccessDeps) userPermissions(ctx context.Context, p domain.Principal, in PermissionsQuery) (identitycmd.UserPermissions, error) {
	return d.Access.UserPermissions(ctx, p, in.UserID, in.OrganizationID)
}

func (d AccessDeps) serviceAccess(ctx context.Context, p domain.Principal, in OrganizationRef) (identitycmd.ServiceAccess, error) {
	return d.Access.GetServiceAccess(ctx, p, in.OrganizationID)
}

func (d AccessDeps) setWorkspaceStatus(ctx context.Context, m commands.Meta, p domain.Principal, in WorkspaceStatusInput) (commands.Result[identitycmd.ServiceAccess], error) {
	return d.Access.SetWorkspaceStatus(ctx, m, p, in.OrganizationID, in.Status, in.Reason)
}

// CatalogList is the answer of catalog.list.
type CatalogList struct {
	Entries []domain.CatalogEntry `json:"entries"`
}

func (d AccessDeps) catalog(ctx context.Context, p domain.Principal, in CatalogQuery) (CatalogList, error) {
	list, err := d.Queries.Catalog(ctx, accessview.CatalogFilter{SurfaceKind: in.SurfaceKind, SurfaceGroup: in.SurfaceGroup, Launchable: in.Launchable})
	return CatalogList{Entries: accessview.RedactOwners(list, p)}, err
}

func (d AccessDeps) registerDeveloperApp(ctx context.Context, m commands.Meta, p domain.Principal, in identitycmd.RegisterDeveloperApp) (commands.Result[domain.CatalogEntry], error) {
	if err := requireService(p); err != nil {
		return commands.Result[domain.CatalogEntry]{}, err
	}
	return d.Access.RegisterDeveloperApp(ctx, m, in)
}

func (d AccessDeps) provisionFromCheckout(ctx context.Context, m commands.Meta, p domain.Principal, in domain.CheckoutRequest) (identitycmd.Provisioned, error) {
	if err := requireService(p); err != nil {
		return identitycmd.Provisioned{}, err
	}
	return d.Access.ProvisionFromCheckout(ctx, m, in)
}

func (d AccessDeps) preferences(ctx context.Context, p domain.Principal, _ httpapi.NoInput) (domain.Preferences, error) {
	return d.Queries.Preferences(ctx, p.OrganizationID, identitycmd.PreferencesOwner(p))
}
