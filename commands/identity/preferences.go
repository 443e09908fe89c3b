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
	return commands.Run(ctx, a.h.store, accessMeta(m, p.OrganizationID), domain.StreamPreferences,
		domain.PreferencesStreamID(p.OrganizationID, owner),
		func(history []event.Recorded) ([]event.Change, domain.Preferences, error) {
			model, err := domain.LoadPreferences(history)
			if err != nil {
				return nil, domain.Preferences{}, err
			}
			changes, err := model.Set(owner, p.OrganizationID, in, a.now())
			if err != nil {
				return nil, domain.Preferences{}, err
			}
			if len(changes) == 0 {
				return nil, model.Current(), nil
			}
			return changes, changes[0].Payload.(domain.PreferencesSetV1).Preferences, nil
		})
}

// PreferencesOwner is whose launcher it is: the user behind a session (so
// every session of the user shares it), else the principal itself.
func PreferencesOwner(p domain.Principal) string {
	if p.UserID != "" {
		return p.UserID
	}
	return p.ID
}
