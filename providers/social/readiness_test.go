package social

import (
	"slices"
	"testing"
	"time"
)

func TestReadinessOf(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	info := Info{Name: "network_3", RequiredScopes: []string{"pages_manage_posts"}, NeedsAccountChoice: true}
	page := Account{ID: "p1", Kind: AccountPage, AccessToken: "page-token"}
	valid := Token{AccessToken: "t", Expiry: now.Add(time.Hour), Scopes: []string{"pages_manage_posts"}}
	expired := valid
	expired.Expiry = now.Add(-time.Hour)
	refreshable := expired
	refreshable.RefreshToken = "r"
	tests := []struct {
		name     string
		conn     Connection
		problems []string
	}{
		{"ready", Connection{Token: valid, Account: page}, nil},
		{"not connected", Connection{}, []string{ProblemNotConnected}},
		{"expired", Connection{Token: expired, Account: page}, []string{ProblemTokenExpired}},
		{"expired but refreshable", Connection{Token: refreshable, Account: page}, nil},
		{"scope missing", Connection{Token: Token{AccessToken: "t"}, Account: page}, []string{ProblemScopesMissing}},
		{"page not chosen", Connection{Token: valid, Account: Account{ID: "user"}}, []string{ProblemNoAccount}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := ReadinessOf(info, tc.conn, now)
			if !slices.Equal(r.Problems, tc.problems) || r.Ready != (len(tc.problems) == 0) {
				t.Fatalf("readiness %+v, want problems %v", r, tc.problems)
			}
		})
	}
	r := ReadinessOf(info, Connection{Token: valid, Account: page}, now)
	if r.TokenValidUntil == nil || !r.TokenValidUntil.Equal(valid.Expiry) || !r.AccountChosen || r.Account != "p1" {
		t.Fatalf("readiness %+v", r)
	}
}
