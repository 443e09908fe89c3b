package identity_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/event/eventtest"
	"github.com/platform/backend/domain/identity"
)

func TestOneTimeTokens(t *testing.T) {
	for _, kind := range []string{identity.KindMagicLink, identity.KindSSOCode} {
		t.Run(kind, func(t *testing.T) {
			tok, _ := identity.LoadOneTime(nil)
			issued, err := tok.Issue(identity.OneTimeIssuedV1{TokenID: "t", Kind: kind, OrganizationID: "o", UserID: "u", SecretHash: "h"}, time.Minute, testNow)
			if err != nil {
				t.Fatal(err)
			}
			h := eventtest.History(t, issued...)
			tok, _ = identity.LoadOneTime(h)
			if errs.KindOf(tok.Check(kind, "wrong", testNow)) != errs.KindAuthenticationRequired {
				t.Fatal("a wrong secret passes")
			}
			other := identity.KindSSOCode
			if kind == other {
				other = identity.KindMagicLink
			}
			if errs.KindOf(tok.Check(other, "h", testNow)) != errs.KindAuthenticationRequired {
				t.Fatal("a token of another kind passes")
			}
			if e, _ := errs.As(tok.Check(kind, "h", testNow.Add(time.Minute))); e == nil || e.Code != kind+"_expired" {
				t.Fatal("an expired token passes")
			}
			used, err := tok.Consume(kind, "h", testNow)
			if err != nil || len(used) != 1 {
				t.Fatalf("consume: %v", err)
			}
			h, _ = event.Append(h, used)
			tok, _ = identity.LoadOneTime(h)
			if _, err := tok.Consume(kind, "h", testNow); err == nil || !strings.HasSuffix(err.(*errs.Error).Code, "_used") {
				t.Fatalf("second use: %v", err)
			}
		})
	}
}

func TestServiceTokens(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	otherPub, otherPriv, _ := ed25519.GenerateKey(rand.Reader)
	_ = otherPub
	keys := func(kid string) (ed25519.PublicKey, bool) { return pub, kid == "k1" }
	claims := func(mut func(*identity.ServiceClaims)) identity.ServiceClaims {
		c := identity.ServiceClaims{Issuer: identity.ServiceTokenIssuer, Subject: "service:payments", Audience: identity.ServiceTokenAudience,
			Service: "payments", PrincipalType: "service", IssuedAt: testNow.Unix(), ExpiresAt: testNow.Add(time.Minute).Unix(), ID: "j"}
		if mut != nil {
			mut(&c)
		}
		return c
	}
	sign := func(kid string, key ed25519.PrivateKey, c identity.ServiceClaims) string {
		s, err := identity.SignServiceToken(kid, key, c)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	good := sign("k1", priv, claims(nil))
	if c, err := identity.VerifyServiceToken(good, keys, identity.ServiceTokenAudience, testNow); err != nil || c.Service != "payments" {
		t.Fatalf("good token: %v", err)
	}
	bad := map[string]string{
		"unknown kid":      sign("k2", priv, claims(nil)),
		"other key":        sign("k1", otherPriv, claims(nil)),
		"expired":          sign("k1", priv, claims(func(c *identity.ServiceClaims) { c.ExpiresAt = testNow.Unix() })),
		"wrong audience":   sign("k1", priv, claims(func(c *identity.ServiceClaims) { c.Audience = "gateway" })),
		"not a service":    sign("k1", priv, claims(func(c *identity.ServiceClaims) { c.PrincipalType = "user" })),
		"subject mismatch": sign("k1", priv, claims(func(c *identity.ServiceClaims) { c.Subject = "service:dashboard_api" })),
		"tampered":         good[:len(good)-4] + "AAAA",
		"alg none":         "eyJhbGciOiJub25lIiwia2lkIjoiazEifQ." + strings.Split(good, ".")[1] + ".",
		"garbage":          "eyJ.x.y",
	}
	for name, tok := range bad {
		if _, err := identity.VerifyServiceToken(tok, keys, identity.ServiceTokenAudience, testNow); errs.KindOf(err) != errs.KindAuthenticationRequired {
			t.Errorf("%s: %v", name, err)
		}
	}
	if !identity.IsBillingPlane("marketing_site") || identity.IsBillingPlane("notifications") {
		t.Fatal("billing plane membership")
	}
}

func TestPreferencesAndCheckout(t *testing.T) {
	m, _ := identity.LoadPreferences(nil)
	dark, blue := "dark", "blue"
	tests := []struct {
		name string
		p    identity.Preferences
		ok   bool
	}{
		{"valid", identity.Preferences{Favorites: []string{"status"}, Hidden: []string{"ops"}, TileSize: "large", Theme: &dark}, true},
		{"bad theme", identity.Preferences{TileSize: "large", Theme: &blue}, false},
		{"bad tile", identity.Preferences{TileSize: "huge"}, false},
		{"dapp id", identity.Preferences{Favorites: []string{"dapp_x"}, TileSize: "small"}, false},
		{"favorite and hidden", identity.Preferences{Favorites: []string{"status"}, Hidden: []string{"status"}, TileSize: "small"}, false},
	}
	for _, tt := range tests {
		if _, err := m.Set("p", "o", tt.p, testNow); (err == nil) != tt.ok {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
	if ch, err := m.Set("p", "o", identity.DefaultPreferences(), testNow); err != nil || len(ch) != 0 {
		t.Fatal("writing the defaults over the defaults appends nothing")
	}

	for uri, want := range map[string]bool{
		"https://apps.test/status": true, "https://apps.test/status/welcome?x=1": true, "https://apps.test/statusx": false,
		"https://evil.test/status": false, "https://apps.test": false, "": false,
	} {
		if got := identity.UnderEntrypoint("https://apps.test/status", uri); got != want {
			t.Errorf("UnderEntrypoint(%q) = %v", uri, got)
		}
	}
	c, _ := identity.LoadCheckout(nil)
	ch, created := c.Provision("h", "o", "u", identity.CheckoutRequest{AppID: "status", Mode: "free"}, testNow)
	if !created || len(ch) != 1 {
		t.Fatal("first provision creates")
	}
	c, _ = identity.LoadCheckout(eventtest.History(t, ch...))
	if again, created := c.Provision("h", "o2", "u2", identity.CheckoutRequest{}, testNow); created || again != nil || c.State().OrganizationID != "o" {
		t.Fatal("the second provision of an email creates nothing")
	}
}
