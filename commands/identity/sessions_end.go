package identity

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
)

// SessionsEnded is the answer of ending sessions from a list.
type SessionsEnded struct {
	UserID         string   `json:"user_id"`
	OrganizationID string   `json:"organization_id,omitempty"`
	SessionIDs     []string `json:"session_ids"`
	SessionsEnded  int      `json:"sessions_ended"`
}

var errNoSession = errs.NotFound("session")

// EndMySession is DELETE /api/me/sessions/{sessionId}: the signed-in user
// ends one of its sessions (another device, or this one); its tokens fail
// /validate at once. Another user's session id answers 404.
func (h *Handlers) EndMySession(ctx context.Context, m commands.Meta, p domain.Principal, sessionID string) (SessionsEnded, error) {
	if p.UserID == "" {
		return SessionsEnded{}, errMFANeedsSession
	}
	s, err := h.loadSession(ctx, sessionID)
	if err != nil {
		return SessionsEnded{}, err
	}
	if !s.Exists() || s.Started().UserID != p.UserID {
		return SessionsEnded{}, errNoSession
	}
	out := SessionsEnded{UserID: p.UserID, SessionIDs: []string{}}
	ended, err := h.revokeSession(ctx, m, s, domain.EndRevokedByUser)
	if ended {
		out.SessionIDs, out.SessionsEnded = []string{sessionID}, 1
	}
	return out, err
}

// EndMemberSessions is DELETE /api/organizations/{orgId}/members/{userId}/sessions[/{sessionId}]:
// an organization admin ends one or every open session of a member in that
// organization (sessions in the member's other organizations are not this
// admin's). Every session is itself confirmed and ended on the write side;
// a session started in the last moment before the call may not be listed
// yet (the list comes from the read model).
func (a *Access) EndMemberSessions(ctx context.Context, m commands.Meta, p domain.Principal, organizationID, userID, sessionID string) (SessionsEnded, error) {
	if _, err := a.authorizeMember(ctx, p, organizationID, userID, RuleSessionsManage, true); err != nil {
		return SessionsEnded{}, err
	}
	out := SessionsEnded{UserID: userID, OrganizationID: organizationID, SessionIDs: []string{}}
	ids := []string{sessionID}
	if sessionID == "" {
		list, err := a.h.openSessions(ctx, userID, organizationID, "")
		if err != nil {
			return out, err
		}
		ids = ids[:0]
		for _, s := range list {
			ids = append(ids, s.SessionID)
		}
	}
	for _, id := range ids {
		s, err := a.h.loadSession(ctx, id)
		if err != nil {
			return out, err
		}
		if st := s.Started(); !s.Exists() || st.UserID != userID || st.OrganizationID != organizationID {
			return out, errNoSession
		}
		ended, err := a.h.revokeSession(ctx, m, s, domain.EndRevokedByAdmin)
		if err != nil {
			return out, err
		}
		if ended {
			out.SessionIDs = append(out.SessionIDs, id)
		}
	}
	out.SessionsEnded = len(out.SessionIDs)
	return out, nil
}

// revokeSession ends a session on its stream (tenant: its organization),
// recording the caller as the actor. It reports whether this call ended it
// (false: it had ended already).
func (h *Handlers) revokeSession(ctx context.Context, m commands.Meta, s *domain.Session, reason string) (bool, error) {
	st := s.Started()
	m.OrganizationID = st.OrganizationID
	m.IdempotencyKey = "" // one request may end several sessions: each is its own command
	res, err := commands.Run(ctx, h.store, m, domain.StreamSession, st.SessionID,
		func(history []event.Recorded) ([]event.Change, bool, error) {
			s, err := domain.LoadSession(history)
			if err != nil {
				return nil, false, err
			}
			changes, err := s.End(reason, h.now())
			return changes, len(changes) > 0, err
		})
	return res.Value, err
}
