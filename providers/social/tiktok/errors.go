package tiktok

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/social"
)

// envelope is the error part of every TikTok API answer; code "ok" is a
// success.
type envelope struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		LogID   string `json:"log_id"`
	} `json:"error"`
}

// classify reads TikTok's error codes, whatever the HTTP status says.
func classify(op string, a *social.Answer) *social.Error {
	var env envelope
	if json.Unmarshal(a.Body, &env) != nil || env.Error.Code == "" || env.Error.Code == "ok" {
		return nil
	}
	status := a.Status
	if status/100 == 2 {
		status = http.StatusBadRequest
	}
	e := byCode(op, env.Error.Code, env.Error.Message, status)
	e.Code = env.Error.Code
	return e
}

// byCode maps TikTok's error codes (and a failed publish's fail_reason) to
// kinds.
func byCode(op, code, message string, status int) *social.Error {
	fail := func(k outcome.Kind, reason string) *social.Error { return social.Fail(name, op, k, reason, status) }
	msg := strings.ToLower(message)
	switch code {
	case "access_token_invalid":
		return fail(outcome.Unauthorized, social.ReasonTokenInvalid)
	case "scope_not_authorized", "scope_permission_missed":
		return fail(outcome.Unauthorized, social.ReasonScopeMissing)
	case "rate_limit_exceeded", "reached_active_user_cap":
		return fail(outcome.RateLimited, social.ReasonRateLimited)
	case "spam_risk_too_many_posts", "spam_risk_too_many_pending_share":
		// The creator's daily cap: a rolling day.
		e := fail(outcome.RateLimited, social.ReasonRateLimited)
		e.RetryAfter = 24 * time.Hour
		return e
	case "spam_risk_user_banned_from_posting", "spam_risk":
		return fail(outcome.Rejected, social.ReasonBlocked)
	case "privacy_level_option_mismatch", "unaudited_client_can_only_post_to_private_accounts":
		return fail(outcome.Rejected, social.ReasonVisibility)
	case "url_ownership_unverified", "file_format_check_failed", "duration_check_failed", "frame_rate_check_failed",
		"picture_size_check_failed", "video_pull_failed", "photo_pull_failed", "invalid_file_upload":
		return fail(outcome.Rejected, social.ReasonMediaInvalid)
	case "internal_error", "internal":
		return fail(outcome.ProviderFault, social.ReasonServerError)
	case "publish_cancelled":
		return fail(outcome.Rejected, "cancelled")
	}
	switch {
	case strings.Contains(msg, "too long") || strings.Contains(msg, "exceeds"):
		return fail(outcome.Rejected, social.ReasonTooLong)
	case status/100 == 5:
		return fail(outcome.ProviderFault, social.ReasonServerError)
	}
	return fail(outcome.Rejected, social.ReasonInvalid)
}

// classifyToken reads the token endpoint's RFC 6749 errors, which TikTok
// may answer with any status.
func classifyToken(op string, a *social.Answer) *social.Error {
	var body struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(a.Body, &body) != nil || body.Error == "" {
		return nil
	}
	return social.OAuthErrorKind(name, op, a.Status, body.Error)
}
