package identity

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
)

// platformMeta is the meta of commands on platform-tenant streams.
func platformMeta(m commands.Meta) commands.Meta {
	m.OrganizationID = domain.PlatformTenant
	return m
}

// CatalogSeeded is the answer of catalog seeding.
type CatalogSeeded struct {
	Written int                   `json:"written"`
	Entries []domain.CatalogEntry `json:"entries"`
}

// SeedCatalog is the catalog-seeding command (bootstrap): it writes the
// first-party catalog (the defaults and the entries the platform's modules
// declare); entries that did not change append nothing, so every platformd
// start runs it.
func (a *Access) SeedCatalog(ctx context.Context, declared []domain.CatalogEntry) (commands.Result[CatalogSeeded], error) {
	m := platformMeta(commands.Meta{Actor: eventstore.Actor{ID: "catalog-seed", Type: "system"}})
	entries := domain.WithDeclared(domain.DefaultCatalog(a.cfg.AppsBaseURL), declared)
	return commands.Run(ctx, a.h.store, m, domain.StreamCatalog, domain.CatalogStream,
		func(history []event.Recorded) ([]event.Change, CatalogSeeded, error) {
			c, err := domain.LoadCatalog(history)
			if err != nil {
				return nil, CatalogSeeded{}, err
			}
			changes, err := c.Seed(entries, a.now())
			if err != nil {
				return nil, CatalogSeeded{}, err
			}
			if squatted := c.SquattedIDs(entries); len(squatted) > 0 {
				a.log.Error("first-party catalog entries skipped: a developer application holds their app ids", "app_ids", squatted)
			}
			return changes, CatalogSeeded{Written: len(changes), Entries: entries}, nil
		})
}

// RegisterDeveloperApp is the input of POST /api/internal/developer-app-registrations.
type RegisterDeveloperApp struct {
	DeveloperAppID string   `json:"developerAppId"`
	AppID          string   `json:"appId"`
	Name           string   `json:"name"`
	OrganizationID string   `json:"organizationId"`
	Scopes         []string `json:"scopes"`
	ResourceTypes  []string `json:"resourceTypes"`
	EntrypointURL  string   `json:"entrypointUrl"`
	SurfaceGroup   string   `json:"surfaceGroup"`
}

// RegisterDeveloperApp adds an approved developer application to the
// catalog and lets its developer workspace use it. The handoff is
// idempotent per developer application id.
func (a *Access) RegisterDeveloperApp(ctx context.Context, m commands.Meta, in RegisterDeveloperApp) (commands.Result[domain.CatalogEntry], error) {
	var zero commands.Result[domain.CatalogEntry]
	if domain.IsDeveloperAppID(in.AppID) {
		return zero, errs.InvalidField("/appId", "a developer-portal id (dapp_...) is not an app id; send it as developerAppId")
	}
	if in.OrganizationID != "" {
		o, err := a.h.loadOrganization(ctx, in.OrganizationID)
		if err != nil {
			return zero, err
		}
		if !o.Visible() {
			return zero, errs.InvalidField("/organizationId", "no such developer workspace")
		}
		acc, err := a.OrgAccess(ctx, in.OrganizationID)
		if err != nil {
			return zero, err
		}
		if acc.Status() != domain.WorkspaceActive {
			return zero, errs.Conflict("workspace_"+acc.Status(), "the developer workspace is "+acc.Status())
		}
	}
	res, err := commands.Run(ctx, a.h.store, platformMeta(m), domain.StreamCatalog, domain.CatalogStream,
		func(history []event.Recorded) ([]event.Change, domain.CatalogEntry, error) {
			c, err := domain.LoadCatalog(history)
			if err != nil {
				return nil, domain.CatalogEntry{}, err
			}
			return c.RegisterDeveloperApp(domain.DeveloperApp{DeveloperAppID: in.DeveloperAppID, AppID: in.AppID, Name: in.Name,
				OwnerOrganizationID: in.OrganizationID, SurfaceGroup: in.SurfaceGroup, Scopes: in.Scopes,
				ResourceTypes: in.ResourceTypes, EntrypointURL: in.EntrypointURL}, a.now())
		})
	if err != nil {
		return zero, err
	}
	// The owning workspace may use its application (its own stream, its own
	// command; a retried handoff grants nothing twice).
	gm := accessMeta(m, in.OrganizationID)
	gm.IdempotencyKey = ""
	if _, err := a.GrantService(ctx, gm, in.OrganizationID, in.AppID, domain.AccessGranted); err != nil {
		return zero, err
	}
	return res, nil
}
