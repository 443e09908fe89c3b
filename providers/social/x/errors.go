package x

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/social"
)

// problem is X API v2's error body: an RFC 7807 problem, sometimes with
// errors[] for invalid parameters.
type problem struct {
	Title  string `json:"title"`
	Detail string `json:"detail"`
	Type   string `json:"type"`
	Status int    `json:"status"`
	Errors []struct {
		Message string `json:"message"`
	} `json:"errors"`
}

// classify reads X's errors. X says why only in words (detail, errors[]
// messages), so the few that matter are recognized by them; the rest go by
// status.
func classify(op string, a *social.Answer) *social.Error {
	if a.Status/100 == 2 {
		return nil
	}
	var p problem
	_ = json.Unmarshal(a.Body, &p)
	words := strings.ToLower(p.Title + " " + p.Detail + " " + p.Type)
	for _, e := range p.Errors {
		words += " " + strings.ToLower(e.Message)
	}
	fail := func(k outcome.Kind, reason string) *social.Error { return social.Fail(name, op, k, reason, a.Status) }
	switch {
	case a.Status == http.StatusTooManyRequests:
		return fail(outcome.RateLimited, social.ReasonRateLimited) // the reset header is read by the caller
	case a.Status == http.StatusUnauthorized:
		return fail(outcome.Unauthorized, social.ReasonTokenInvalid)
	case strings.Contains(words, "duplicate"):
		return fail(outcome.Rejected, social.ReasonDuplicate)
	case strings.Contains(words, "too long"):
		return fail(outcome.Rejected, social.ReasonTooLong)
	case strings.Contains(words, "deleted or not visible"):
		return fail(outcome.Rejected, social.ReasonReplyTarget)
	case strings.Contains(words, "scope") || strings.Contains(words, "unsupported-authentication"):
		return fail(outcome.Unauthorized, social.ReasonScopeMissing)
	case strings.Contains(words, "media"):
		return fail(outcome.Rejected, social.ReasonMediaInvalid)
	case strings.Contains(words, "not permitted"):
		return fail(outcome.Rejected, social.ReasonBlocked)
	}
	return nil
}

// classifyToken reads the token endpoint's errors. X answers an invalid,
// used or revoked refresh token (or code) with invalid_request, not
// invalid_grant, so its description decides.
func classifyToken(op string, a *social.Answer) *social.Error {
	if a.Status/100 == 2 {
		return nil
	}
	var body struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	_ = json.Unmarshal(a.Body, &body)
	if body.Error == "invalid_request" && strings.Contains(strings.ToLower(body.Description), "token was invalid") {
		body.Error = "invalid_grant"
	}
	return social.OAuthErrorKind(name, op, a.Status, body.Error)
}
