package linkedin

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/social"
)

// apiError is LinkedIn's error body.
type apiError struct {
	Status           int    `json:"status"`
	ServiceErrorCode int    `json:"serviceErrorCode"`
	Code             string `json:"code"`
	Message          string `json:"message"`
}

var duplicateOf = regexp.MustCompile(`urn:li:(share|ugcPost):[0-9]+`)

// classify reads LinkedIn's errors: the code names token trouble, the
// message names duplicates (with the existing post's URN), lengths and
// media.
func (c *Client) classify(op string, a *social.Answer) *social.Error {
	if a.Status/100 == 2 {
		return nil
	}
	var body apiError
	_ = json.Unmarshal(a.Body, &body)
	msg := strings.ToLower(body.Message)
	fail := func(k outcome.Kind, reason string) *social.Error {
		e := social.Fail(name, op, k, reason, a.Status)
		e.Code = body.Code
		return e
	}
	switch {
	case a.Status == http.StatusUnauthorized && body.Code == "EXPIRED_ACCESS_TOKEN":
		return fail(outcome.Unauthorized, social.ReasonTokenExpired)
	case a.Status == http.StatusUnauthorized && body.Code == "REVOKED_ACCESS_TOKEN":
		return fail(outcome.Unauthorized, social.ReasonTokenRevoked)
	case a.Status == http.StatusUnauthorized:
		return fail(outcome.Unauthorized, social.ReasonTokenInvalid)
	case a.Status == http.StatusForbidden && body.Code == "ACCESS_DENIED":
		return fail(outcome.Unauthorized, social.ReasonScopeMissing)
	case a.Status == http.StatusTooManyRequests:
		e := fail(outcome.RateLimited, social.ReasonRateLimited)
		now := c.call.Now().UTC()
		if e.RetryAfter, e.ResetAt = social.WaitFromHeaders(a.Header, now); e.ResetAt.IsZero() {
			// LinkedIn's limits are per day and reset at midnight UTC; it
			// usually sends no header.
			e.ResetAt = time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC)
			e.RetryAfter = e.ResetAt.Sub(now).Round(time.Second)
		}
		return e
	case strings.Contains(msg, "duplicate"):
		e := fail(outcome.Rejected, social.ReasonDuplicate)
		e.DuplicateOf = duplicateOf.FindString(body.Message)
		return e
	case strings.Contains(msg, "/commentary") && strings.Contains(msg, "length"):
		return fail(outcome.Rejected, social.ReasonTooLong)
	case strings.Contains(msg, "/content/media") || strings.Contains(msg, "urn:li:image"):
		return fail(outcome.Rejected, social.ReasonMediaInvalid)
	case a.Status == http.StatusUnprocessableEntity || a.Status == http.StatusBadRequest:
		return fail(outcome.Rejected, social.ReasonInvalid)
	}
	return nil
}

// classifyToken reads the token endpoint's errors. LinkedIn answers a bad,
// used or expired code or refresh token with invalid_request and words
// about the code or token, so those are revoked grants.
func classifyToken(op string, a *social.Answer) *social.Error {
	if a.Status/100 == 2 {
		return nil
	}
	var body struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	_ = json.Unmarshal(a.Body, &body)
	desc := strings.ToLower(body.Description)
	if body.Error == "invalid_request" && (strings.Contains(desc, "authorization code") || strings.Contains(desc, "refresh token")) {
		body.Error = "invalid_grant"
	}
	return social.OAuthErrorKind(name, op, a.Status, body.Error)
}
