package identity

import (
	"context"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
)

// Register is POST /register: self-service sign-up that seeds a developer
// workspace (an organization) whose creator is its owner, and signs in.
type Register struct {
	Email              string `json:"email"`
	Password           string `json:"password"`
	Name               string `json:"name"`
	OrganizationName   string `json:"organizationName"`
	OrganizationSlug   string `json:"organizationSlug"`
	DeveloperWorkspace bool   `json:"developerWorkspace"`
	CreateOrganization bool   `json:"createOrganization"`
}

type Registered struct {
	Organization OrganizationCreated `json:"organization"`
	User         UserCreated         `json:"user"`
	Session      SessionTokens       `json:"session"`
}

// Register creates the user (claiming the email) with the new organization
// as its home, then the organization with the user as owner (claiming the
// slug), then a session. If the organization is refused (slug taken) the
// user is erased again, freeing the email.
func (h *Handlers) Register(ctx context.Context, m commands.Meta, in Register) (Registered, error) {
	if !in.CreateOrganization {
		return Registered{}, errs.InvalidField("/createOrganization", "sign-up creates an organization; joining one needs an invitation")
	}
	var fields []errs.Field
	if !domain.ValidSlug(in.OrganizationSlug) {
		fields = append(fields, errs.Field{Pointer: "/organizationSlug", Detail: "lowercase letters and digits with internal hyphens, 3 to 48 characters"})
	}
	if err := domain.CheckPassword(in.Password); err != nil {
		fields = append(fields, errs.Field{Pointer: "/password", Detail: err.(*errs.Error).Fields[0].Detail})
	}
	if len(fields) > 0 {
		return Registered{}, errs.Invalid(fields...)
	}
	if reason := domain.SlugReason(in.OrganizationSlug, false); reason == "reserved" {
		return Registered{}, errs.InvalidField("/organizationSlug", "this slug is reserved by the platform")
	}
	taken, err := h.store.Taken(ctx, domain.UniqueSlug, in.OrganizationSlug)
	if err != nil {
		return Registered{}, errs.Unavailable("identity store unavailable", err)
	}
	if taken {
		return Registered{}, errs.Conflict("slug_taken", "this slug is already taken")
	}
	orgID := uuid.Must(uuid.NewV7()).String()
	userID := uuid.Must(uuid.NewV7()).String()
	m.IdempotencyKey = "" // a sign-up signs in: its tokens are never replayed
	m.Actor = eventstore.Actor{ID: userID, Type: "user"}
	user, err := h.createUserStream(ctx, m, CreateUser{Email: in.Email, Name: in.Name, Password: in.Password}, orgID, userID)
	if err != nil {
		return Registered{}, err
	}
	name := in.OrganizationName
	if name == "" {
		name = in.OrganizationSlug
	}
	org, err := h.CreateOrganization(ctx, m, CreateOrganization{ID: orgID, Name: name, Slug: in.OrganizationSlug,
		DeveloperWorkspace: in.DeveloperWorkspace, Owner: userID})
	if err != nil {
		h.compensate(ctx, m, userID)
		return Registered{}, err
	}
	u, err := h.loadUser(ctx, userID)
	if err != nil {
		return Registered{}, err
	}
	o, err := h.loadOrganization(ctx, orgID)
	if err != nil {
		return Registered{}, err
	}
	session, err := h.startSession(ctx, m, u, o, "")
	if err != nil {
		return Registered{}, err
	}
	user.Value.Role = domain.RoleOwner
	return Registered{Organization: org.Value, User: user.Value, Session: session}, nil
}
