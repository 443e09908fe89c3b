package identity

import (
	"context"
	"slices"
	"time"

	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/identity"
)

// SessionInfo is one open session as its user or an admin sees it: never a
// token or a token hash.
type SessionInfo struct {
	SessionID      string     `json:"session_id"`
	UserID         string     `json:"user_id"`
	OrganizationID string     `json:"organization_id"`
	Service        string     `json:"service,omitempty"`
	StartedAt      time.Time  `json:"started_at"`
	RefreshedAt    *time.Time `json:"refreshed_at"`
	ExpiresAt      time.Time  `json:"expires_at"`
	Current        bool       `json:"current"`
}

// SessionList is the answer of the session lists.
type SessionList struct {
	UserID   string        `json:"user_id"`
	Sessions []SessionInfo `json:"sessions"`
}

// SessionDirectory is the accounts read model's session lookup. The
// Directory given to the handlers implements it too (projections/identity).
type SessionDirectory interface {
	// OpenSessions lists the user's sessions the read model holds open at
	// now, newest first; organizationID "" lists every organization's.
	OpenSessions(ctx context.Context, userID, organizationID string, now time.Time) ([]SessionInfo, error)
}

func (h *Handlers) sessionDirectory() (SessionDirectory, error) {
	if d, ok := h.dir.(SessionDirectory); ok {
		return d, nil
	}
	return nil, errs.Unavailable("the accounts read model is not configured", nil)
}

// openSessions lists from the read model and keeps only what the write side
// confirms open now (not ended, not expired, not before the user's last
// logout everywhere), so an ended session disappears at once; a session
// started a moment ago may show up a moment later. current, when set, is
// confirmed and listed even before the read model holds it.
func (h *Handlers) openSessions(ctx context.Context, userID, organizationID, current string) ([]SessionInfo, error) {
	dir, err := h.sessionDirectory()
	if err != nil {
		return nil, err
	}
	now := h.now()
	listed, err := dir.OpenSessions(ctx, userID, organizationID, now)
	if err != nil {
		return nil, err
	}
	u, err := h.loadUser(ctx, userID)
	if err != nil {
		return nil, err
	}
	out := []SessionInfo{}
	if !u.Active() {
		return out, nil
	}
	open := func(id string) (*domain.Session, error) {
		s, err := h.loadSession(ctx, id)
		if err != nil || !s.Open(now) || s.Started().UserID != userID || s.Started().Epoch < u.SessionEpoch() {
			return nil, err
		}
		if organizationID != "" && s.Started().OrganizationID != organizationID {
			return nil, nil
		}
		return s, nil
	}
	for _, info := range listed {
		s, err := open(info.SessionID)
		if err != nil {
			return nil, err
		}
		if s != nil {
			info.Current = info.SessionID == current
			out = append(out, info)
		}
	}
	if current != "" && !slices.ContainsFunc(out, func(i SessionInfo) bool { return i.SessionID == current }) {
		s, err := open(current)
		if err != nil {
			return nil, err
		}
		if s != nil {
			st := s.Started()
			out = append([]SessionInfo{{SessionID: st.SessionID, UserID: st.UserID, OrganizationID: st.OrganizationID,
				Service: st.Service, StartedAt: st.StartedAt, ExpiresAt: st.ExpiresAt, Current: true}}, out...)
		}
	}
	return out, nil
}

// ListMySessions is GET /api/me/sessions: the signed-in user's open
// sessions in every organization, the calling one flagged current.
func (h *Handlers) ListMySessions(ctx context.Context, p domain.Principal) (SessionList, error) {
	if p.UserID == "" {
		return SessionList{}, errMFANeedsSession
	}
	list, err := h.openSessions(ctx, p.UserID, "", p.SessionID)
	return SessionList{UserID: p.UserID, Sessions: list}, err
}

// ListMemberSessions is GET /api/organizations/{orgId}/members/{userId}/sessions:
// an organization admin sees a member's open sessions in that organization
// (sessions.manage, an organization admin route).
func (a *Access) ListMemberSessions(ctx context.Context, p domain.Principal, organizationID, userID string) (SessionList, error) {
	if _, err := a.authorizeMember(ctx, p, organizationID, userID, RuleSessionsManage, false); err != nil {
		return SessionList{}, err
	}
	list, err := a.h.openSessions(ctx, userID, organizationID, p.SessionID)
	return SessionList{UserID: userID, Sessions: list}, err
}
