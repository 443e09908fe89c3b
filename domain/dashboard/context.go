package dashboard

import (
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/principal"
)

// Active contexts (seed 002: only these two are forwarded to the launcher).
const (
	ContextOrganization = "organization"
	ContextPersonal     = "personal"
)

// Contexts are the active contexts the dashboard knows, in order.
var Contexts = []string{ContextOrganization, ContextPersonal}

// Context is where the caller's dashboard is: its organization's, or the
// caller's own inside that organization. A personal context belongs to a
// person (a session's user, the user an API key acts as) and lives in the
// organization the caller acts in, so its events stay in that tenant.
type Context struct {
	Kind           string
	OrganizationID string
	UserID         string // personal only
}

// ContextOf resolves the caller's active context of kind ("" is the
// organization's). A personal context needs a person: a key the system
// minted speaks for nobody (422 on /context).
func ContextOf(p principal.Principal, kind string) (Context, error) {
	switch kind {
	case "", ContextOrganization:
		return Context{Kind: ContextOrganization, OrganizationID: p.OrganizationID}, nil
	case ContextPersonal:
		user := PersonOf(p)
		if user == "" {
			return Context{}, errs.InvalidField("/context", "this credential speaks for no person: only the organization context")
		}
		return Context{Kind: ContextPersonal, OrganizationID: p.OrganizationID, UserID: user}, nil
	}
	return Context{}, errs.InvalidField("/context", "must be personal or organization")
}

// PersonOf is the person a principal speaks for: a session's user, the user
// an API key acts as; "" for the system's keys and services.
func PersonOf(p principal.Principal) string {
	if p.UserID != "" {
		return p.UserID
	}
	return p.ActsAs
}

// StreamID is the context's installation stream: one per organization, one
// per person in it.
func (c Context) StreamID() string {
	if c.Kind == ContextPersonal {
		return "personal:" + c.OrganizationID + ":" + c.UserID
	}
	return "organization:" + c.OrganizationID
}

// Key identifies the context in caches and read models.
func (c Context) Key() string { return c.StreamID() }
