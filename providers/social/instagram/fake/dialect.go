package fake

import (
	"fmt"
	"net/http"

	"github.com/platform/backend/providers/social/graphapi/graphfake"
	"github.com/platform/backend/providers/social/socialfake"
)

// dialect is Graph's, except for api.instagram.com's code exchange, which
// answers {error_type, code, error_message}.
type dialect struct{ graph graphfake.Dialect }

func (d dialect) WriteProblem(w http.ResponseWriter, r *http.Request, op string, p socialfake.Problem) {
	if op == socialfake.OpToken && r.URL.Path == "/oauth/access_token" {
		message := map[socialfake.ProblemKind]string{
			socialfake.ProblemGrantInvalid:  "Invalid authorization code",
			socialfake.ProblemClientInvalid: "Invalid platform app",
		}[p.Kind]
		status := http.StatusBadRequest
		switch p.Kind {
		case socialfake.ProblemServerError:
			status, message = http.StatusInternalServerError, "An unknown error has occurred"
		case socialfake.ProblemRateLimited:
			status, message = http.StatusTooManyRequests, "Too many requests"
		}
		if message == "" {
			message = fmt.Sprintf("Invalid request: %s", p.Reason)
		}
		socialfake.WriteJSON(w, status, map[string]any{"error_type": "OAuthException", "code": status, "error_message": message})
		return
	}
	d.graph.WriteProblem(w, r, op, p)
}
