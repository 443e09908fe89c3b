package identity

import (
	"crypto/subtle"
	"slices"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// Session is one sign-in: a user in one active organization, with the hashes
// of its current access and refresh secrets. Refresh rotates both; a refresh
// secret presented again after rotation ends the session (theft detection).
type Session struct {
	started     SessionStartedV1
	access      string
	accessUntil time.Time
	refresh     string
	retired     []string // earlier refresh hashes
	ended       string   // end reason; "" while open
}

func LoadSession(history []event.Recorded) (*Session, error) {
	return sessionFold.Load(&Session{}, history)
}

var sessionFold = event.Fold[*Session]{
	SessionStarted: event.Apply(func(s *Session, p SessionStartedV1) {
		s.started = p
		s.access, s.refresh, s.accessUntil = p.AccessHash, p.RefreshHash, p.AccessExpiresAt
	}),
	SessionRefreshed: event.Apply(func(s *Session, p SessionRefreshedV1) {
		s.retired = append(s.retired, s.refresh)
		s.access, s.refresh, s.accessUntil = p.AccessHash, p.RefreshHash, p.AccessExpiresAt
	}),
	SessionEnded: event.Apply(func(s *Session, p SessionEndedV1) { s.ended = p.Reason }),
}

func (s *Session) Exists() bool              { return s.started.SessionID != "" }
func (s *Session) Started() SessionStartedV1 { return s.started }
func (s *Session) Ended() bool               { return s.ended != "" }
func (s *Session) EndReason() string         { return s.ended }

// Open reports whether the session may still be used at now.
func (s *Session) Open(now time.Time) bool {
	return s.Exists() && !s.Ended() && now.Before(s.started.ExpiresAt)
}

func Start(p SessionStartedV1) ([]event.Change, error) {
	if p.SessionID == "" || p.UserID == "" || p.OrganizationID == "" || p.AccessHash == "" || p.RefreshHash == "" {
		return nil, errs.InvalidField("", "a session needs its id, user, organization and token hashes")
	}
	return []event.Change{event.New(SessionStarted, p)}, nil
}

var errInvalidToken = errs.AuthenticationRequired("invalid or expired credential")

// AccessUntil is when the current access secret stops being accepted, all
// else unchanged: its own expiry or the session's, whichever comes first.
func (s *Session) AccessUntil() time.Time {
	if s.started.ExpiresAt.Before(s.accessUntil) {
		return s.started.ExpiresAt
	}
	return s.accessUntil
}

// CheckAccess verifies an access secret's hash: the current one, unexpired,
// on an open session. Every failure reads the same to the caller.
func (s *Session) CheckAccess(hash string, now time.Time) error {
	if !s.Open(now) || !now.Before(s.accessUntil) || subtle.ConstantTimeCompare([]byte(hash), []byte(s.access)) != 1 {
		return errInvalidToken
	}
	return nil
}

// CheckRefresh verifies a refresh secret's hash: the current one, on an open session.
func (s *Session) CheckRefresh(hash string, now time.Time) error {
	if !s.Open(now) || subtle.ConstantTimeCompare([]byte(hash), []byte(s.refresh)) != 1 {
		return errInvalidToken
	}
	return nil
}

// HoldsSecret reports whether a hash is the session's current access or
// refresh secret, whatever the session's state: logging out an ended
// session answers "already ended" only to a holder of its token.
func (s *Session) HoldsSecret(hash string) bool {
	a := subtle.ConstantTimeCompare([]byte(hash), []byte(s.access))
	r := subtle.ConstantTimeCompare([]byte(hash), []byte(s.refresh))
	return s.Exists() && a|r == 1
}

// Refresh rotates both secrets when the presented refresh hash is the current
// one. A retired refresh hash means the token was copied: the session ends
// (reused reports it; the caller answers 401 after recording the end).
func (s *Session) Refresh(presented string, next SessionRefreshedV1, now time.Time) (changes []event.Change, reused bool, err error) {
	if s.Open(now) && slices.Contains(s.retired, presented) {
		return []event.Change{event.New(SessionEnded, SessionEndedV1{SessionID: s.started.SessionID, Reason: EndRefreshReused, At: now})}, true, nil
	}
	if err := s.CheckRefresh(presented, now); err != nil {
		return nil, false, err
	}
	next.SessionID, next.At = s.started.SessionID, now
	return []event.Change{event.New(SessionRefreshed, next)}, false, nil
}

// End closes an open session; ending twice changes nothing.
func (s *Session) End(reason string, now time.Time) ([]event.Change, error) {
	if !s.Exists() {
		return nil, errs.NotFound("session")
	}
	if s.Ended() {
		return nil, nil
	}
	return []event.Change{event.New(SessionEnded, SessionEndedV1{SessionID: s.started.SessionID, Reason: reason, At: now})}, nil
}
