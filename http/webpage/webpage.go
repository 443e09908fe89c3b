// Package webpage is what the platform's server-rendered pages for people
// share (the dashboard's, the design service's): the stylesheet and the
// strict Content-Security-Policy built around it, the house headers, the
// sign-in with an API key or an identity session kept in an HttpOnly
// cookie, and the CSRF check of form posts (docs/dashboard.md, "Pages").
package webpage

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	_ "embed"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"time"

	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/principal"
	httpapi "github.com/platform/backend/http"
)

// CSS is the pages' one stylesheet, inlined in a <style> element and
// allowed by its hash.
//
//go:embed page.css
var CSS string

// CSP is the pages' policy: the stylesheet by its hash, forms to this
// origin, no frame; more adds directives a page needs (the design pages'
// own script file and images: "script-src 'self'", "img-src 'self'",
// "connect-src 'self'"). Nothing else loads: no inline script, no other
// origin.
func CSP(more ...string) string {
	sum := sha256.Sum256([]byte(CSS))
	out := "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; "
	for _, m := range more {
		out += m + "; "
	}
	return out + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
}

// Headers sets the house headers of an HTML page under policy csp.
func Headers(w http.ResponseWriter, csp string) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", csp)
	h.Set("Cache-Control", "private, no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
}

// RefreshCookie is the identity service's own refresh cookie (its name and
// attributes): a sign-out there ends the pages' sessions too.
const RefreshCookie = "platform_refresh"

// Auth signs people in for a set of pages. Its cookies are named per
// service (cookies are per host, not per port: the dashboard's and the
// design service's must not overwrite each other).
type Auth struct {
	// SessionCookie holds the page session's credential (an API key or an
	// identity access token), CSRFCookie the form token.
	SessionCookie, CSRFCookie string
	// Validator checks the credential on every request, as actions do;
	// Sessions is identity's sign-in; Attempts limits sign-in attempts per
	// client address.
	Validator httpapi.Validator
	Sessions  Sessions
	Attempts  *httpapi.Limiter
}

// Signed is a page request's signed-in caller.
type Signed struct {
	Principal  principal.Principal
	Credential string
}

// CSRF is the request's form token, set as a cookie when it has none.
func (a Auth) CSRF(w http.ResponseWriter, r *http.Request) string {
	if ck, err := r.Cookie(a.CSRFCookie); err == nil && len(ck.Value) == 43 {
		return ck.Value
	}
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	token := base64.RawURLEncoding.EncodeToString(b)
	http.SetCookie(w, &http.Cookie{Name: a.CSRFCookie, Value: token, Path: "/", HttpOnly: true, Secure: secure(r), SameSite: http.SameSiteStrictMode})
	r.AddCookie(&http.Cookie{Name: a.CSRFCookie, Value: token})
	return token
}

// CheckForm parses a form post and refuses it (403) without the matching
// CSRF token (double submit: the HttpOnly SameSite=Strict cookie and the
// hidden csrf field) or when the browser says it comes from another site
// (Sec-Fetch-Site, else Origin).
func (a Auth) CheckForm(r *http.Request) error {
	if err := r.ParseForm(); err != nil {
		return errs.InvalidField("", "the form does not parse")
	}
	ck, err := r.Cookie(a.CSRFCookie)
	sent := r.PostForm.Get("csrf")
	// The browser's own word first: under the pages' Referrer-Policy
	// no-referrer, Chromium sends a form post's Origin as "null", but its
	// Sec-Fetch-Site says same-origin. Without that header, the Origin's
	// host must be this one; without either (an old client), the token
	// decides alone.
	sameOrigin := true
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" {
		sameOrigin = site == "same-origin"
	} else if o := r.Header.Get("Origin"); o == "null" {
		sameOrigin = false
	} else if o != "" {
		u, perr := url.Parse(o)
		sameOrigin = perr == nil && u.Host == r.Host
	}
	if err != nil || sent == "" || subtle.ConstantTimeCompare([]byte(ck.Value), []byte(sent)) != 1 || !sameOrigin {
		return errs.PermissionDenied("the form's CSRF token does not match: reload the page and try again")
	}
	return nil
}

func secure(r *http.Request) bool {
	return r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

// Authenticate validates the page session's credential on every request
// (a revoked key, an ended session or a changed membership applies at
// once). An expired access token is rotated through identity's refresh
// cookie (once for the pages that present it together, when Sessions is
// RefreshOnce's); anything else is no session.
func (a Auth) Authenticate(w http.ResponseWriter, r *http.Request) (Signed, error) {
	ck, err := r.Cookie(a.SessionCookie)
	if err != nil || ck.Value == "" {
		return Signed{}, errs.AuthenticationRequired("sign in first")
	}
	p, err := a.Validator.Validate(r.Context(), ck.Value)
	if err == nil {
		return Signed{Principal: p, Credential: ck.Value}, nil
	}
	if errs.KindOf(err) != errs.KindAuthenticationRequired {
		return Signed{}, err
	}
	rk, rerr := r.Cookie(RefreshCookie)
	if rerr != nil || rk.Value == "" || !strings.HasPrefix(ck.Value, identitycmd.AccessTokenPrefix) {
		return Signed{}, err
	}
	s, err := a.Sessions.Refresh(r.Context(), rk.Value)
	if err != nil {
		return Signed{}, err
	}
	a.setSession(w, r, s.AccessToken, &s)
	p, err = a.Validator.Validate(r.Context(), s.AccessToken)
	return Signed{Principal: p, Credential: s.AccessToken}, err
}

// setSession sets the page session's cookie (and identity's refresh cookie
// for a password sign-in). It is SameSite=Lax, not Strict: a link to a page
// from another site (an emailed "export ready", a chat) is a top-level GET
// that must arrive signed in (Strict sent it to /login). What Strict added
// is kept by the forms' own checks: a POST needs the Strict CSRF cookie and
// its field, and a same-site Sec-Fetch-Site or Origin; pages change nothing
// on GET.
func (a Auth) setSession(w http.ResponseWriter, r *http.Request, credential string, s *Session) {
	ck := &http.Cookie{Name: a.SessionCookie, Value: credential, Path: "/", HttpOnly: true, Secure: secure(r), SameSite: http.SameSiteLaxMode}
	if s != nil {
		ck.Expires, ck.MaxAge = s.ExpiresAt, int(time.Until(s.ExpiresAt).Seconds())
		http.SetCookie(w, &http.Cookie{Name: RefreshCookie, Value: s.RefreshToken, Path: "/", HttpOnly: true, Secure: secure(r),
			SameSite: http.SameSiteLaxMode, Expires: s.ExpiresAt, MaxAge: int(time.Until(s.ExpiresAt).Seconds())})
	}
	http.SetCookie(w, ck)
}

// ClearSession forgets the page session's cookies.
func (a Auth) ClearSession(w http.ResponseWriter, r *http.Request) {
	for _, name := range []string{a.SessionCookie, RefreshCookie} {
		http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: "/", HttpOnly: true, Secure: secure(r), MaxAge: -1})
	}
}

// Refused is a sign-in the person must correct: the page shows Message
// with Status.
type Refused struct {
	Status  int
	Message string
}

func (e *Refused) Error() string { return e.Message }

// SignIn reads a checked sign-in form: mode=key with an API key checked by
// the validator, or email and password (and optionally organizationId)
// through identity's POST /login; the credential goes in the session
// cookie. A *Refused error is the person's to correct; any other is the
// page's failure.
func (a Auth) SignIn(w http.ResponseWriter, r *http.Request) error {
	if err := a.Attempts.AllowAttempt(r); err != nil {
		return err
	}
	if r.PostForm.Get("mode") == "key" {
		key := strings.TrimSpace(r.PostForm.Get("key"))
		if key == "" || len(key) > 512 {
			return &Refused{http.StatusUnprocessableEntity, "Enter an API key."}
		}
		if _, err := a.Validator.Validate(r.Context(), key); err != nil {
			if errs.KindOf(err) == errs.KindAuthenticationRequired {
				return &Refused{http.StatusUnauthorized, "That key is not valid."}
			}
			return err
		}
		a.setSession(w, r, key, nil)
		return nil
	}
	email, password := strings.TrimSpace(r.PostForm.Get("email")), r.PostForm.Get("password")
	if email == "" || password == "" || len(email) > 254 || len(password) > 256 {
		return &Refused{http.StatusUnprocessableEntity, "Enter your email and password."}
	}
	organization := r.PostForm.Get("organizationId")
	if len(organization) > 64 {
		return &Refused{http.StatusUnprocessableEntity, "That organization id is too long."}
	}
	s, err := a.Sessions.SignIn(r.Context(), email, password, organization)
	switch errs.KindOf(err) {
	case errs.KindAuthenticationRequired, errs.KindInvalidInput:
		return &Refused{http.StatusUnauthorized, "Invalid email or password (or a second factor is needed: sign in with the identity service first)."}
	case errs.KindPermissionDenied:
		return &Refused{http.StatusForbidden, "Your account has no access to that organization."}
	}
	if err != nil {
		return err
	}
	a.setSession(w, r, s.AccessToken, &s)
	return nil
}

// SignOut ends identity's session (a password sign-in) and clears the
// cookies.
func (a Auth) SignOut(w http.ResponseWriter, r *http.Request) {
	if ck, err := r.Cookie(a.SessionCookie); err == nil && strings.HasPrefix(ck.Value, identitycmd.AccessTokenPrefix) {
		_ = a.Sessions.SignOut(r.Context(), ck.Value) // an ended session is as good
	}
	a.ClearSession(w, r)
}

// SafeNext keeps a redirect target on this site: a local path only, else
// fallback.
func SafeNext(next, fallback string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return fallback
	}
	return next
}

// Message is the text a failed page shows for its status.
func Message(status int) string {
	switch status {
	case http.StatusTooManyRequests:
		return "Too many requests from your address. Please wait a moment and try again."
	case http.StatusForbidden:
		return "Your credential does not allow this."
	case http.StatusNotFound:
		return "There is nothing here."
	}
	return "This page cannot be shown right now. Please try again in a moment."
}

// ProblemText is an error's message for a person: the failing members
// and what is wrong with each, or its message.
func ProblemText(err error) string {
	if e, ok := errs.As(err); ok {
		parts := []string{}
		for _, f := range e.Fields {
			parts = append(parts, strings.TrimPrefix(f.Pointer, "/")+" "+f.Detail)
		}
		if len(parts) > 0 {
			return strings.Join(parts, "; ")
		}
		return e.Message
	}
	return "try again"
}
