package identity

import (
	"context"
	"net/http"
	"strings"
	"time"

	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/text"
	httpapi "github.com/platform/backend/http"
)

// SessionWeb configures the browser side of sessions.
type SessionWeb struct {
	// CookieName of the refresh cookie (default platform_refresh).
	CookieName string
	// CookieDomain lets first-party subdomains share the cookie (optional).
	CookieDomain string
	// AdminConsoleURL is the admin console's base URL; GET /settings sends
	// signed-in browsers to <AdminConsoleURL>/security/user.
	AdminConsoleURL string
	// CORS lists the first-party origins that may embed the session
	// channel pages and call with credentials.
	CORS *httpapi.CORSPolicy
}

func (w SessionWeb) cookieName() string {
	if w.CookieName == "" {
		return "platform_refresh"
	}
	return w.CookieName
}

// HeaderPlatformAuth must accompany a cookie-backed refresh: a custom header
// cannot be sent cross-site without a CORS preflight, which only first-party
// origins pass, so a forged form post cannot refresh (CSRF).
const HeaderPlatformAuth = "X-Platform-Auth"

// sessionOut is a started session (identity_outputs.go).
var sessionOut = string(sessionTokensOut)

// sessionActions: sign-in, refresh, logout, logout everywhere, and the
// browser routes (/settings, session channel pages). Sign-up is onboarding
// (identity_recovery.go): it answers by email.
func sessionActions(d AccountsDeps) Part {
	cmds, web := d.Commands, d.Web
	return Part{Actions: []httpapi.Action{
		httpapi.Decoded(httpapi.Action{
			Name: "app_platform_auth.sessions.login", Method: http.MethodPost, Path: "/login", AuthorizationMode: httpapi.AuthPublic, CredentialAttempt: true,
			Summary: "Sign in with email and password: an access token in the body, the refresh token in an HttpOnly cookie. " +
				"organizationId picks the active organization; service (or X-App-ID) picks the one membership with access to that service. " +
				"Passkeys are never a production factor.",
			InputSchema: httpapi.Object([]string{"email", "password"}, map[string]string{
				"email": httpapi.LineSchema(3, text.MaxEmail), "password": `{"type":"string","minLength":1,"maxLength":256}`,
				"organizationId": uuidString, "service": httpapi.LineSchema(1, 64),
				"returnRefreshToken": `{"type":"boolean","description":"also return the refresh token in the body (non-browser clients)"}`}),
			OutputSchema: []byte(sessionOut),
		}, func(ctx context.Context, c *httpapi.Call, in LoginInput) (httpapi.Reply, error) {
			if in.Service == "" {
				in.Service = c.Request.Header.Get("X-App-ID")
			}
			tokens, err := cmds.Login(ctx, c.Meta, in.Login)
			if err != nil {
				return httpapi.Reply{}, err
			}
			return web.sessionReply(c.Request, tokens, in.ReturnRefreshToken), nil
		}),
		httpapi.Decoded(httpapi.Action{
			Name: "app_platform_auth.sessions.refresh", Method: http.MethodPost, Path: "/refresh", AuthorizationMode: httpapi.AuthPublic,
			Summary: "Rotate the session's tokens. Browsers send the HttpOnly refresh cookie and the X-Platform-Auth header; " +
				"other clients send refreshToken. A refresh token works once; reusing an old one ends the session.",
			InputSchema: httpapi.Object(nil, map[string]string{"refreshToken": httpapi.LineSchema(1, text.MaxToken),
				"returnRefreshToken": `{"type":"boolean"}`}),
			OutputSchema: []byte(sessionOut),
		}, func(ctx context.Context, c *httpapi.Call, in RefreshInput) (httpapi.Reply, error) {
			token, fromBody := in.RefreshToken, in.RefreshToken != ""
			if !fromBody {
				ck, err := c.Request.Cookie(web.cookieName())
				if err != nil || ck.Value == "" {
					return httpapi.Reply{}, errs.AuthenticationRequired("no refresh token: send the refresh cookie or refreshToken")
				}
				if c.Request.Header.Get(HeaderPlatformAuth) == "" {
					return httpapi.Reply{}, errs.AuthenticationRequired("a cookie-backed refresh needs the " + HeaderPlatformAuth + " header")
				}
				token = ck.Value
			}
			tokens, err := cmds.Refresh(ctx, c.Meta, token)
			if err != nil {
				return httpapi.Reply{}, err
			}
			return web.sessionReply(c.Request, tokens, fromBody || in.ReturnRefreshToken), nil
		}),
		httpapi.Decoded(httpapi.Action{
			Name: "app_platform_auth.sessions.logout", Method: http.MethodPost, Path: "/logout", AuthorizationMode: httpapi.AuthPublic,
			Summary: "End the current session (bearer access token, or the refresh cookie); its tokens fail /validate at once",
		}, func(ctx context.Context, c *httpapi.Call, _ httpapi.NoInput) (httpapi.Reply, error) {
			token := httpapi.Credential(c.Request)
			if token == "" {
				if ck, err := c.Request.Cookie(web.cookieName()); err == nil {
					token = ck.Value
				}
			}
			if token == "" {
				return httpapi.Reply{}, errs.AuthenticationRequired("no session: send the access token or the refresh cookie")
			}
			out, err := cmds.Logout(ctx, c.Meta, token)
			if err != nil {
				return httpapi.Reply{}, err
			}
			return httpapi.Reply{Body: out, Header: web.clearCookie(c.Request)}, nil
		}),
		httpapi.Decoded(httpapi.Action{
			Name: "app_platform_auth.sessions.logout_everywhere", Method: http.MethodPost, Path: "/logout-everywhere", AuthorizationMode: httpapi.AuthRuntime,
			Summary: "End every session of the signed-in user, on every device",
		}, func(ctx context.Context, c *httpapi.Call, _ httpapi.NoInput) (httpapi.Reply, error) {
			out, err := cmds.LogoutEverywhere(ctx, c.Meta, c.Principal)
			if err != nil {
				return httpapi.Reply{}, err
			}
			return httpapi.Reply{Body: out, Header: web.clearCookie(c.Request)}, nil
		}),
	}, Routes: sessionPages(d)}
}

type sessionBody struct {
	identitycmd.SessionTokens
	RefreshToken string `json:"refresh_token,omitempty"`
}

// sessionReply answers tokens: the refresh token as an HttpOnly, SameSite=Lax
// cookie (Secure over HTTPS), never cached.
func (w SessionWeb) sessionReply(r *http.Request, t identitycmd.SessionTokens, includeRefresh bool) httpapi.Reply {
	body := sessionBody{SessionTokens: t}
	if includeRefresh {
		body.RefreshToken = t.RefreshToken
	}
	ck := &http.Cookie{Name: w.cookieName(), Value: t.RefreshToken, Path: "/", Domain: w.CookieDomain, HttpOnly: true,
		Secure: secureRequest(r), SameSite: http.SameSiteLaxMode, Expires: t.ExpiresAt, MaxAge: int(time.Until(t.ExpiresAt).Seconds())}
	h := http.Header{}
	h.Add("Set-Cookie", ck.String())
	h.Set("Cache-Control", "no-store")
	return httpapi.Reply{Body: body, Header: h}
}

func (w SessionWeb) clearCookie(r *http.Request) http.Header {
	ck := &http.Cookie{Name: w.cookieName(), Value: "", Path: "/", Domain: w.CookieDomain, HttpOnly: true,
		Secure: secureRequest(r), SameSite: http.SameSiteLaxMode, MaxAge: -1}
	h := http.Header{}
	h.Add("Set-Cookie", ck.String())
	h.Set("Cache-Control", "no-store")
	return h
}

// secureRequest: HTTPS directly or behind a TLS-terminating proxy.
func secureRequest(r *http.Request) bool {
	return r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}
