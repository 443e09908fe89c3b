package design

import (
	"context"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/design"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/eventstore"
)

// EraseData is organizations.data.erase.
type EraseData struct {
	Confirmation string `json:"confirmation"`
}

// Erasure is its answer.
type Erasure struct {
	OrganizationID string `json:"organizationId"`
	// Objects are the projects, designs, images and exports erased; Files
	// the stored images and export files.
	Objects  int `json:"objects"`
	Files    int `json:"files"`
	Erasures int `json:"erasures"`
}

// errWholeOrganization: the organization's data is no workspace's.
var errWholeOrganization = errs.PermissionDenied("the credential is bound to workspaces: the organization's data needs a credential of the whole organization")

// WholeOrganization checks a caller may act on the organization's data:
// privacy:manage (admins by the default bundles), bound to no workspace.
func WholeOrganization(p principal.Principal) error {
	if !p.Allows(PermPrivacyManage) {
		return errs.PermissionDenied("the credential lacks permission " + PermPrivacyManage)
	}
	if len(p.Workspaces) > 0 && !p.PlatformWide() {
		return errWholeOrganization
	}
	return nil
}

// EraseData erases what the organization's design service holds: in one
// transaction, under the organization's lock taken exclusively (no design
// command of the organization runs meanwhile), the registry forgets every
// object (every later command and export worker finds them missing), the
// files are queued for deletion and the erasure is recorded (read models
// drop the organization's rows, and write only objects the registry knows:
// a rebuild from the log brings nothing back). The files are deleted right
// after. The event log itself is kept under the retention policy.
func (h *Handlers) EraseData(ctx context.Context, m commands.Meta, p principal.Principal, in EraseData) (commands.Result[Erasure], error) {
	if err := WholeOrganization(p); err != nil {
		return commands.Result[Erasure]{}, err
	}
	org := p.OrganizationID
	var objects, files int
	prepare := func(ctx context.Context, tx eventstore.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(`+orgLock+`)`, org); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `SELECT count(*), count(object_key) FROM design_objects WHERE organization_id = $1`, org).Scan(&objects, &files)
	}
	res, err := commands.Execute(ctx, h.store, meta(m, p), domain.StreamOrganization, domain.OrganizationStreamID(org), domain.LoadOrganization,
		func(om *domain.OrganizationModel) ([]event.Change, error) {
			return om.Erase(org, in.Confirmation, objects, files, h.now())
		}, func(om *domain.OrganizationModel) Erasure {
			return Erasure{OrganizationID: org, Objects: objects, Files: files, Erasures: om.Erasures()}
		}, commands.Prepared(prepare), commands.Also(func(Erasure) []eventstore.Write {
			return []eventstore.Write{
				{SQL: `INSERT INTO design_object_deletions (object_key, organization_id) SELECT object_key, organization_id FROM design_objects
					WHERE organization_id = $1 AND object_key IS NOT NULL ON CONFLICT (object_key) DO NOTHING`, Args: []any{org}},
				{SQL: `DELETE FROM design_objects WHERE organization_id = $1`, Args: []any{org}},
			}
		}))
	if err == nil {
		for h.DrainDeletions(context.WithoutCancel(ctx), 500) > 0 {
		}
	}
	return res, err
}
