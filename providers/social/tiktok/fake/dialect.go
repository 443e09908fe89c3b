package fake

import (
	"net/http"
	"strconv"

	"github.com/platform/backend/providers/social/socialfake"
)

// dialect renders problems as TikTok does: {"data": {}, "error": {code,
// message, log_id}} with the status TikTok documents for the code; RFC 6749
// errors on the token endpoint.
type dialect struct{ f *Fake }

func (d dialect) WriteProblem(w http.ResponseWriter, r *http.Request, op string, p socialfake.Problem) {
	if p.Kind == socialfake.ProblemRateLimited {
		w.Header().Set("Retry-After", strconv.Itoa(int(p.RetryAfter.Seconds())))
	}
	if op == socialfake.OpToken {
		code, status := map[socialfake.ProblemKind]string{
			socialfake.ProblemGrantInvalid: "invalid_grant", socialfake.ProblemClientInvalid: "invalid_client",
			socialfake.ProblemServerError: "server_error", socialfake.ProblemRateLimited: "rate_limit_exceeded",
		}[p.Kind], http.StatusBadRequest
		switch p.Kind {
		case socialfake.ProblemServerError:
			status = http.StatusInternalServerError
		case socialfake.ProblemRateLimited:
			status = http.StatusTooManyRequests
		}
		if code == "" {
			code = "invalid_request"
		}
		socialfake.WriteJSON(w, status, map[string]string{"error": code, "error_description": "Fake TikTok: " + string(p.Kind), "log_id": "20260501120041FAKE0002"})
		return
	}
	status, code, message := http.StatusBadRequest, "invalid_params", "Invalid parameters: "+p.Reason
	switch p.Kind {
	case socialfake.ProblemRateLimited:
		status, code, message = http.StatusTooManyRequests, "rate_limit_exceeded", "API rate limit was exceeded"
	case socialfake.ProblemServerError:
		status, code, message = http.StatusInternalServerError, "internal_error", "Something went wrong"
	case socialfake.ProblemTokenExpired, socialfake.ProblemTokenInvalid:
		status, code, message = http.StatusUnauthorized, "access_token_invalid", "The access token is invalid or not found in the request."
	case socialfake.ProblemScopeMissing:
		status, code, message = http.StatusUnauthorized, "scope_not_authorized", "The user did not authorize the scope required for completing this request."
	case socialfake.ProblemRejected:
		switch p.Reason {
		case socialfake.ReasonTooLong:
			message = "The title is too long"
		case socialfake.ReasonMediaInvalid:
			status, code, message = http.StatusForbidden, "url_ownership_unverified", "The domain of the media URL is not verified"
		case socialfake.ReasonBlocked:
			status, code, message = http.StatusForbidden, "spam_risk_user_banned_from_posting", "The user is banned from posting"
		}
	}
	socialfake.WriteJSON(w, status, map[string]any{"data": map[string]any{},
		"error": map[string]string{"code": code, "message": message, "log_id": "20260501120041FAKE0003"}})
}
