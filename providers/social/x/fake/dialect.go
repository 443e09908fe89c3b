package fake

import (
	"net/http"
	"strconv"

	"github.com/platform/backend/providers/social/socialfake"
)

// dialect renders problems as X API v2 does: RFC 7807 problems on the API,
// RFC 6749 errors on the token endpoint (invalid tokens as invalid_request,
// as X does), x-rate-limit-* headers on 429.
type dialect struct{ f *Fake }

func (d dialect) WriteProblem(w http.ResponseWriter, r *http.Request, op string, p socialfake.Problem) {
	if op == socialfake.OpToken {
		d.tokenProblem(w, p)
		return
	}
	problem := func(status int, title, detail, typ string) {
		w.Header().Set("Content-Type", "application/problem+json")
		socialfake.WriteJSON(w, status, map[string]any{"title": title, "detail": detail, "type": typ, "status": status})
	}
	switch p.Kind {
	case socialfake.ProblemRateLimited:
		reset := d.f.Now().Add(p.RetryAfter)
		secs := reset.Unix()
		if reset.Nanosecond() > 0 {
			secs++
		}
		w.Header().Set("x-rate-limit-limit", "100")
		w.Header().Set("x-rate-limit-remaining", "0")
		w.Header().Set("x-rate-limit-reset", strconv.FormatInt(secs, 10))
		problem(http.StatusTooManyRequests, "Too Many Requests", "Too Many Requests", "about:blank")
	case socialfake.ProblemServerError:
		problem(http.StatusInternalServerError, "Internal Server Error", "Something went wrong.", "about:blank")
	case socialfake.ProblemTokenExpired, socialfake.ProblemTokenInvalid:
		problem(http.StatusUnauthorized, "Unauthorized", "Unauthorized", "about:blank")
	case socialfake.ProblemScopeMissing:
		problem(http.StatusForbidden, "Forbidden", "Missing required OAuth 2.0 scope "+p.Reason+".",
			"https://api.twitter.com/2/problems/unsupported-authentication")
	case socialfake.ProblemNotFound:
		problem(http.StatusForbidden, "Forbidden", "You attempted to reply to a Tweet that is deleted or not visible to you.", "about:blank")
	case socialfake.ProblemRejected:
		switch p.Reason {
		case socialfake.ReasonTooLong:
			invalid(w, "Your Tweet text is too long.")
		case socialfake.ReasonMediaInvalid:
			invalid(w, "Your media IDs are invalid.")
		case socialfake.ReasonBlocked:
			problem(http.StatusForbidden, "Forbidden", "You are not permitted to perform this action.", "about:blank")
		default:
			problem(http.StatusForbidden, "Forbidden", "You are not allowed to create a Tweet with duplicate content.", "about:blank")
		}
	default:
		invalid(w, "One or more parameters to your request was invalid.")
	}
}

func invalid(w http.ResponseWriter, message string) {
	socialfake.WriteJSON(w, http.StatusBadRequest, map[string]any{
		"errors": []map[string]any{{"message": message}},
		"title":  "Invalid Request", "detail": "One or more parameters to your request was invalid.",
		"type": "https://api.twitter.com/2/problems/invalid-request",
	})
}

func (d dialect) tokenProblem(w http.ResponseWriter, p socialfake.Problem) {
	switch p.Kind {
	case socialfake.ProblemGrantInvalid:
		socialfake.WriteJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request", "error_description": "Value passed for the token was invalid."})
	case socialfake.ProblemClientInvalid:
		socialfake.WriteJSON(w, http.StatusUnauthorized, map[string]string{"error": "unauthorized_client", "error_description": "Missing valid authorization header"})
	case socialfake.ProblemRateLimited:
		w.Header().Set("Retry-After", strconv.Itoa(int(p.RetryAfter.Seconds())))
		socialfake.WriteJSON(w, http.StatusTooManyRequests, map[string]string{"error": "rate_limited"})
	case socialfake.ProblemServerError:
		socialfake.WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "temporarily_unavailable"})
	default:
		socialfake.WriteJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request", "error_description": p.Reason})
	}
}
