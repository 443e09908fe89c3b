package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
)

// ErrorDialect writes the error answers of an action in another API's
// shape instead of problem+json: the OpenAI- and Anthropic-compatible
// routes of the gateway, whose clients (the official SDKs) read their own
// error bodies. The status, the code, Retry-After and the request id are
// the kernel's, decided in the one place (problemFor); only the body's
// shape changes, on every error the route can answer: the kernel's checks
// (credential, permission, rate limit, media type, input schema), the
// action's own errors and an error after a stream started.
type ErrorDialect struct {
	// Name names the dialect's schema in the OpenAPI document
	// (components.schemas.<Name>Error).
	Name string
	// InvalidStatus is the status of invalid input (the SDKs' 400), in place
	// of the platform's 422.
	InvalidStatus int
	// Body is the error body of a problem answered with status.
	Body func(status int, p Problem) any
	// StreamEvent names the server-sent event of an error once a stream has
	// started ("" a plain data event); its data is Body's.
	StreamEvent string
	// Schema is the JSON Schema of Body's answers.
	Schema json.RawMessage
}

type dialectKey struct{}

// withDialect marks r: its errors are written in d's shape.
func withDialect(r *http.Request, d *ErrorDialect) *http.Request {
	if d.InvalidStatus != 0 {
		r = InvalidInputAs(r, d.InvalidStatus)
	}
	return r.WithContext(context.WithValue(r.Context(), dialectKey{}, d))
}

func dialectOf(ctx context.Context) *ErrorDialect {
	d, _ := ctx.Value(dialectKey{}).(*ErrorDialect)
	return d
}

// MessageOf is a problem said in one sentence for dialects that have no
// place for the failing members: the detail, then each member's pointer and
// what is wrong with it.
func MessageOf(p Problem) string {
	msg := p.Detail
	for _, f := range p.Errors {
		msg += "; " + f.Pointer + ": " + f.Detail
	}
	return msg
}

// dialectResponses are the error answers of an action with a dialect in
// the OpenAPI document: the same statuses as a problem's, the dialect's
// body, shared as components.responses.<Name>Error<status>.
func dialectResponses(a Action, invalid int, responses, shared map[string]any) {
	for _, status := range problemStatuses(a, invalid) {
		name := a.Errors.Name + "Error" + strconv.Itoa(status)
		r := map[string]any{"description": "an error in " + a.Errors.Name + "'s shape: " + http.StatusText(status),
			"content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/" + a.Errors.Name + "Error"}}}}
		if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
			r["headers"] = retryAfterHeader
		}
		shared[name] = r
		responses[strconv.Itoa(status)] = map[string]any{"$ref": "#/components/responses/" + name}
	}
}
