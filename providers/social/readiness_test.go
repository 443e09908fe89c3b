package social

import (
	"slices"
	"testing"
	"time"
)

func TestReadinessOf(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	pages := Info{Name: "network_3", RequiredScopes: []string{"pages_manage_posts"}, NeedsAccountChoice: true}
	people := Info{Name: "network_1", RequiredScopes: []string{"pages_manage_posts"}}
	page := Account{ID: "p1", Kind: AccountPage, AccessToken: "page-token"}
	person := Account{ID: "u1", Kind: AccountPerson}
	valid := Token{AccessToken: "t", Expiry: now.Add(time.Hour), Scopes: []string{"pages_manage_posts"}}
	expired := valid
	expired.Expiry = now.Add(-time.Hour)
	refreshable := expired
	refreshable.RefreshToken = "r"
	tests := []struct {
		name     string
		info     Info
		conn     Connection
		problems []string
	}{
		{"ready", people, Connection{Token: valid, Account: person}, nil},
		{"not connected", people, Connection{}, []string{ProblemNotConnected}},
		{"expired", people, Connection{Token: expired, Account: person}, []string{ProblemTokenExpired}},
		{"expired but refreshable", people, Connection{Token: refreshable, Account: person}, nil},
		{"scope missing", people, Connection{Token: Token{AccessToken: "t"}, Account: person}, []string{ProblemScopesMissing}},
		{"page chosen", pages, Connection{Token: valid, Account: page}, nil},
		{"a page token outlives the user token", pages, Connection{Token: expired, Account: page}, nil},
		{"page not chosen", pages, Connection{Token: valid, Account: Account{ID: "user"}}, []string{ProblemNoAccount}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := ReadinessOf(tc.info, tc.conn, now)
			if !slices.Equal(r.Problems, tc.problems) || r.Ready != (len(tc.problems) == 0) {
				t.Fatalf("readiness %+v, want problems %v", r, tc.problems)
			}
		})
	}
	r := ReadinessOf(people, Connection{Token: valid, Account: person}, now)
	if r.TokenValidUntil == nil || !r.TokenValidUntil.Equal(valid.Expiry) || !r.AccountChosen || r.Account != "u1" {
		t.Fatalf("readiness %+v", r)
	}
}
