package socialfake

import (
	"net/http"
	"time"

	"github.com/platform/backend/providers/fakekit"
)

// ProblemKind is a refusal a fake renders in its network's shape.
type ProblemKind string

const (
	ProblemRateLimited  ProblemKind = "rate_limited"
	ProblemServerError  ProblemKind = "server_error"
	ProblemTokenExpired ProblemKind = "token_expired"
	ProblemTokenInvalid ProblemKind = "token_invalid" // unknown or revoked token
	ProblemScopeMissing ProblemKind = "scope_missing"
	ProblemRejected     ProblemKind = "rejected" // content refused: Reason says why
	ProblemInvalid      ProblemKind = "invalid"  // a malformed request: Reason says what
	ProblemNotFound     ProblemKind = "not_found"
	// OAuth token endpoint problems.
	ProblemGrantInvalid  ProblemKind = "invalid_grant"
	ProblemClientInvalid ProblemKind = "invalid_client"
)

// Rejection reasons the fakes use.
const (
	ReasonDuplicate    = "duplicate"
	ReasonTooLong      = "too_long"
	ReasonMediaInvalid = "media_invalid"
	ReasonBlocked      = "blocked"
)

// Problem is one refusal.
type Problem struct {
	Kind       ProblemKind
	Reason     string
	RetryAfter time.Duration // rate limits
}

// Dialect renders problems the way one network does: its status codes,
// headers and error bodies.
type Dialect interface {
	WriteProblem(w http.ResponseWriter, r *http.Request, op string, p Problem)
}

// problemOf is the problem a scripted fault answers with.
func problemOf(f fakekit.Fault) Problem {
	switch f.Kind {
	case fakekit.RateLimit:
		return Problem{Kind: ProblemRateLimited, RetryAfter: f.Wait()}
	case fakekit.Unauthorized:
		return Problem{Kind: ProblemTokenInvalid}
	case TokenExpired:
		return Problem{Kind: ProblemTokenExpired}
	case GrantRevoked:
		return Problem{Kind: ProblemGrantInvalid}
	case fakekit.Reject:
		reason := f.Code
		if reason == "" {
			reason = ReasonDuplicate
		}
		return Problem{Kind: ProblemRejected, Reason: reason}
	}
	return Problem{Kind: ProblemServerError}
}
