package studio

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
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

// EraseData erases what the organization's studio holds: in one
// transaction, under the organization's lock taken exclusively (no studio
// command of the organization runs meanwhile), the registry forgets every
// object (every later command finds them missing), the quota counts go, the
// asset files are queued for deletion and the erasure is recorded (read
// models drop the organization's rows, and write only objects the registry
// knows: a rebuild from the log brings nothing back). The files are deleted
// right after. Backups and the event log itself are kept under the
// retention policy (seed 002). Only an admin erases (AuthorizePrivacy).
func (h *Handlers) EraseData(ctx context.Context, m commands.Meta, p principal.Principal, in EraseData) (commands.Result[Erasure], error) {
	if err := AuthorizePrivacy(p); err != nil {
		return commands.Result[Erasure]{}, err
	}
	org := p.OrganizationID
	var objects, files int
	prepare := func(ctx context.Context, tx eventstore.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(`+orgLock+`)`, org); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `SELECT count(*), count(object_key) FROM studio_objects WHERE organization_id = $1`, org).Scan(&objects, &files)
	}
	res, err := commands.Execute(ctx, h.store, meta(m, p), domain.StreamOrganization, domain.OrganizationStreamID(org), domain.LoadOrganization,
		func(om *domain.OrganizationModel) ([]event.Change, error) {
			return om.Erase(org, in.Confirmation, objects, files, h.now())
		}, func(om *domain.OrganizationModel) Erasure {
			return Erasure{OrganizationID: org, Objects: objects, AssetObjects: files, Erasures: om.Erasures()}
		}, commands.Prepared(prepare), commands.Also(func(Erasure) []eventstore.Write {
			return []eventstore.Write{
				{SQL: `INSERT INTO studio_object_deletions (object_key, organization_id) SELECT object_key, organization_id FROM studio_objects
					WHERE organization_id = $1 AND object_key IS NOT NULL ON CONFLICT (object_key) DO NOTHING`, Args: []any{org}},
				{SQL: `DELETE FROM studio_objects WHERE organization_id = $1`, Args: []any{org}},
				{SQL: `DELETE FROM studio_quota_usage WHERE organization_id = $1`, Args: []any{org}},
			}
		}))
	if err == nil {
		for h.DrainDeletions(context.WithoutCancel(ctx), 500) > 0 {
		}
	}
	return res, err
}
