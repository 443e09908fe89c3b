package design

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/commands/workspace"
	domain "github.com/platform/backend/domain/design"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/principal"
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

// EraseData erases what the organization's design service holds
// (workspace.Erase: its projects, designs, images and exports, at once,
// under the organization's lock), then deletes the files. The event log
// itself is kept under the retention policy.
func (h *Handlers) EraseData(ctx context.Context, m commands.Meta, p principal.Principal, in EraseData) (commands.Result[Erasure], error) {
	if err := WholeOrganization(p); err != nil {
		return commands.Result[Erasure]{}, err
	}
	org := p.OrganizationID
	res, err := workspace.Erase(ctx, h.store, meta(m, p), registry, domain.StreamOrganization, domain.OrganizationStreamID(org),
		domain.Erasures, in.Confirmation, h.now(), func(n workspace.Erasure) Erasure {
			return Erasure{OrganizationID: org, Objects: n.Objects, Files: n.Files, Erasures: n.Erasures}
		})
	if err == nil {
		for h.DrainDeletions(context.WithoutCancel(ctx), 500) > 0 {
		}
	}
	return res, err
}
