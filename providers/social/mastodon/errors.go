package mastodon

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/social"
)

// classify reads Mastodon's {"error": "..."} bodies: the words say which
// refusal it is.
func classify(op string, a *social.Answer) *social.Error {
	if a.Status/100 == 2 {
		return nil
	}
	var body struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(a.Body, &body)
	msg := strings.ToLower(body.Error)
	fail := func(k outcome.Kind, reason string) *social.Error { return social.Fail(name, op, k, reason, a.Status) }
	switch {
	case a.Status == http.StatusUnauthorized:
		return fail(outcome.Unauthorized, social.ReasonTokenInvalid)
	case a.Status == http.StatusForbidden && strings.Contains(msg, "scope"):
		return fail(outcome.Unauthorized, social.ReasonScopeMissing)
	case a.Status == http.StatusForbidden:
		return fail(outcome.Rejected, social.ReasonBlocked)
	case a.Status == http.StatusNotFound && op == "publish":
		// The status replied to is gone (or never was).
		return fail(outcome.Rejected, social.ReasonReplyTarget)
	case a.Status == http.StatusUnprocessableEntity && strings.Contains(msg, "character limit"):
		return fail(outcome.Rejected, social.ReasonTooLong)
	case a.Status == http.StatusUnprocessableEntity && (strings.Contains(msg, "media") || strings.Contains(msg, "file")):
		return fail(outcome.Rejected, social.ReasonMediaInvalid)
	}
	return nil
}
