package identity

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
)

// SetPreferences replaces the caller's launcher preferences in its active
// organization. Any signed-in principal has preferences of its own.
func (a *Access) SetPreferences(ctx context.Context, m commands.Meta, p domain.Principal, in domain.Preferences) (commands.Result[domain.Preferences], error) {
	if p.ID == "" || p.OrganizationID == "" {
		return commands.Result[domain.Preferences]{}, errs.AuthenticationRequired("preferences belong to a signed-in principal")
	}
	owner := PreferencesOwner(p)
	return commands.Execute(ctx, a.h.store, accessMeta(m, p.OrganizationID), domain.StreamPreferences,
		domain.PreferencesStreamID(p.OrganizationID, owner), domain.LoadPreferences,
		func(model *domain.PreferencesModel) ([]event.Change, error) {
			return model.Set(owner, p.OrganizationID, in, a.now())
		}, (*domain.PreferencesModel).Current)
}

// PreferencesOwner is whose launcher it is: the user behind a session (so
// every session of the user shares it), else the principal itself.
func PreferencesOwner(p domain.Principal) string {
	if p.UserID != "" {
		return p.UserID
	}
	return p.ID
}
