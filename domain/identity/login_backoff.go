package identity

import (
	"math"
	"time"

	"github.com/platform/backend/domain/errs"
)

// Per-account password backoff. The per-address attempt limit alone let an
// attacker with a few addresses try 20 passwords from each (black-box
// attack run). Each account (by the keyed hash of its email, so an address
// with no account behaves the same) counts its consecutive password
// failures; after LoginFreeFailures of them every password attempt waits
// out a window that doubles with each further failure (1 s, 2 s, 4 s ...,
// at most LoginBackoffCap). During the window a password attempt is refused
// before the password is even checked (429 rate_limited, Retry-After).
//
// It is a delay, not a lockout, and only of password guesses: sessions
// already signed in go on, a magic link or an SSO code still signs in, and a
// completed password reset clears the count (it proves the mailbox), so an
// attacker who knows an email cannot keep its owner out.
const (
	LoginFreeFailures  = 5
	LoginBackoffBase   = time.Second
	LoginBackoffCap    = 15 * time.Minute
	LoginFailureMemory = 24 * time.Hour // a run of failures this old is forgotten
)

// LoginFailures is one account's current run of failed password attempts
// (write-side state in PostgreSQL, not events: a guess is not a fact anyone
// audits, and an event per guess would let guessing grow the log).
type LoginFailures struct {
	Failures      int
	LastFailureAt time.Time
	BlockedUntil  time.Time
}

// LoginBackoff is the window that follows the n-th consecutive failure:
// none before LoginFreeFailures, then doubling from LoginBackoffBase up to
// LoginBackoffCap.
func LoginBackoff(n int) time.Duration {
	if n < LoginFreeFailures {
		return 0
	}
	exp := n - LoginFreeFailures
	if exp >= 30 || LoginBackoffBase*time.Duration(1<<exp) >= LoginBackoffCap {
		return LoginBackoffCap
	}
	return LoginBackoffBase * time.Duration(1<<exp)
}

// Check refuses a password attempt during the backoff window, with the
// seconds left (rounded up) for Retry-After.
func (f LoginFailures) Check(now time.Time) error {
	if wait := f.BlockedUntil.Sub(now); wait > 0 {
		e := errs.RateLimited(int(math.Ceil(wait.Seconds())))
		e.Message = "too many wrong passwords for this account: try again after Retry-After seconds, " +
			"or sign in with an emailed link or reset the password"
		return e
	}
	return nil
}

// Attempt is the state once an attempt at now is counted. Attempts are
// counted as failures before the password is checked (a success then
// clears the run), so concurrent guesses cannot all slip in before the
// first failure is recorded. A run older than LoginFailureMemory starts over.
func (f LoginFailures) Attempt(now time.Time) LoginFailures {
	if !f.LastFailureAt.IsZero() && now.Sub(f.LastFailureAt) > LoginFailureMemory {
		f = LoginFailures{}
	}
	f.Failures++
	f.LastFailureAt = now
	f.BlockedUntil = time.Time{}
	if d := LoginBackoff(f.Failures); d > 0 {
		f.BlockedUntil = now.Add(d)
	}
	return f
}
