package social

import "time"

// Readiness says, machine readably, whether a connection can publish now
// and what is missing (publishing-readiness per platform).
type Readiness struct {
	Network   string `json:"network"`
	Ready     bool   `json:"ready"`
	Connected bool   `json:"connected"`
	// TokenValidUntil is the access token's expiry; nil when it does not
	// expire.
	TokenValidUntil *time.Time `json:"tokenValidUntil,omitempty"`
	// Refreshable: an expired or expiring token can be renewed without the
	// user.
	Refreshable   bool     `json:"refreshable"`
	Scopes        []string `json:"scopes"`
	MissingScopes []string `json:"missingScopes,omitempty"`
	AccountChosen bool     `json:"accountChosen"`
	Account       string   `json:"account,omitempty"`
	// Problems are stable codes, each blocking: not_connected,
	// token_expired, scopes_missing, account_not_chosen.
	Problems []string `json:"problems,omitempty"`
}

// Problems a Readiness can name.
const (
	ProblemNotConnected  = "not_connected"
	ProblemTokenExpired  = "token_expired"
	ProblemScopesMissing = "scopes_missing"
	ProblemNoAccount     = "account_not_chosen"
)

// ReadinessOf judges a connection against the network's needs at now,
// without calling the network. An expired token that can be refreshed is
// not a problem: publishing refreshes before it sends.
func ReadinessOf(info Info, conn Connection, now time.Time) Readiness {
	r := Readiness{Network: info.Name, Scopes: conn.Token.Scopes, Account: conn.Account.ID}
	if r.Scopes == nil {
		r.Scopes = []string{}
	}
	publishing := conn.Token
	if conn.Account.AccessToken != "" {
		// The account's own token (a Facebook page token made from a
		// long-lived user token) does not expire; the user's token only
		// lists the pages again.
		publishing = Token{AccessToken: conn.Account.AccessToken}
	}
	r.Connected = conn.Token.AccessToken != ""
	if !r.Connected {
		r.Problems = append(r.Problems, ProblemNotConnected)
	}
	if !publishing.Expiry.IsZero() {
		until := publishing.Expiry
		r.TokenValidUntil = &until
	}
	r.Refreshable = publishing.Refreshable(now)
	if r.Connected && !publishing.Valid(now) && !r.Refreshable {
		r.Problems = append(r.Problems, ProblemTokenExpired)
	}
	if r.Connected {
		r.MissingScopes = conn.Token.MissingScopes(info.RequiredScopes)
		if len(r.MissingScopes) > 0 {
			r.Problems = append(r.Problems, ProblemScopesMissing)
		}
	}
	r.AccountChosen = conn.Account.ID != "" && (!info.NeedsAccountChoice || conn.Account.AccessToken != "")
	if r.Connected && !r.AccountChosen {
		r.Problems = append(r.Problems, ProblemNoAccount)
	}
	r.Ready = len(r.Problems) == 0
	return r
}
