package identity

import (
	"context"
	"time"
)

// Exports are portable records (seed 001). They are built from the read
// model, which holds no secret at all: no password hash, token or key hash
// is ever projected, so nothing the seed lists (password hashes, MFA
// secrets, backup codes, reset tokens, invitation codes, API-key hashes,
// OAuth client-secret hashes) can reach an export.

type UserExport struct {
	Format      string    `json:"format"`
	ExportedAt  time.Time `json:"exported_at"`
	User        User      `json:"user"`
	Memberships []Member  `json:"memberships"`
	Sessions    []Session `json:"sessions"`
}

func (q *Queries) ExportUser(ctx context.Context, userID string, now time.Time) (UserExport, error) {
	u, err := q.User(ctx, userID)
	if err != nil {
		return UserExport{}, err
	}
	ms, err := q.Memberships(ctx, userID)
	if err != nil {
		return UserExport{}, err
	}
	ss, err := q.Sessions(ctx, userID)
	if err != nil {
		return UserExport{}, err
	}
	return UserExport{Format: "platform.identity.user.v1", ExportedAt: now, User: u, Memberships: ms, Sessions: ss}, nil
}

type OrganizationExport struct {
	Format       string       `json:"format"`
	ExportedAt   time.Time    `json:"exported_at"`
	Organization Organization `json:"organization"`
	Members      []Member     `json:"members"`
}

func (q *Queries) ExportOrganization(ctx context.Context, organizationID string, now time.Time) (OrganizationExport, error) {
	o, err := q.Organization(ctx, organizationID)
	if err != nil {
		return OrganizationExport{}, err
	}
	ms, err := q.Members(ctx, organizationID)
	if err != nil {
		return OrganizationExport{}, err
	}
	return OrganizationExport{Format: "platform.identity.organization.v1", ExportedAt: now, Organization: o, Members: ms}, nil
}
