package graphapi

import (
	"net/http"
	"testing"
	"time"

	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/social"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name   string
		status int
		g      Error
		kind   outcome.Kind
		reason string
	}{
		{"expired token", 400, Error{Code: 190, Subcode: 463}, outcome.Unauthorized, social.ReasonTokenExpired},
		{"password changed", 400, Error{Code: 190, Subcode: 460}, outcome.Unauthorized, social.ReasonTokenRevoked},
		{"app removed", 400, Error{Code: 190, Subcode: 458}, outcome.Unauthorized, social.ReasonTokenRevoked},
		{"bad token", 400, Error{Code: 190}, outcome.Unauthorized, social.ReasonTokenInvalid},
		{"permission", 403, Error{Code: 200}, outcome.Unauthorized, social.ReasonScopeMissing},
		{"permission 10", 400, Error{Code: 10}, outcome.Unauthorized, social.ReasonScopeMissing},
		{"app rate", 400, Error{Code: 4}, outcome.RateLimited, social.ReasonRateLimited},
		{"user rate", 400, Error{Code: 17}, outcome.RateLimited, social.ReasonRateLimited},
		{"page rate", 400, Error{Code: 32}, outcome.RateLimited, social.ReasonRateLimited},
		{"custom rate", 400, Error{Code: 613}, outcome.RateLimited, social.ReasonRateLimited},
		{"business rate", 400, Error{Code: 80001}, outcome.RateLimited, social.ReasonRateLimited},
		{"instagram daily limit", 400, Error{Code: 9, Subcode: 2207042}, outcome.RateLimited, social.ReasonRateLimited},
		{"blocked", 400, Error{Code: 368}, outcome.Rejected, social.ReasonBlocked},
		{"duplicate", 400, Error{Code: 506}, outcome.Rejected, social.ReasonDuplicate},
		{"unknown", 500, Error{Code: 1}, outcome.ProviderFault, social.ReasonServerError},
		{"transient", 400, Error{Code: 100, IsTransient: true}, outcome.ProviderFault, social.ReasonServerError},
		{"container not ready", 400, Error{Code: 9007, Subcode: 2207027, Message: "The media is not ready for publishing"}, outcome.ProviderFault, social.ReasonProcessing},
		{"too long", 400, Error{Code: 100, Message: "(#100) Param message must be at most 63206 characters long"}, outcome.Rejected, social.ReasonTooLong},
		{"media", 400, Error{Code: 9004, Message: "The media could not be fetched from this uri"}, outcome.Rejected, social.ReasonMediaInvalid},
		{"parameter", 400, Error{Code: 100, Message: "(#100) Invalid parameter"}, outcome.Rejected, social.ReasonInvalid},
	}
	for _, tc := range tests {
		e := Classify("network_3", "publish", tc.status, tc.g)
		if e.Kind != tc.kind || e.Reason != tc.reason {
			t.Errorf("%s: %s %s, want %s %s", tc.name, e.Kind, e.Reason, tc.kind, tc.reason)
		}
	}
	if e := Classify("network_3", "publish", 400, Error{Code: 190, Subcode: 463}); e.Code != "190/463" {
		t.Errorf("code %q", e.Code)
	}
}

func TestRegainAccess(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	h := http.Header{"X-Business-Use-Case-Usage": {`{"104000000000001":[{"type":"pages","call_count":100,"total_cputime":12,"total_time":14,"estimated_time_to_regain_access":7},{"type":"pages","estimated_time_to_regain_access":2}]}`}}
	if d, at := RegainAccess(h, now); d != 7*time.Minute || !at.Equal(now.Add(7*time.Minute)) {
		t.Fatalf("%v %v", d, at)
	}
	if d, _ := RegainAccess(http.Header{"Retry-After": {"5"}}, now); d != 5*time.Second {
		t.Fatalf("falls back to Retry-After: %v", d)
	}
	if d, _ := RegainAccess(http.Header{}, now); d != 0 {
		t.Fatalf("nothing said: %v", d)
	}
}

func TestTime(t *testing.T) {
	if got := Time("2026-05-01T12:00:41+0000"); !got.Equal(time.Date(2026, 5, 1, 12, 0, 41, 0, time.UTC)) {
		t.Fatalf("%v", got)
	}
}
