package identity_test

import (
	"testing"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/event/eventtest"
	"github.com/platform/backend/domain/identity"
)

func resetRequest(token, hash string) identity.PasswordResetRequestedV1 {
	return identity.PasswordResetRequestedV1{UserID: "u", TokenID: token, SecretHash: hash, RequestedBy: identity.PasswordResetRequestedSelf}
}

// resetHistory requests tokens t1 (hash h1) at testNow and, when two, t2 (h2)
// a minute later.
func resetHistory(t *testing.T, two bool) []event.Recorded {
	t.Helper()
	r, _ := identity.LoadPasswordReset(nil)
	first, err := r.Request(resetRequest("t1", "h1"), testNow)
	if err != nil {
		t.Fatal(err)
	}
	h := eventtest.History(t, first...)
	if two {
		r, _ = identity.LoadPasswordReset(h)
		second, err := r.Request(resetRequest("t2", "h2"), testNow.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		h, _ = event.Append(h, second)
	}
	return h
}

func TestPasswordResetTokens(t *testing.T) {
	ttl := identity.PasswordResetTTL
	for _, tc := range []struct {
		name    string
		two     bool
		hash    string
		at      time.Time
		wantErr bool
	}{
		{"the current token works", false, "h1", testNow.Add(time.Minute), false},
		{"a wrong secret fails", false, "nope", testNow.Add(time.Minute), true},
		{"an expired token fails", false, "h1", testNow.Add(ttl), true},
		{"the last instant before expiry works", false, "h1", testNow.Add(ttl - time.Microsecond), false},
		{"a superseded token fails", true, "h1", testNow.Add(2 * time.Minute), true},
		{"the newest token works", true, "h2", testNow.Add(2 * time.Minute), false},
		{"nothing requested fails", false, "", testNow, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h []event.Recorded
			if tc.hash != "" {
				h = resetHistory(t, tc.two)
			}
			r, err := identity.LoadPasswordReset(h)
			if err != nil {
				t.Fatal(err)
			}
			changes, err := r.Complete(tc.hash, tc.at)
			if tc.wantErr {
				if e, _ := errs.As(err); e == nil || e.Code != "reset_token_invalid" || e.Kind != errs.KindConflict {
					t.Fatalf("want reset_token_invalid, got %v", err)
				}
				return
			}
			if err != nil || len(changes) != 1 || changes[0].Type != identity.PasswordResetCompleted {
				t.Fatalf("complete: %v %+v", err, changes)
			}
			// Single use: the same token fails afterwards.
			h, _ = event.Append(h, changes)
			r, _ = identity.LoadPasswordReset(h)
			if _, err := r.Complete(tc.hash, tc.at); err != identity.ErrResetTokenInvalid {
				t.Fatalf("second use: %v", err)
			}
		})
	}
}

func TestPasswordResetThrottle(t *testing.T) {
	var h []event.Recorded
	for i := range identity.PasswordResetMaxPerWindow {
		r, _ := identity.LoadPasswordReset(h)
		c, err := r.Request(resetRequest("t", "h"), testNow.Add(time.Duration(i)*time.Minute))
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if p := c[0].Payload.(identity.PasswordResetRequestedV1); !p.ExpiresAt.Equal(p.At.Add(identity.PasswordResetTTL)) {
			t.Fatalf("expiry %v for %v", p.ExpiresAt, p.At)
		}
		h, _ = event.Append(h, c)
	}
	r, _ := identity.LoadPasswordReset(h)
	if _, err := r.Request(resetRequest("t", "h"), testNow.Add(10*time.Minute)); err == nil || err.(*errs.Error).Code != "reset_throttled" {
		t.Fatalf("over the cap: %v", err)
	}
	if _, err := r.Request(resetRequest("t", "h"), testNow.Add(identity.PasswordResetWindow+5*time.Minute)); err != nil {
		t.Fatalf("after the window: %v", err)
	}
	if _, err := r.Request(identity.PasswordResetRequestedV1{UserID: "u"}, testNow); errs.KindOf(err) != errs.KindInvalidInput {
		t.Fatalf("a request without a secret: %v", err)
	}
}

func TestSetPasswordEndingSessions(t *testing.T) {
	u, _ := identity.LoadUser(nil)
	created, err := u.Create(identity.NewUser{ID: "u", HomeOrganizationID: "o", Email: "a@example.test", EmailHash: "eh",
		SealedEmail: "enc:v1:e", SealedPassword: "enc:v1:old"}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	h := eventtest.History(t, created...)
	for _, tc := range []struct {
		name   string
		sealed string
		kind   errs.Kind
	}{
		{"a new password raises the epoch", "enc:v1:new", -1},
		{"an empty password is refused", "", errs.KindInvalidInput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, _ := identity.LoadUser(h)
			changes, err := u.SetPasswordEndingSessions(tc.sealed, testNow)
			if tc.kind >= 0 {
				if errs.KindOf(err) != tc.kind {
					t.Fatalf("want kind %d, got %v", tc.kind, err)
				}
				return
			}
			if err != nil || len(changes) != 2 || changes[0].Type != identity.UserPasswordChanged || changes[1].Type != identity.UserSessionsRevoked {
				t.Fatalf("changes %+v, %v", changes, err)
			}
			after, _ := event.Append(h, changes)
			u, _ = identity.LoadUser(after)
			if u.SealedPassword() != tc.sealed || u.SessionEpoch() != 1 {
				t.Fatalf("password %q epoch %d", u.SealedPassword(), u.SessionEpoch())
			}
		})
	}
	u, _ = identity.LoadUser(h)
	deleted, err := u.SoftDelete(testNow)
	if err != nil || len(deleted) != 1 {
		t.Fatalf("soft delete: %v", err)
	}
	gone, _ := event.Append(h, deleted)
	u, _ = identity.LoadUser(gone)
	if _, err := u.SetPasswordEndingSessions("enc:v1:x", testNow); errs.KindOf(err) != errs.KindNotFound {
		t.Fatalf("a deleted user's password changes: %v", err)
	}
}
