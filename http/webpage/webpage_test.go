package webpage_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/http/webpage"
)

// TestCheckForm: a form post passes with its CSRF token (cookie and field
// alike) when the browser says it comes from this site: Sec-Fetch-Site
// same-origin (whatever the Origin: Chromium sends "null" under the pages'
// no-referrer policy), else an Origin of this host, else the token alone.
// Anything else is 403.
func TestCheckForm(t *testing.T) {
	auth := webpage.Auth{SessionCookie: "s", CSRFCookie: "c"}
	token := strings.Repeat("a", 43)
	for _, tc := range []struct {
		name          string
		field, cookie string
		headers       map[string]string
		ok            bool
	}{
		{"same-origin, Origin null", token, token, map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": "null"}, true},
		{"same-origin", token, token, map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": "http://site.test"}, true},
		{"this host's Origin", token, token, map[string]string{"Origin": "http://site.test"}, true},
		{"no header at all", token, token, nil, true},
		{"cross-site", token, token, map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "http://site.test"}, false},
		{"same-site, another origin", token, token, map[string]string{"Sec-Fetch-Site": "same-site"}, false},
		{"another host's Origin", token, token, map[string]string{"Origin": "http://evil.test"}, false},
		{"Origin null alone", token, token, map[string]string{"Origin": "null"}, false},
		{"no field", "", token, map[string]string{"Sec-Fetch-Site": "same-origin"}, false},
		{"no cookie", token, "", map[string]string{"Sec-Fetch-Site": "same-origin"}, false},
		{"another token", strings.Repeat("b", 43), token, map[string]string{"Sec-Fetch-Site": "same-origin"}, false},
	} {
		r := httptest.NewRequest(http.MethodPost, "http://site.test/form", strings.NewReader("csrf="+tc.field))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if tc.cookie != "" {
			r.AddCookie(&http.Cookie{Name: "c", Value: tc.cookie})
		}
		for k, v := range tc.headers {
			r.Header.Set(k, v)
		}
		err := auth.CheckForm(r)
		if tc.ok && err != nil {
			t.Errorf("%s: refused: %v", tc.name, err)
		}
		if !tc.ok && errs.KindOf(err) != errs.KindPermissionDenied {
			t.Errorf("%s: %v, want permission_denied", tc.name, err)
		}
	}
}

// TestProblemError: an API's problem answer becomes the error of its kind,
// with its pointers and Retry-After.
func TestProblemError(t *testing.T) {
	for status, kind := range map[int]errs.Kind{401: errs.KindAuthenticationRequired, 403: errs.KindPermissionDenied,
		404: errs.KindNotFound, 409: errs.KindConflict, 422: errs.KindInvalidInput, 429: errs.KindRateLimited, 503: errs.KindUnavailable} {
		if got := errs.KindOf(webpage.ProblemError("x", status, http.Header{}, nil)); got != kind {
			t.Errorf("%d: kind %v, want %v", status, got, kind)
		}
	}
	err := webpage.ProblemError("x", 422, http.Header{}, []byte(`{"code":"invalid_input","errors":[{"pointer":"/fill","detail":"not a colour of the kit"}]}`))
	if got := webpage.ProblemText(err); got != "fill not a colour of the kit" {
		t.Errorf("422 text %q", got)
	}
	e, _ := errs.As(webpage.ProblemError("x", 429, http.Header{"Retry-After": {"7"}}, nil))
	if e == nil || e.RetryAfterSeconds != 7 {
		t.Errorf("429: %+v", e)
	}
}

// TestCSP: the policy allows the stylesheet by hash and what a page names,
// nothing inline and no other origin.
func TestCSP(t *testing.T) {
	csp := webpage.CSP("script-src 'self'")
	for _, want := range []string{"default-src 'none'", "style-src 'sha256-", "script-src 'self'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("%s lacks %s", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe") {
		t.Errorf("%s", csp)
	}
}
