package fake

import (
	"net/http"
	"strconv"

	"github.com/platform/backend/providers/social/socialfake"
)

// dialect renders problems as LinkedIn does: {status, serviceErrorCode,
// code, message} on the API, RFC 6749 errors on the token endpoint (a bad
// code or refresh token as invalid_request, as LinkedIn answers).
type dialect struct{ f *Fake }

func (d dialect) WriteProblem(w http.ResponseWriter, r *http.Request, op string, p socialfake.Problem) {
	if op == socialfake.OpToken {
		tokenProblem(w, p)
		return
	}
	apiError := func(status, service int, code, message string) {
		body := map[string]any{"status": status, "message": message}
		if service != 0 {
			body["serviceErrorCode"] = service
		}
		if code != "" {
			body["code"] = code
		}
		socialfake.WriteJSON(w, status, body)
	}
	switch p.Kind {
	case socialfake.ProblemRateLimited:
		w.Header().Set("Retry-After", strconv.Itoa(int(p.RetryAfter.Seconds())))
		apiError(http.StatusTooManyRequests, 101, "TOO_MANY_REQUESTS", "Resource level throttle APPLICATION DAY limit for calls to this resource is reached.")
	case socialfake.ProblemServerError:
		apiError(http.StatusInternalServerError, 0, "", "Internal Server Error")
	case socialfake.ProblemTokenExpired:
		apiError(http.StatusUnauthorized, 65602, "EXPIRED_ACCESS_TOKEN", "The token used in the request has expired")
	case socialfake.ProblemTokenInvalid:
		apiError(http.StatusUnauthorized, 65600, "INVALID_ACCESS_TOKEN", "Invalid access token")
	case socialfake.ProblemScopeMissing:
		apiError(http.StatusForbidden, 100, "ACCESS_DENIED", "Not enough permissions to access: "+p.Reason)
	case socialfake.ProblemRejected:
		switch p.Reason {
		case socialfake.ReasonTooLong:
			apiError(http.StatusUnprocessableEntity, 0, "", "ERROR :: /commentary :: length of commentary exceeds the maximum of 3000")
		case socialfake.ReasonMediaInvalid:
			apiError(http.StatusBadRequest, 0, "", "ERROR :: /content/media/id :: urn:li:image is not available")
		case socialfake.ReasonBlocked:
			apiError(http.StatusForbidden, 0, "", "Member is restricted from posting")
		default:
			apiError(http.StatusUnprocessableEntity, 0, "", "Content is a duplicate of "+d.lastShare())
		}
	case socialfake.ProblemNotFound:
		apiError(http.StatusNotFound, 0, "", "Not Found")
	default:
		apiError(http.StatusBadRequest, 0, "", "Invalid request: "+p.Reason)
	}
}

// lastShare is the URN a duplicate rejection names: the newest post.
func (d dialect) lastShare() string {
	posts := d.f.Posts()
	if len(posts) == 0 {
		return "urn:li:share:7000000000000000000"
	}
	return posts[len(posts)-1].ID
}

func tokenProblem(w http.ResponseWriter, p socialfake.Problem) {
	switch p.Kind {
	case socialfake.ProblemGrantInvalid:
		socialfake.WriteJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request",
			"error_description": "Unable to retrieve access token: appid/redirect uri/code verifier does not match authorization code. Or authorization code expired. Or refresh token is invalid"})
	case socialfake.ProblemClientInvalid:
		socialfake.WriteJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client", "error_description": "Client authentication failed"})
	case socialfake.ProblemRateLimited:
		w.Header().Set("Retry-After", strconv.Itoa(int(p.RetryAfter.Seconds())))
		socialfake.WriteJSON(w, http.StatusTooManyRequests, map[string]string{"error": "too_many_requests"})
	case socialfake.ProblemServerError:
		socialfake.WriteJSON(w, http.StatusInternalServerError, map[string]string{"error": "server_error"})
	default:
		socialfake.WriteJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request", "error_description": p.Reason})
	}
}
