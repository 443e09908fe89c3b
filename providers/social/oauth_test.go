package social

import (
	"net/http"
	"testing"
	"time"

	"github.com/platform/backend/providers/outcome"
)

func TestCodeChallengeS256MatchesRFC7636(t *testing.T) {
	// RFC 7636 appendix B.
	if got := CodeChallengeS256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"); got != "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM" {
		t.Fatalf("challenge %s", got)
	}
	a, err := NewAuthFlow()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewAuthFlow()
	if len(a.CodeVerifier) != 43 || len(a.State) != 43 || a.State == b.State || a.CodeVerifier == b.CodeVerifier {
		t.Fatalf("flows %+v %+v", a, b)
	}
	if a.CodeChallenge != CodeChallengeS256(a.CodeVerifier) {
		t.Fatal("the flow's challenge is not the S256 of its verifier")
	}
}

func TestParseTokenAnswer(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	prev := Token{RefreshToken: "old-refresh", Scopes: []string{"a"}, Subject: "u1"}
	tests := []struct {
		name string
		body string
		want Token
	}{
		{"rfc with rotation", `{"access_token":"A","refresh_token":"R","expires_in":7200,"scope":"tweet.read tweet.write","token_type":"bearer"}`,
			Token{AccessToken: "A", RefreshToken: "R", Expiry: now.Add(2 * time.Hour), Scopes: []string{"tweet.read", "tweet.write"}, Subject: "u1"}},
		{"refresh answer without a refresh token keeps the old one", `{"access_token":"A","expires_in":60}`,
			Token{AccessToken: "A", RefreshToken: "old-refresh", Expiry: now.Add(time.Minute), Scopes: []string{"a"}, Subject: "u1"}},
		{"linkedin commas and refresh expiry", `{"access_token":"A","expires_in":5184000,"refresh_token":"R","refresh_token_expires_in":31536000,"scope":"openid,profile,w_member_social"}`,
			Token{AccessToken: "A", RefreshToken: "R", Expiry: now.Add(60 * 24 * time.Hour), RefreshExpiry: now.Add(365 * 24 * time.Hour),
				Scopes: []string{"openid", "profile", "w_member_social"}, Subject: "u1"}},
		{"tiktok open_id", `{"access_token":"act.1","expires_in":86400,"open_id":"o-9","refresh_expires_in":31536000,"refresh_token":"rft.1","scope":"user.info.basic,video.publish","token_type":"Bearer"}`,
			Token{AccessToken: "act.1", RefreshToken: "rft.1", Expiry: now.Add(24 * time.Hour), RefreshExpiry: now.Add(365 * 24 * time.Hour),
				Scopes: []string{"user.info.basic", "video.publish"}, Subject: "o-9"}},
		{"instagram numeric user id", `{"access_token":"IG","user_id":17841400000000001}`,
			Token{AccessToken: "IG", RefreshToken: "old-refresh", Scopes: []string{"a"}, Subject: "17841400000000001"}},
		{"mastodon never expires", `{"access_token":"M","token_type":"Bearer","scope":"read write","created_at":1573979017}`,
			Token{AccessToken: "M", RefreshToken: "old-refresh", Scopes: []string{"read", "write"}, Subject: "u1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ParseTokenAnswer([]byte(tc.body), now, prev)
			if !ok {
				t.Fatal("not parsed")
			}
			if got.AccessToken != tc.want.AccessToken || got.RefreshToken != tc.want.RefreshToken || !got.Expiry.Equal(tc.want.Expiry) ||
				!got.RefreshExpiry.Equal(tc.want.RefreshExpiry) || got.Subject != tc.want.Subject || len(got.Scopes) != len(tc.want.Scopes) {
				t.Fatalf("got %+v\nwant %+v", got, tc.want)
			}
			for i := range got.Scopes {
				if got.Scopes[i] != tc.want.Scopes[i] {
					t.Fatalf("scopes %v, want %v", got.Scopes, tc.want.Scopes)
				}
			}
		})
	}
	for _, bad := range []string{`{}`, `not json`, `{"error":"invalid_grant"}`} {
		if _, ok := ParseTokenAnswer([]byte(bad), now, prev); ok {
			t.Errorf("%s parsed as a token", bad)
		}
	}
}

func TestOAuthErrorKinds(t *testing.T) {
	tests := map[string]outcome.Kind{
		"invalid_grant":           outcome.Unauthorized,
		"invalid_client":          outcome.Rejected,
		"unauthorized_client":     outcome.Rejected,
		"invalid_request":         outcome.Rejected,
		"temporarily_unavailable": outcome.ProviderFault,
		"server_error":            outcome.ProviderFault,
	}
	for code, want := range tests {
		if e := OAuthErrorKind("network_1", "refresh", http.StatusBadRequest, code); e == nil || e.Kind != want {
			t.Errorf("%s: %v, want %s", code, e, want)
		}
	}
	if e := OAuthErrorKind("network_1", "refresh", http.StatusBadGateway, ""); e != nil {
		t.Errorf("an answer without a code is left to its status, got %v", e)
	}
}

func TestAuthorizeURLRefusesWhatIsNotAFlow(t *testing.T) {
	o := &OAuth2{Caller: NewCaller("network_1", HTTPConfig{}), AuthorizeEndpoint: "https://example.test/authorize", ClientID: "c"}
	challenge := CodeChallengeS256("v")
	for name, r := range map[string]AuthRequest{
		"no state":      {RedirectURI: "https://app.test/cb", CodeChallenge: challenge},
		"no challenge":  {RedirectURI: "https://app.test/cb", State: "s"},
		"bad redirect":  {RedirectURI: "app.test/cb", State: "s", CodeChallenge: challenge},
		"plain pkce":    {RedirectURI: "https://app.test/cb", State: "s", CodeChallenge: "v"},
		"relative path": {RedirectURI: "/cb", State: "s", CodeChallenge: challenge},
		"credentials":   {RedirectURI: "https://u:p@app.test/cb", State: "s", CodeChallenge: challenge}, // sent on to the browser
	} {
		if _, err := o.AuthorizeURL(r); outcome.Of(err) != outcome.Rejected {
			t.Errorf("%s: %v", name, err)
		}
	}
}
