package identity_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
)

// lbtShape is what an answer shows about an account: status, problem code,
// Retry-After, and the members and detail of the body.
func lbtShape(t *testing.T, res apptest.Response) string {
	t.Helper()
	var body map[string]any
	if err := json.Unmarshal(res.Body, &body); err != nil {
		t.Fatalf("body %s: %v", res.Body, err)
	}
	var keys []string
	for k := range body {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out, _ := json.Marshal([]any{res.Status, body["code"], body["detail"], res.Header.Get("Retry-After"), keys})
	return string(out)
}

// TestLoginBackoffPerAccount: password guesses were limited per client
// address only (20 wrong tries from each of several addresses, then the
// right one succeeded: black-box attack run). Now each account counts its
// failures: after five, password attempts wait out a doubling window (429
// rate_limited + Retry-After), the right password included, answered the
// same for an address without an account; a signed-in session goes on, a
// success ends the run, and a completed password reset clears it.
func TestLoginBackoffPerAccount(t *testing.T) {
	h, smtp := recHarness(t)
	ctx := context.Background()
	a := iatRegister(t, h, "backoff")
	iatLoginEventually(t, h, a.Email, a.Password) // the sign-in works, and resets nothing yet
	unknown := iatEmail("noaccount")

	for i := 1; i <= 5; i++ {
		apptest.ExpectProblem(t, iatLogin(t, h, a.Email, "wrong password", nil), http.StatusUnauthorized, "authentication_required")
		apptest.ExpectProblem(t, iatLogin(t, h, unknown, "wrong password", nil), http.StatusUnauthorized, "authentication_required")
	}
	known := iatLogin(t, h, a.Email, a.Password, nil) // the right password, inside the window
	apptest.ExpectProblem(t, known, http.StatusTooManyRequests, "rate_limited")
	none := iatLogin(t, h, unknown, a.Password, nil)
	apptest.ExpectProblem(t, none, http.StatusTooManyRequests, "rate_limited")
	if known.Header.Get("Retry-After") != "1" || lbtShape(t, known) != lbtShape(t, none) {
		t.Fatalf("an account and an address without one answer differently:\n%s\n%s", lbtShape(t, known), lbtShape(t, none))
	}

	// Not a lockout: the signed-in session goes on.
	if status, p := iatValidate(t, h, a.Access); status != http.StatusOK || p.UserID != a.UserID {
		t.Fatalf("the session during the backoff: %d %+v", status, p)
	}

	// After the window the right password works and ends the run.
	time.Sleep(1100 * time.Millisecond)
	apptest.Must(t, iatLogin(t, h, a.Email, a.Password, nil), http.StatusOK, "sign in after the window")
	for i := 1; i <= 4; i++ {
		apptest.ExpectProblem(t, iatLogin(t, h, a.Email, "wrong password", nil), http.StatusUnauthorized, "authentication_required")
	}
	apptest.Must(t, iatLogin(t, h, a.Email, a.Password, nil), http.StatusOK, "the run restarted from zero")

	// A long window (as after many failures) does not keep the owner out:
	// a completed password reset clears it.
	account, err := h.Identity().Keys().EmailHash(ctx, a.Email)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.App.Pool.Exec(ctx, `INSERT INTO identity_login_failures (account, failures, last_failure_at, blocked_until)
		VALUES ($1, 14, now(), now() + interval '15 minutes') ON CONFLICT (account) DO UPDATE SET failures=14,
		last_failure_at=now(), blocked_until=now() + interval '15 minutes'`, account); err != nil {
		t.Fatal(err)
	}
	res := iatLogin(t, h, a.Email, a.Password, nil)
	apptest.ExpectProblem(t, res, http.StatusTooManyRequests, "rate_limited")
	if ra := res.Header.Get("Retry-After"); ra == "" || ra == "1" {
		t.Fatalf("Retry-After %q during a long window", ra)
	}
	apptest.Must(t, h.Do(t, "identity", http.MethodPost, "/password-reset", "-", map[string]any{"email": a.Email}), http.StatusAccepted, "forgot password")
	token := recAwaitToken(t, smtp, a.Email, 1, recResetPattern)
	apptest.Must(t, h.Do(t, "identity", http.MethodPost, "/password-reset/complete", "-", map[string]any{"token": token, "newPassword": "a brand new password"}),
		http.StatusOK, "complete the reset")
	apptest.Must(t, iatLogin(t, h, a.Email, "a brand new password", nil), http.StatusOK, "sign in with the new password at once")
}
