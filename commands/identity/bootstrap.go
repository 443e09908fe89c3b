package identity

import (
	"context"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
)

// Bootstrap is the first organization of a deployment, made without an API
// (platformctl bootstrap): the owner, and optionally the platform
// administration organization flag (its owner is platform_super_admin).
type Bootstrap struct {
	OrganizationName, Slug string
	Email, Password, Name  string
	Administration         bool
}

type Bootstrapped struct {
	Organization OrganizationCreated
	User         UserCreated
}

func (h *Handlers) Bootstrap(ctx context.Context, m commands.Meta, in Bootstrap) (Bootstrapped, error) {
	orgID := uuid.Must(uuid.NewV7()).String()
	user, err := h.createUserStream(ctx, m, CreateUser{Email: in.Email, Name: in.Name, Password: in.Password}, orgID, "")
	if err != nil {
		return Bootstrapped{}, err
	}
	org, err := h.CreateOrganization(ctx, m, CreateOrganization{ID: orgID, Name: in.OrganizationName, Slug: in.Slug,
		Administration: in.Administration, Owner: user.Value.UserID})
	if err != nil {
		h.compensate(ctx, m, user.Value.UserID)
		return Bootstrapped{}, err
	}
	user.Value.Role = "owner"
	return Bootstrapped{Organization: org.Value, User: user.Value}, nil
}
