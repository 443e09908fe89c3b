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

// Register creates the account and its organization at once: the
// in-process path (benchmarks, tools). HTTP sign-up goes through
// Access.RequestSignup, which emails a confirmation link instead (or, for an
// address that has an account, a notice), so that its answer never tells
// whether the address has one; the link completes with the same register.
func (h *Handlers) Register(ctx context.Context, m commands.Meta, in Register) (Registered, error) {
	if err := checkRegister(in); err != nil {
		return Registered{}, err
	}
	return h.register(ctx, m, in, uuid.Must(uuid.NewV7()).String(), uuid.Must(uuid.NewV7()).String(), "")
}

// checkRegister validates a sign-up's form (nothing that depends on stored
// state): every member it refuses is named (422).
func checkRegister(in Register) error {
	if !in.CreateOrganization {
		return errs.InvalidField("/createOrganization", "sign-up creates an organization; joining one needs an invitation")
	}
	var fields []errs.Field
	if !domain.ValidEmail(domain.NormalizeEmail(in.Email)) {
		fields = append(fields, errs.Field{Pointer: "/email", Detail: "must be an email address"})
	}
	if !domain.ValidSlug(in.OrganizationSlug) {
		fields = append(fields, errs.Field{Pointer: "/organizationSlug", Detail: "lowercase letters and digits with internal hyphens, 3 to 48 characters"})
	}
	if err := domain.CheckPassword(in.Password); err != nil {
		fields = append(fields, errs.Field{Pointer: "/password", Detail: err.(*errs.Error).Fields[0].Detail})
	}
	if len(fields) > 0 {
		return errs.Invalid(fields...)
	}
	if reason := domain.SlugReason(in.OrganizationSlug, false); reason == "reserved" {
		return errs.InvalidField("/organizationSlug", "this slug is reserved by the platform")
	}
	return nil
}

// slugFree refuses a slug another organization holds (slugs are public:
// the slug-availability route tells the same).
func (h *Handlers) slugFree(ctx context.Context, slug string) error {
	taken, err := h.store.Taken(ctx, domain.UniqueSlug, slug)
	if err != nil {
		return errs.Unavailable("identity store unavailable", err)
	}
	if taken {
		return errs.Conflict("slug_taken", "this slug is already taken")
	}
	return nil
}

// register creates the user (claiming the email) with the new organization
// as its home, then the organization with the user as owner (claiming the
// slug), then a session. If the organization is refused (slug taken) the
// user is erased again, freeing the email. passwordHash, when set, is the
// argon2id hash made at sign-up (the confirmation link carries no password).
func (h *Handlers) register(ctx context.Context, m commands.Meta, in Register, orgID, userID, passwordHash string) (Registered, error) {
	if err := h.slugFree(ctx, in.OrganizationSlug); err != nil {
		return Registered{}, err
	}
	m.IdempotencyKey = "" // a sign-up signs in: its tokens are never replayed
	m.Actor = eventstore.Actor{ID: userID, Type: "user"}
	user, err := h.createUserStream(ctx, m, CreateUser{Email: in.Email, Name: in.Name, Password: in.Password, PasswordHash: passwordHash}, orgID, userID)
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
