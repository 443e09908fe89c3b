package identity

import (
	"encoding/json"
	"net/mail"
	"slices"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

type User struct{ created UserCreatedV1 }

func LoadUser(history []event.Recorded) (*User, error) {
	u := &User{}
	for _, r := range history {
		if r.Type == UserCreated {
			if err := json.Unmarshal(r.Payload, &u.created); err != nil {
				return nil, err
			}
		}
	}
	return u, nil
}

func (u *User) Exists() bool         { return u.created.UserID != "" }
func (u *User) State() UserCreatedV1 { return u.created }

func (u *User) Create(id, organizationID, email, role string, now time.Time) ([]event.Change, error) {
	if role == "" {
		role = "member"
	}
	var fields []errs.Field
	if _, err := mail.ParseAddress(email); err != nil {
		fields = append(fields, errs.Field{Pointer: "/email", Detail: "must be an email address"})
	}
	if !slices.Contains(Roles, role) {
		fields = append(fields, errs.Field{Pointer: "/role", Detail: "must be one of owner, super_admin, admin, member, guest"})
	}
	if len(fields) > 0 {
		return nil, errs.Invalid(fields...)
	}
	if u.Exists() {
		return nil, errs.Conflict("user_exists", "the user already exists")
	}
	return []event.Change{event.New(UserCreated, UserCreatedV1{UserID: id, OrganizationID: organizationID, Email: email, Role: role, CreatedAt: now})}, nil
}
