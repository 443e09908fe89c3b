package fake

import (
	"net/http"

	"github.com/platform/backend/providers/social/socialfake"
)

// dialect renders problems as Mastodon does: {"error": "..."} (with
// error_description on the OAuth endpoints) and X-RateLimit-* headers.
type dialect struct{ f *Fake }

func (d dialect) WriteProblem(w http.ResponseWriter, r *http.Request, op string, p socialfake.Problem) {
	if p.Kind == socialfake.ProblemRateLimited {
		w.Header().Set("X-RateLimit-Limit", "300")
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", d.f.Now().Add(p.RetryAfter).UTC().Format("2006-01-02T15:04:05.000000Z"))
	}
	if op == socialfake.OpToken {
		code, status := "invalid_request", http.StatusBadRequest
		switch p.Kind {
		case socialfake.ProblemGrantInvalid:
			code = "invalid_grant"
		case socialfake.ProblemClientInvalid:
			code, status = "invalid_client", http.StatusUnauthorized
		case socialfake.ProblemServerError:
			code, status = "server_error", http.StatusInternalServerError
		case socialfake.ProblemRateLimited:
			code, status = "rate_limited", http.StatusTooManyRequests
		}
		socialfake.WriteJSON(w, status, map[string]string{"error": code, "error_description": "Fake Mastodon: " + string(p.Kind)})
		return
	}
	status, message := http.StatusUnprocessableEntity, "Validation failed: "+p.Reason
	switch p.Kind {
	case socialfake.ProblemRateLimited:
		status, message = http.StatusTooManyRequests, "Too many requests"
	case socialfake.ProblemServerError:
		status, message = http.StatusInternalServerError, "We're sorry, but something went wrong on our end."
	case socialfake.ProblemTokenExpired, socialfake.ProblemTokenInvalid:
		status, message = http.StatusUnauthorized, "The access token is invalid"
	case socialfake.ProblemScopeMissing:
		status, message = http.StatusForbidden, "This action is outside the authorized scopes"
	case socialfake.ProblemNotFound:
		status, message = http.StatusNotFound, "Record not found"
	case socialfake.ProblemRejected:
		switch p.Reason {
		case socialfake.ReasonTooLong:
			message = "Validation failed: Text character limit of 500 exceeded"
		case socialfake.ReasonMediaInvalid:
			message = "Validation failed: File content type is invalid"
		case socialfake.ReasonBlocked:
			status, message = http.StatusForbidden, "Your login is currently disabled"
		}
	}
	socialfake.WriteJSON(w, status, map[string]string{"error": message})
}
