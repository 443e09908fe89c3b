package identity

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
)

// LoggedOut is the answer of logout and logout everywhere.
type LoggedOut struct {
	SessionID     string `json:"session_id,omitempty"`
	UserID        string `json:"user_id,omitempty"`
	SessionsEnded string `json:"sessions_ended"` // "current" or "all"
	AlreadyEnded  bool   `json:"already_ended,omitempty"`
}

// Logout ends the session a token belongs to: its access token (bearer) or
// its refresh token (cookie). Its tokens fail /validate from then on.
func (h *Handlers) Logout(ctx context.Context, m commands.Meta, token string) (LoggedOut, error) {
	sid, secret, ok := parseToken(token, AccessTokenPrefix)
	check := (*domain.Session).CheckAccess
	if !ok {
		if sid, secret, ok = parseToken(token, RefreshTokenPrefix); !ok {
			return LoggedOut{}, errInvalidCredential
		}
		check = (*domain.Session).CheckRefresh
	}
	s, err := h.loadSession(ctx, sid)
	if err != nil {
		return LoggedOut{}, err
	}
	if s.Ended() && s.HoldsSecret(HashSecret(secret)) {
		return LoggedOut{SessionID: sid, UserID: s.Started().UserID, SessionsEnded: "current", AlreadyEnded: true}, nil
	}
	if err := check(s, HashSecret(secret), h.now()); err != nil {
		return LoggedOut{}, err
	}
	if err := h.endSession(ctx, m, s, domain.EndLogout); err != nil {
		return LoggedOut{}, err
	}
	return LoggedOut{SessionID: sid, UserID: s.Started().UserID, SessionsEnded: "current"}, nil
}

func (h *Handlers) endSession(ctx context.Context, m commands.Meta, s *domain.Session, reason string) error {
	st := s.Started()
	m.OrganizationID = st.OrganizationID
	m.Actor = eventstore.Actor{ID: st.UserID, Type: "user"}
	m.IdempotencyKey = ""
	_, err := commands.Run(ctx, h.store, m, domain.StreamSession, st.SessionID,
		func(history []event.Recorded) ([]event.Change, string, error) {
			s, err := domain.LoadSession(history)
			if err != nil {
				return nil, "", err
			}
			changes, err := s.End(reason, h.now())
			return changes, st.SessionID, err
		})
	return err
}

// LogoutEverywhere ends every session of the principal's user: the user's
// session epoch rises (every session started before fails /validate at
// once, wherever it is), then the current session is ended explicitly.
func (h *Handlers) LogoutEverywhere(ctx context.Context, m commands.Meta, p domain.Principal) (LoggedOut, error) {
	if p.UserID == "" {
		return LoggedOut{}, errNotSession
	}
	if _, err := h.userCommand(ctx, m, p.UserID, (*domain.User).RevokeSessions); err != nil {
		return LoggedOut{}, err
	}
	if p.SessionID != "" {
		s, err := h.loadSession(ctx, p.SessionID)
		if err != nil {
			return LoggedOut{}, err
		}
		if s.Exists() {
			if err := h.endSession(ctx, m, s, domain.EndEverywhere); err != nil {
				return LoggedOut{}, err
			}
		}
	}
	return LoggedOut{SessionID: p.SessionID, UserID: p.UserID, SessionsEnded: "all"}, nil
}
