package identity

import (
	"context"
	"net/url"
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/identity"
)

// SSOHandoff is the body of POST /sso/handoff-code.
type SSOHandoff struct {
	AppID       string `json:"app_id"`
	RedirectURI string `json:"redirect_uri"`
}

// SSOHandoffAnswer carries the destination callback URL with a one-time
// code; it never carries a bearer token.
type SSOHandoffAnswer struct {
	CallbackURL string    `json:"callback_url"`
	ExpiresAt   time.Time `json:"expires_at"`
}

// HandoffCode issues a one-time code for a signed-in user to carry to a
// catalog application whose organization may use it. redirect_uri must be
// under the application's entrypoint.
func (a *Access) HandoffCode(ctx context.Context, m commands.Meta, p domain.Principal, in SSOHandoff) (SSOHandoffAnswer, error) {
	if p.Type != "user" || p.UserID == "" {
		return SSOHandoffAnswer{}, errs.PermissionDenied("a handoff needs a signed-in user's access token")
	}
	cat, err := a.Catalog(ctx)
	if err != nil {
		return SSOHandoffAnswer{}, err
	}
	entry, err := cat.Entry("/app_id", in.AppID)
	if err != nil {
		return SSOHandoffAnswer{}, err
	}
	acc, err := a.OrgAccess(ctx, p.OrganizationID)
	if err != nil {
		return SSOHandoffAnswer{}, err
	}
	if !acc.MayUse(cat, in.AppID) {
		return SSOHandoffAnswer{}, errs.PermissionDenied("the organization may not use application " + in.AppID)
	}
	u, err := url.Parse(in.RedirectURI)
	if err != nil || u.Fragment != "" || !domain.UnderEntrypoint(entry.EntrypointURL, in.RedirectURI) {
		return SSOHandoffAnswer{}, errs.InvalidField("/redirect_uri", "must be under the application's entrypoint "+entry.EntrypointURL+", without a fragment")
	}
	code, issued, err := a.issueOneTime(ctx, m, domain.OneTimeIssuedV1{Kind: domain.KindSSOCode, OrganizationID: p.OrganizationID,
		UserID: p.UserID, AppID: in.AppID, RedirectURI: in.RedirectURI}, domain.SSOCodeTTL)
	if err != nil {
		return SSOHandoffAnswer{}, err
	}
	q := u.Query()
	q.Set("code", code)
	u.RawQuery = q.Encode()
	return SSOHandoffAnswer{CallbackURL: u.String(), ExpiresAt: issued.ExpiresAt}, nil
}

// SSOExchange is the body of POST /sso/exchange-code: the destination
// presents the code with the app id and redirect URI it was issued for.
type SSOExchange struct {
	Code        string `json:"code"`
	AppID       string `json:"app_id"`
	RedirectURI string `json:"redirect_uri"`
}

// ExchangeCode uses a handoff code once and starts the user's session for
// the destination application.
func (a *Access) ExchangeCode(ctx context.Context, m commands.Meta, in SSOExchange) (SessionTokens, error) {
	t, hash, err := a.loadOneTime(ctx, domain.KindSSOCode, in.Code)
	if err != nil {
		return SessionTokens{}, err
	}
	st := t.State()
	if st.AppID != in.AppID || st.RedirectURI != in.RedirectURI {
		return SessionTokens{}, errs.AuthenticationRequired("the code was issued for another application or redirect URI")
	}
	return a.consumeAndStart(ctx, m, domain.KindSSOCode, st, hash, st.AppID)
}
