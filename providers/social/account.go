package social

import (
	"slices"
	"time"
)

// Token is what the OAuth flow yields. Publishing stores it encrypted.
type Token struct {
	AccessToken  string
	RefreshToken string
	// Expiry is when AccessToken stops working; zero when it does not
	// expire (Mastodon).
	Expiry time.Time
	// RefreshExpiry is when RefreshToken stops working; zero when unknown
	// or never.
	RefreshExpiry time.Time
	Scopes        []string
	// Subject is the network's id of the user when the token endpoint said
	// (TikTok open_id, Instagram user_id); empty otherwise.
	Subject string
}

// Valid reports whether the access token may be used at now.
func (t Token) Valid(now time.Time) bool {
	return t.AccessToken != "" && (t.Expiry.IsZero() || now.Before(t.Expiry))
}

// Refreshable reports whether Refresh can renew the token at now.
func (t Token) Refreshable(now time.Time) bool {
	if t.RefreshToken == "" {
		return false
	}
	return t.RefreshExpiry.IsZero() || now.Before(t.RefreshExpiry)
}

// MissingScopes lists the scopes of want that were not granted.
func (t Token) MissingScopes(want []string) []string {
	var missing []string
	for _, s := range want {
		if !slices.Contains(t.Scopes, s) {
			missing = append(missing, s)
		}
	}
	return missing
}

// AccountKind is who an account is.
type AccountKind string

const (
	AccountPerson       AccountKind = "person"
	AccountPage         AccountKind = "page"
	AccountOrganization AccountKind = "organization"
)

// Account is what posts are published as.
type Account struct {
	// ID is the network's id posts are made as: X user id, LinkedIn author
	// URN, Facebook page id, Instagram user id, TikTok open_id, Mastodon
	// account id.
	ID     string
	Kind   AccountKind
	Name   string // display name
	Handle string // @name where the network's URLs use it (X, TikTok)
	// AccessToken is the account's own token where the network issues one
	// (a Facebook page access token); empty elsewhere. Store it encrypted
	// like the user's token.
	AccessToken string
}

// Connection is a connected account ready to publish: the user's token and
// the chosen account.
type Connection struct {
	Token   Token
	Account Account
}

// BearerToken is the token a publish call uses: the account's own token
// when it has one, the user's otherwise.
func (c Connection) BearerToken() string {
	if c.Account.AccessToken != "" {
		return c.Account.AccessToken
	}
	return c.Token.AccessToken
}
