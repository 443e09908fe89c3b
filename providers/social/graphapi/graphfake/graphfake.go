// Package graphfake renders problems the way Meta's Graph API does, for the
// Facebook and Instagram fakes: {"error": {message, type, code,
// error_subcode, fbtrace_id}} with Graph's codes (190 tokens, 200
// permissions, 4/32 rate limits with the X-Business-Use-Case-Usage header,
// 368 blocked, 506 duplicate, 100 parameters, 1 unknown).
package graphfake

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/platform/backend/providers/social/socialfake"
)

// Dialect is the Graph API's error dialect. Business is the id the usage
// header is keyed by (the page or account).
type Dialect struct {
	Business string
}

// Error is one Graph error body.
type Error struct {
	Status  int
	Message string
	Type    string
	Code    int
	Subcode int
}

// Write answers a Graph error.
func Write(w http.ResponseWriter, e Error) {
	body := map[string]any{"message": e.Message, "type": e.Type, "code": e.Code, "fbtrace_id": "AbCdEfGhIjK"}
	if e.Type == "" {
		body["type"] = "OAuthException"
	}
	if e.Subcode != 0 {
		body["error_subcode"] = e.Subcode
	}
	w.Header().Set("WWW-Authenticate", `OAuth "Facebook Platform" "invalid_request"`)
	socialfake.WriteJSON(w, e.Status, map[string]any{"error": body})
}

// Of is the Graph error a problem is answered with.
func (d Dialect) Of(op string, p socialfake.Problem) Error {
	switch p.Kind {
	case socialfake.ProblemRateLimited:
		if op == socialfake.OpToken {
			return Error{Status: 400, Code: 4, Message: "(#4) Application request limit reached"}
		}
		return Error{Status: 400, Code: 32, Message: "(#32) Page request limit reached"}
	case socialfake.ProblemServerError:
		return Error{Status: 500, Code: 1, Message: "An unknown error has occurred."}
	case socialfake.ProblemTokenExpired:
		return Error{Status: 400, Code: 190, Subcode: 463, Message: "Error validating access token: Session has expired."}
	case socialfake.ProblemTokenInvalid:
		return Error{Status: 400, Code: 190, Message: "Invalid OAuth access token - Cannot parse access token"}
	case socialfake.ProblemScopeMissing:
		return Error{Status: 403, Code: 200, Message: "(#200) The user hasn't authorized the application to perform this action"}
	case socialfake.ProblemGrantInvalid:
		return Error{Status: 400, Code: 100, Subcode: 36009, Message: "This authorization code has been used."}
	case socialfake.ProblemClientInvalid:
		return Error{Status: 400, Code: 101, Message: "Error validating application. Invalid application ID."}
	case socialfake.ProblemNotFound:
		return Error{Status: 400, Code: 100, Subcode: 33, Message: "Unsupported post request. Object does not exist."}
	case socialfake.ProblemRejected:
		switch p.Reason {
		case socialfake.ReasonTooLong:
			return Error{Status: 400, Code: 100, Message: "(#100) Param message must be at most 63206 characters long"}
		case socialfake.ReasonMediaInvalid:
			return Error{Status: 400, Code: 324, Message: "(#324) Missing or invalid image file"}
		case socialfake.ReasonBlocked:
			return Error{Status: 400, Code: 368, Message: "The action attempted has been deemed abusive or is otherwise disallowed"}
		}
		return Error{Status: 400, Code: 506, Message: "Duplicate status message"}
	}
	return Error{Status: 400, Code: 100, Message: "(#100) Invalid parameter " + p.Reason}
}

// WriteProblem implements socialfake.Dialect.
func (d Dialect) WriteProblem(w http.ResponseWriter, r *http.Request, op string, p socialfake.Problem) {
	if p.Kind == socialfake.ProblemRateLimited && op != socialfake.OpToken {
		minutes := int((p.RetryAfter + 59e9) / 60e9)
		usage, _ := json.Marshal(map[string]any{d.Business: []map[string]any{{
			"type": "pages", "call_count": 100, "total_cputime": 20, "total_time": 25, "estimated_time_to_regain_access": minutes,
		}}})
		w.Header().Set("X-Business-Use-Case-Usage", string(usage))
	}
	Write(w, d.Of(op, p))
}

// ID formats a Graph id: a prefix and a zero-padded sequence number.
func ID(prefix string, n int) string { return fmt.Sprintf("%s%013d", prefix, n) }
