package studio

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/commands/workspace"
	"github.com/platform/backend/domain/principal"
	domain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/eventstore"
)

// EraseData is organizations.data.erase.
type EraseData struct {
	Confirmation string `json:"confirmation"`
}

// Erasure is its answer.
type Erasure struct {
	OrganizationID string `json:"organizationId"`
	// Objects are the projects, composition versions, jobs, requests,
	// assets, templates and presets erased; AssetObjects the stored files.
	Objects      int `json:"objects"`
	AssetObjects int `json:"assetObjects"`
	Erasures     int `json:"erasures"`
}

// EraseData erases what the organization's studio holds
// (workspace.Erase: every object of every workspace, at once, under the
// organization's lock) with its quota counts, then deletes the asset files. Backups and the event log itself are kept under the
// retention policy (seed 002). Only an admin erases (AuthorizePrivacy).
func (h *Handlers) EraseData(ctx context.Context, m commands.Meta, p principal.Principal, in EraseData) (commands.Result[Erasure], error) {
	if err := AuthorizePrivacy(p); err != nil {
		return commands.Result[Erasure]{}, err
	}
	org := p.OrganizationID
	res, err := workspace.Erase(ctx, h.store, meta(m, p), registry, domain.StreamOrganization, domain.OrganizationStreamID(org),
		domain.Erasures, in.Confirmation, h.now(), func(n workspace.Erasure) Erasure {
			return Erasure{OrganizationID: org, Objects: n.Objects, AssetObjects: n.Files, Erasures: n.Erasures}
		}, eventstore.Write{SQL: `DELETE FROM studio_quota_usage WHERE organization_id = $1`, Args: []any{org}})
	if err == nil {
		for h.DrainDeletions(context.WithoutCancel(ctx), 500) > 0 {
		}
	}
	return res, err
}
