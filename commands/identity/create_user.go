package identity

import (
	"context"
	"crypto/rand"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
)

// CreateUser adds a user to the caller's organization (its home
// organization) with a role. Password is optional: without one the user
// cannot sign in with a password (a passwordless identity).
type CreateUser struct {
	Email    string `json:"email"`
	Name     string `json:"name"`
	Password string `json:"password"`
	Role     string `json:"role"`
	// PasswordHash is an argon2id hash made earlier (a confirmed sign-up);
	// never from a request body.
	PasswordHash string `json:"-"`
}

// UserCreated is the answer: ids and lifecycle, never the email or name
// (answers are kept for idempotent replays; personal data lives only sealed).
type UserCreated struct {
	UserID         string    `json:"user_id"`
	OrganizationID string    `json:"organization_id"`
	Role           string    `json:"role"`
	State          string    `json:"state"`
	CreatedAt      time.Time `json:"created_at"`
}

// CreateUser records the user (claiming the email), then the membership on
// the organization's stream. Two streams, two commands: if the membership is
// refused the new user is erased again, so no identity is left without one.
func (h *Handlers) CreateUser(ctx context.Context, m commands.Meta, actor domain.Actor, in CreateUser) (commands.Result[UserCreated], error) {
	var zero commands.Result[UserCreated]
	if err := h.requireOrganization(ctx, m.OrganizationID); err != nil {
		return zero, err
	}
	org, err := h.loadOrganization(ctx, m.OrganizationID)
	if err != nil {
		return zero, err
	}
	role := domain.RoleOrDefault(in.Role)
	// Check the ladder before anything is written; the membership command
	// checks it again with the actor's current role (decideMember).
	if err := domain.CheckRoleChange(actor, domain.Member{}, domain.Member{Role: role}, org.Administration()); err != nil {
		return zero, err
	}
	user, err := h.createUserStream(ctx, m, in, m.OrganizationID, "")
	if err != nil {
		return zero, err
	}
	mm := m
	if mm.IdempotencyKey != "" {
		mm.IdempotencyKey += ":membership"
	}
	member, err := h.setMember(ctx, mm, actor, domain.Member{UserID: user.Value.UserID, Role: role})
	if err != nil {
		if !user.Replayed {
			h.compensate(ctx, m, user.Value.UserID)
		}
		return zero, err
	}
	user.Value.Role = role
	user.Position = member.Position
	return user, nil
}

// createUserStream seals the personal data under the new user's key and
// appends user.created with the email's uniqueness claim.
func (h *Handlers) createUserStream(ctx context.Context, m commands.Meta, in CreateUser, home, presetID string) (commands.Result[UserCreated], error) {
	var zero commands.Result[UserCreated]
	if err := h.requireKeys(); err != nil {
		return zero, err
	}
	email := domain.NormalizeEmail(in.Email)
	if !domain.ValidEmail(email) {
		return zero, errs.InvalidField("/email", "must be an email address")
	}
	var hashed string
	if in.Password != "" {
		if err := domain.CheckPassword(in.Password); err != nil {
			return zero, err
		}
		salt := make([]byte, 16)
		if _, err := rand.Read(salt); err != nil {
			return zero, err
		}
		hashed = domain.HashPassword(in.Password, salt, domain.DefaultPasswordParams)
	} else if in.PasswordHash != "" {
		hashed = in.PasswordHash
	}
	id := presetID
	if id == "" {
		id = uuid.Must(uuid.NewV7()).String()
	}
	emailHash, err := h.keys.EmailHash(ctx, email)
	if err != nil {
		return zero, err
	}
	var sealed [3]string
	for i, v := range []string{email, in.Name, hashed} {
		if sealed[i], err = h.keys.Seal(ctx, id, v); err != nil {
			return zero, err
		}
	}
	m.OrganizationID = home
	return commands.Run(ctx, h.store, m, domain.StreamUser, id,
		func(history []event.Recorded) ([]event.Change, UserCreated, error) {
			u, err := domain.LoadUser(history)
			if err != nil {
				return nil, UserCreated{}, err
			}
			changes, err := u.Create(domain.NewUser{ID: id, HomeOrganizationID: home, Email: email, EmailHash: emailHash,
				SealedEmail: sealed[0], SealedName: sealed[1], SealedPassword: sealed[2]}, h.now())
			if err != nil {
				return nil, UserCreated{}, err
			}
			c := changes[0].Payload.(domain.UserCreatedV1)
			return changes, UserCreated{UserID: id, OrganizationID: home, State: domain.StateActive, CreatedAt: c.CreatedAt}, nil
		})
}

// compensate erases a user whose creation could not be completed, freeing
// the email again. Best effort: a failure leaves a user without membership,
// which cannot sign in.
func (h *Handlers) compensate(ctx context.Context, m commands.Meta, userID string) {
	m.IdempotencyKey = ""
	if u, err := h.loadUser(ctx, userID); err == nil && u.Exists() {
		_, _ = h.eraseUser(ctx, m, u)
	}
}
