// Package graphapi is what Facebook (network_3) and Instagram (network_4)
// share of Meta's Graph API: its error body, the classification of its
// error codes, and the Business Use Case usage header that says when a
// rate limit ends.
package graphapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/social"
)

// Error is the Graph API's error body: {"error": {...}}.
type Error struct {
	Message     string `json:"message"`
	Type        string `json:"type"`
	Code        int    `json:"code"`
	Subcode     int    `json:"error_subcode"`
	FBTraceID   string `json:"fbtrace_id"`
	IsTransient bool   `json:"is_transient"`
	UserTitle   string `json:"error_user_title"`
	UserMessage string `json:"error_user_msg"`
}

// Parse reads a Graph error body; ok is false when the body is not one.
func Parse(body []byte) (Error, bool) {
	var b struct {
		Error *Error `json:"error"`
	}
	if err := json.Unmarshal(body, &b); err != nil || b.Error == nil || b.Error.Code == 0 {
		return Error{}, false
	}
	return *b.Error, true
}

// Classifier reads Graph errors for a network. The code decides, the
// subcode refines; a body that is not a Graph error is left to its status.
//
//	190 (and 102): the token is expired (subcode 463, 467) or revoked
//	    (458 app removed, 459 checkpoint, 460 password changed, 464, 492)
//	10, 200-299: a permission is missing
//	4, 17, 32, 613, 80001-80014: rate limits; 9 with 2207042: Instagram's
//	    posts-per-day limit
//	368: the account is blocked from posting; 506: a duplicate post
//	1, 2, or is_transient: Meta's own trouble; 9007 (2207027): an Instagram
//	    container not ready yet
//	100 and other 4xx: the request is refused (media, length, parameters)
func Classifier(network string, now func() time.Time) social.Classifier {
	return func(op string, a *social.Answer) *social.Error {
		if a.Status/100 == 2 {
			return nil
		}
		g, ok := Parse(a.Body)
		if !ok {
			return nil
		}
		e := Classify(network, op, a.Status, g)
		if e.Kind == outcome.RateLimited {
			e.RetryAfter, e.ResetAt = RegainAccess(a.Header, now())
			if e.ResetAt.IsZero() && g.Code == 9 && g.Subcode == 2207042 {
				// Instagram's daily publishing limit is a rolling 24 hours.
				e.RetryAfter, e.ResetAt = 24*time.Hour, now().Add(24*time.Hour)
			}
		}
		return e
	}
}

// Classify maps a Graph error to a kind.
func Classify(network, op string, status int, g Error) *social.Error {
	fail := func(k outcome.Kind, reason string) *social.Error {
		e := social.Fail(network, op, k, reason, status)
		e.Code = fmt.Sprint(g.Code)
		if g.Subcode != 0 {
			e.Code += fmt.Sprintf("/%d", g.Subcode)
		}
		return e
	}
	msg := strings.ToLower(g.Message + " " + g.UserMessage)
	switch {
	case g.Code == 190 || g.Code == 102:
		switch g.Subcode {
		case 463, 467:
			return fail(outcome.Unauthorized, social.ReasonTokenExpired)
		case 458, 459, 460, 464, 492:
			return fail(outcome.Unauthorized, social.ReasonTokenRevoked)
		}
		return fail(outcome.Unauthorized, social.ReasonTokenInvalid)
	case g.Code == 10 || (g.Code >= 200 && g.Code <= 299):
		return fail(outcome.Unauthorized, social.ReasonScopeMissing)
	case g.Code == 4 || g.Code == 17 || g.Code == 32 || g.Code == 613 || (g.Code >= 80001 && g.Code <= 80014) ||
		(g.Code == 9 && g.Subcode == 2207042):
		return fail(outcome.RateLimited, social.ReasonRateLimited)
	case g.Code == 368:
		return fail(outcome.Rejected, social.ReasonBlocked)
	case g.Code == 506:
		return fail(outcome.Rejected, social.ReasonDuplicate)
	case g.Code == 1 || g.Code == 2 || g.IsTransient || status/100 == 5:
		return fail(outcome.ProviderFault, social.ReasonServerError)
	case g.Code == 9007 || g.Subcode == 2207027:
		// Instagram: the container is not ready yet; wait and publish again.
		return fail(outcome.ProviderFault, social.ReasonProcessing)
	case strings.Contains(msg, "too long") || strings.Contains(msg, "at most"):
		return fail(outcome.Rejected, social.ReasonTooLong)
	case strings.Contains(msg, "media") || strings.Contains(msg, "image") || strings.Contains(msg, "video") || strings.Contains(msg, "url"):
		return fail(outcome.Rejected, social.ReasonMediaInvalid)
	}
	return fail(outcome.Rejected, social.ReasonInvalid)
}

// ClassifyToken reads the errors of the OAuth token exchanges: a code that
// is invalid, used or expired (100, OAuthException) and an invalid token
// (190) are revoked grants; an unknown app or secret (101, 1 on the token
// endpoint) is our configuration.
func ClassifyToken(network string, now func() time.Time) social.Classifier {
	api := Classifier(network, now)
	return func(op string, a *social.Answer) *social.Error {
		g, ok := Parse(a.Body)
		switch {
		case a.Status/100 == 2:
			return nil
		case ok && (g.Code == 190 || (g.Code == 100 && g.Type == "OAuthException")):
			e := Classify(network, op, a.Status, g)
			e.Kind, e.Reason = outcome.Unauthorized, social.ReasonGrantRevoked
			return e
		case ok && (g.Code == 101 || (g.Code == 1 && strings.Contains(strings.ToLower(g.Message), "client secret"))):
			e := Classify(network, op, a.Status, g)
			e.Kind, e.Reason = outcome.Rejected, social.ReasonClientRejected
			return e
		}
		return api(op, a)
	}
}

// RegainAccess reads the X-Business-Use-Case-Usage header Meta sends with
// rate limits: per business, the minutes until access is regained
// (estimated_time_to_regain_access). The longest wait counts.
func RegainAccess(h http.Header, now time.Time) (time.Duration, time.Time) {
	raw := h.Get("X-Business-Use-Case-Usage")
	if raw == "" {
		return social.WaitFromHeaders(h, now)
	}
	var usage map[string][]struct {
		Minutes int `json:"estimated_time_to_regain_access"`
	}
	if err := json.Unmarshal([]byte(raw), &usage); err != nil {
		return social.WaitFromHeaders(h, now)
	}
	longest := 0
	for _, entries := range usage {
		for _, u := range entries {
			longest = max(longest, u.Minutes)
		}
	}
	if longest == 0 {
		return social.WaitFromHeaders(h, now)
	}
	d := time.Duration(longest) * time.Minute
	return d, now.Add(d)
}

// Time parses Graph's timestamps (2026-05-01T12:00:41+0000).
func Time(s string) time.Time {
	t, err := time.Parse("2006-01-02T15:04:05-0700", s)
	if err != nil {
		return time.Time{}
	}
	return t
}
