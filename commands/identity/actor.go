package identity

import (
	"context"

	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/identity"
)

var errNotMember = errs.NotFound("member")

// ActorIn resolves who the principal is in an organization, from the write
// side: a user's current role there, an API key's role (keys act as admin
// when they hold the action's scope, and can never make owners), and the
// platform role of a platform-wide principal.
func (h *Handlers) ActorIn(ctx context.Context, p domain.Principal, organizationID string) (domain.Actor, error) {
	a := domain.Actor{UserID: p.UserID, PlatformRole: p.PlatformRole}
	switch {
	case p.Type == "api_key" && p.OrganizationID == organizationID:
		a.Role = domain.RoleAdmin
	case p.UserID != "":
		o, err := h.loadOrganization(ctx, organizationID)
		if err != nil {
			return domain.Actor{}, err
		}
		if m, ok := o.Member(p.UserID); ok {
			a.Role = m.Role
		}
	}
	return a, nil
}

var errNotFoundUser = errs.NotFound("user")
