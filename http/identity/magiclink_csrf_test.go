package identity

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// The interstitial's double-submit token: only the cookie and the field the
// page set, together, pass.
func TestMagicLinkCSRF(t *testing.T) {
	rec := httptest.NewRecorder()
	value := newMagicLinkCSRF(rec, httptest.NewRequest(http.MethodGet, "/magic-link/consume?token=x", nil))
	cookies := rec.Result().Cookies()
	if len(cookies) != 1 || cookies[0].Value != value || cookies[0].SameSite != http.SameSiteStrictMode || !cookies[0].HttpOnly {
		t.Fatalf("cookie %+v for value %q", cookies, value)
	}
	post := func(field string, cookie *http.Cookie) bool {
		r := httptest.NewRequest(http.MethodPost, "/magic-link/consume", strings.NewReader(url.Values{"token": {"x"}, "csrf": {field}}.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if cookie != nil {
			r.AddCookie(cookie)
		}
		if err := r.ParseForm(); err != nil {
			t.Fatal(err)
		}
		return validMagicLinkCSRF(r)
	}
	tests := []struct {
		name   string
		field  string
		cookie *http.Cookie
		want   bool
	}{
		{"cookie and field agree", value, cookies[0], true},
		{"no cookie (cross-site post)", value, nil, false},
		{"wrong field", value + "x", cookies[0], false},
		{"empty both", "", &http.Cookie{Name: magicLinkCSRFCookie, Value: ""}, false},
	}
	for _, tc := range tests {
		if got := post(tc.field, tc.cookie); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
