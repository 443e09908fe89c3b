package socialfake

import (
	"net/http"
	"testing"
	"time"
)

func TestAcceptCountsAnIdempotencyKeyOnce(t *testing.T) {
	c := NewCore(nil, Options{})
	a, fresh := c.Accept(Post{ID: "1", Account: "u", Text: "hi", IdempotencyKey: "k"})
	b, again := c.Accept(Post{ID: "2", Account: "u", Text: "hi", IdempotencyKey: "k"})
	if !fresh || again || b.ID != a.ID || c.PostCount() != 1 {
		t.Fatalf("%+v %v %+v %v, %d posts", a, fresh, b, again, c.PostCount())
	}
	if _, fresh := c.Accept(Post{ID: "3", Account: "other", IdempotencyKey: "k"}); !fresh {
		t.Fatal("a key is per account")
	}
}

func TestGrantsExpireAndRevoke(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	c := NewCore(nil, Options{Now: func() time.Time { return now }})
	c.SetTokenPolicy(TokenPolicy{AccessTTL: time.Hour, Refresh: true, Rotate: true})
	g := c.IssueGrant("u", []string{"a"})
	req := func(tok string) *http.Request {
		r, _ := http.NewRequest(http.MethodGet, "http://fake/", nil)
		r.Header.Set("Authorization", "Bearer "+tok)
		return r
	}
	if _, _, ok := c.authenticate(req(g.Access)); !ok {
		t.Fatal("a fresh token is refused")
	}
	now = now.Add(2 * time.Hour)
	if _, p, ok := c.authenticate(req(g.Access)); ok || p.Kind != ProblemTokenExpired {
		t.Fatalf("expired: %v %v", p, ok)
	}
	fresh, _, ok := c.RefreshGrant(g.Refresh)
	if !ok || fresh.Refresh == g.Refresh {
		t.Fatalf("refresh %+v %v", fresh, ok)
	}
	if _, _, ok := c.RefreshGrant(g.Refresh); ok {
		t.Fatal("a rotated refresh token worked twice")
	}
	c.RevokeGrants()
	if _, p, ok := c.authenticate(req(fresh.Access)); ok || p.Kind != ProblemTokenInvalid {
		t.Fatalf("revoked: %v %v", p, ok)
	}
}
