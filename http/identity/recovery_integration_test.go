package identity_test

import (
	"bytes"
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	identitycmd "github.com/platform/backend/commands/identity"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/module"
	identitymod "github.com/platform/backend/internal/modules/identity"
	"github.com/platform/backend/providers/email"
	"github.com/platform/backend/providers/email/smtptest"
)

// Helpers of this file are prefixed rec (recovery and onboarding test).

var (
	recResetPattern  = regexp.MustCompile(`pwr_[0-9a-f-]{36}\.[A-Za-z0-9_-]+`)
	recInvitePattern = regexp.MustCompile(`inv_[0-9a-f-]{36}\.[0-9a-f-]{36}\.[A-Za-z0-9_-]+`)
)

// recHarness starts a platform whose email goes to a local SMTP server.
func recHarness(t *testing.T) (*apptest.Harness, *smtptest.Server) {
	t.Helper()
	smtp := smtptest.Start(t)
	h := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		module.SectionOf[*identitymod.Config](c.Modules).SMTP = email.SMTP{Addr: smtp.Addr, From: "noreply@platform.test", Timeout: 5 * time.Second}
		module.SectionOf[*identitymod.Config](c.Modules).PublicURL = "https://id.platform.test"
	}})
	return h, smtp
}

// recMailTo lists the messages sent to one address.
func recMailTo(smtp *smtptest.Server, to string) []smtptest.Message {
	var out []smtptest.Message
	for _, m := range smtp.Messages() {
		if len(m.To) == 1 && strings.EqualFold(m.To[0], to) {
			out = append(out, m)
		}
	}
	return out
}

// recAwaitToken waits for the n-th message to an address and extracts the
// token the pattern matches.
func recAwaitToken(t *testing.T, smtp *smtptest.Server, to string, n int, pattern *regexp.Regexp) string {
	t.Helper()
	var token string
	apptest.Eventually(t, 15*time.Second, "email to "+to, func() bool {
		msgs := recMailTo(smtp, to)
		if len(msgs) < n {
			return false
		}
		token = pattern.FindString(msgs[n-1].Data)
		return true
	})
	if token == "" {
		t.Fatalf("no token in the email to %s:\n%s", to, recMailTo(smtp, to)[n-1].Data)
	}
	return token
}

// recPostSession is the session part of an answer that signs in.
type recPostSession struct {
	UserID        string     `json:"user_id"`
	SessionsEnded string     `json:"sessions_ended"`
	CreatedUser   bool       `json:"created_user"`
	Role          string     `json:"role"`
	Session       iatSession `json:"session"`
}

// recEventPayloads concatenates the stored payloads of one event type on a stream.
func recEventPayloads(t *testing.T, h *apptest.Harness, eventType, streamID string) string {
	t.Helper()
	var out string
	err := h.App.Pool.QueryRow(context.Background(), `SELECT coalesce(string_agg(payload::text, ' '), '') FROM es_events
		WHERE event_type=$1 AND stream_id=$2`, eventType, streamID).Scan(&out)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// recExportsClean fetches the user's and the organization's exports and
// fails on any of the given secrets or on secret-looking words.
func recExportsClean(t *testing.T, h *apptest.Harness, token, orgID, userID string, secrets ...string) {
	t.Helper()
	words := regexp.MustCompile(`(?i)argon2|password|hash|secret|token|pwr_|inv_|enc:v1:|reset|invitation|code`)
	for _, path := range []string{"/api/users/" + userID + "/export", "/api/organizations/" + orgID + "/export"} {
		var res apptest.Response
		apptest.Eventually(t, 15*time.Second, path, func() bool {
			res = h.Do(t, "identity", http.MethodGet, path, token, nil)
			return res.Status == http.StatusOK
		})
		if m := words.Find(res.Body); m != nil {
			t.Errorf("%s contains %q: %s", path, m, res.Body)
		}
		for _, s := range secrets {
			if s != "" && bytes.Contains(res.Body, []byte(s)) {
				t.Errorf("%s contains the secret %q", path, s)
			}
		}
	}
}

// recAuditClean waits for a stream's events in the audit view (ops history)
// and fails if any of the secrets shows there.
func recAuditClean(t *testing.T, h *apptest.Harness, token, streamID, eventType string, secrets ...string) {
	t.Helper()
	var res apptest.Response
	apptest.Eventually(t, 15*time.Second, "the audit view of "+streamID, func() bool {
		res = h.Do(t, "ops", http.MethodGet, "/api/history?streamId="+streamID, token, nil)
		return res.Status == http.StatusOK && bytes.Contains(res.Body, []byte(eventType))
	})
	for _, s := range secrets {
		if bytes.Contains(res.Body, []byte(s)) {
			t.Errorf("the audit view of %s contains the secret %q: %s", streamID, s, res.Body)
		}
	}
}

// TestRecoveryPasswordReset: forgot password answers the same for known and
// unknown emails; the emailed token sets the password once, ends every
// session, and the old password stops working; the token exists at rest only
// as a hash, and no export shows either.
func TestRecoveryPasswordReset(t *testing.T) {
	h, smtp := recHarness(t)
	a := iatRegister(t, h, "rcvself")
	second := iatLoginEventually(t, h, a.Email, a.Password)

	known := h.Do(t, "identity", http.MethodPost, "/password-reset", "-", map[string]any{"email": a.Email})
	unknownEmail := iatEmail("nobody")
	unknown := h.Do(t, "identity", http.MethodPost, "/password-reset", "-", map[string]any{"email": unknownEmail})
	apptest.Must(t, known, http.StatusAccepted, "forgot password (known)")
	apptest.Must(t, unknown, http.StatusAccepted, "forgot password (unknown)")
	if !bytes.Equal(known.Body, unknown.Body) || known.Header.Get("Content-Type") != unknown.Header.Get("Content-Type") {
		t.Fatalf("known and unknown emails answer differently:\n%s\n%s", known.Body, unknown.Body)
	}
	if bytes.Contains(known.Body, []byte("pwr_")) {
		t.Fatalf("the answer carries the token: %s", known.Body)
	}
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/password-reset", "-", map[string]any{"email": "not an email"}),
		http.StatusUnprocessableEntity, "invalid_input")

	token := recAwaitToken(t, smtp, a.Email, 1, recResetPattern)
	if !strings.Contains(recMailTo(smtp, a.Email)[0].Data, "https://id.platform.test/password-reset/complete?token=") {
		t.Fatalf("the email lacks the reset link:\n%s", recMailTo(smtp, a.Email)[0].Data)
	}
	secret := token[strings.IndexByte(token, '.')+1:]
	stored := recEventPayloads(t, h, domain.PasswordResetRequested, domain.PasswordResetStreamID(a.UserID))
	if !strings.Contains(stored, identitycmd.HashSecret(secret)) || strings.Contains(stored, secret) {
		t.Fatalf("the reset event must hold the secret's SHA-256 only: %s", stored)
	}

	t.Run("a short password is refused and spends nothing", func(t *testing.T) {
		p := apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/password-reset/complete", "-",
			map[string]any{"token": token, "newPassword": "short"}), http.StatusUnprocessableEntity, "invalid_input")
		if len(p.Errors) != 1 || p.Errors[0].Pointer != "/newPassword" {
			t.Fatalf("errors %+v", p.Errors)
		}
	})
	t.Run("an unknown token is refused", func(t *testing.T) {
		forged := token[:len(token)-4] + "AAAA"
		for _, tok := range []string{forged, "pwr_nonsense", "pwr_" + a.OrgID + ".x"} {
			apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/password-reset/complete", "-",
				map[string]any{"token": tok, "newPassword": "a brand new password"}), http.StatusConflict, "reset_token_invalid")
		}
	})

	newPassword := "a brand new password"
	res := h.Do(t, "identity", http.MethodPost, "/password-reset/complete", "-", map[string]any{"token": token, "newPassword": newPassword})
	apptest.Must(t, res, http.StatusOK, "complete reset")
	var done struct {
		UserID        string `json:"user_id"`
		SessionsEnded string `json:"sessions_ended"`
	}
	res.JSON(t, &done)
	if done.UserID != a.UserID || done.SessionsEnded != "all" {
		t.Fatalf("answer %s", res.Body)
	}
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/password-reset/complete", "-",
		map[string]any{"token": token, "newPassword": "yet another password"}), http.StatusConflict, "reset_token_invalid")

	for name, tok := range map[string]string{"registration session": a.Access, "second session": second.AccessToken} {
		if status, _ := iatValidate(t, h, tok); status != http.StatusUnauthorized {
			t.Errorf("%s after the reset: /validate %d, want 401", name, status)
		}
	}
	apptest.ExpectProblem(t, iatLogin(t, h, a.Email, a.Password, nil), http.StatusUnauthorized, "authentication_required")
	fresh := iatLogin(t, h, a.Email, newPassword, nil)
	apptest.Must(t, fresh, http.StatusOK, "sign-in with the new password")
	var s iatSession
	fresh.JSON(t, &s)
	if status, p := iatValidate(t, h, s.AccessToken); status != http.StatusOK || p.UserID != a.UserID {
		t.Fatalf("the new session: %d %+v", status, p)
	}
	if n := len(recMailTo(smtp, unknownEmail)); n != 0 {
		t.Fatalf("%d emails went to an unknown address", n)
	}
	recExportsClean(t, h, s.AccessToken, a.OrgID, a.UserID, token, secret, identitycmd.HashSecret(secret))
	recAuditClean(t, h, s.AccessToken, domain.PasswordResetStreamID(a.UserID), domain.PasswordResetCompleted,
		secret, identitycmd.HashSecret(secret))
}

// TestRecoveryAdminPasswordReset: a same-organization admin sends a reset to a
// member (the token goes to the member only); not to a member ranked above;
// a member cannot; another organization's admin gets 404.
func TestRecoveryAdminPasswordReset(t *testing.T) {
	h, smtp := recHarness(t)
	owner := iatRegister(t, h, "rcvowner")
	other := iatRegister(t, h, "rcvother")
	adminID, adminEmail, adminPassword := iatCreateUser(t, h, owner.Access, "admin")
	memberID, memberEmail, memberPassword := iatCreateUser(t, h, owner.Access, "member")
	admin := iatLoginEventually(t, h, adminEmail, adminPassword)
	member := iatLoginEventually(t, h, memberEmail, memberPassword)
	path := func(org, user string) string {
		return "/api/organizations/" + org + "/members/" + user + "/password-reset"
	}

	res := h.Do(t, "identity", http.MethodPost, path(owner.OrgID, memberID), admin.AccessToken, nil)
	apptest.Must(t, res, http.StatusAccepted, "admin resets a member")
	var sent struct {
		UserID    string    `json:"user_id"`
		ExpiresAt time.Time `json:"expires_at"`
		EmailSent bool      `json:"email_sent"`
	}
	res.JSON(t, &sent)
	if sent.UserID != memberID || !sent.EmailSent || time.Until(sent.ExpiresAt) > 31*time.Minute || bytes.Contains(res.Body, []byte("pwr_")) {
		t.Fatalf("answer %s", res.Body)
	}
	token := recAwaitToken(t, smtp, memberEmail, 1, recResetPattern)
	if n := len(recMailTo(smtp, adminEmail)); n != 0 {
		t.Fatalf("the admin received %d emails", n)
	}
	// Triggering is not a lockout: the member's session goes on until the reset is used.
	if status, _ := iatValidate(t, h, member.AccessToken); status != http.StatusOK {
		t.Fatalf("the member's session after the trigger: %d", status)
	}

	t.Run("not to a member ranked above", func(t *testing.T) {
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, path(owner.OrgID, owner.UserID), admin.AccessToken, nil),
			http.StatusForbidden, "permission_denied")
	})
	t.Run("a member cannot", func(t *testing.T) {
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, path(owner.OrgID, adminID), member.AccessToken, nil),
			http.StatusForbidden, "permission_denied")
	})
	t.Run("another organization answers 404", func(t *testing.T) {
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, path(owner.OrgID, memberID), other.Access, nil),
			http.StatusNotFound, "not_found")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, path(other.OrgID, memberID), other.Access, nil),
			http.StatusNotFound, "not_found")
	})
	t.Run("an owner resets an admin", func(t *testing.T) {
		apptest.Must(t, h.Do(t, "identity", http.MethodPost, path(owner.OrgID, adminID), owner.Access, nil), http.StatusAccepted, "owner resets admin")
		recAwaitToken(t, smtp, adminEmail, 1, recResetPattern)
	})

	apptest.Must(t, h.Do(t, "identity", http.MethodPost, "/password-reset/complete", "-",
		map[string]any{"token": token, "newPassword": "the member's new password"}), http.StatusOK, "member completes")
	if status, _ := iatValidate(t, h, member.AccessToken); status != http.StatusUnauthorized {
		t.Fatalf("the member's session after the reset: %d, want 401", status)
	}
	apptest.Must(t, iatLogin(t, h, memberEmail, "the member's new password", nil), http.StatusOK, "member signs in")
}

// TestRecoveryPasswordChange: the signed-in user changes its password with
// the current one; other sessions end, the caller gets a replacement.
func TestRecoveryPasswordChange(t *testing.T) {
	h, _ := recHarness(t)
	a := iatRegister(t, h, "rcvchange")
	second := iatLoginEventually(t, h, a.Email, a.Password)
	change := func(token, current, next string) apptest.Response {
		return h.Do(t, "identity", http.MethodPost, "/api/me/password", token,
			map[string]any{"currentPassword": current, "newPassword": next, "returnRefreshToken": true})
	}

	p := apptest.ExpectProblem(t, change(a.Access, "not the password", "a long new password"), http.StatusForbidden, "permission_denied")
	if !strings.Contains(p.Detail, "current password") {
		t.Fatalf("detail %q should name the current password", p.Detail)
	}
	p = apptest.ExpectProblem(t, change(a.Access, a.Password, "short"), http.StatusUnprocessableEntity, "invalid_input")
	if len(p.Errors) != 1 || p.Errors[0].Pointer != "/newPassword" {
		t.Fatalf("errors %+v", p.Errors)
	}
	apptest.ExpectProblem(t, change(h.APIKey, a.Password, "a long new password"), http.StatusForbidden, "permission_denied")
	apptest.ExpectProblem(t, change("-", a.Password, "a long new password"), http.StatusUnauthorized, "authentication_required")
	// Refusals change nothing.
	if status, _ := iatValidate(t, h, second.AccessToken); status != http.StatusOK {
		t.Fatalf("a refused change ended a session: %d", status)
	}

	newPassword := "a long new password"
	res := change(a.Access, a.Password, newPassword)
	apptest.Must(t, res, http.StatusOK, "change password")
	var out recPostSession
	res.JSON(t, &out)
	if out.UserID != a.UserID || out.SessionsEnded != "all_previous" || !strings.HasPrefix(out.Session.AccessToken, "pat_") ||
		out.Session.OrganizationID != a.OrgID || !strings.Contains(res.Header.Get("Set-Cookie"), "HttpOnly") {
		t.Fatalf("answer %s / %v", res.Body, res.Header)
	}
	for name, tok := range map[string]string{"calling session": a.Access, "other session": second.AccessToken} {
		if status, _ := iatValidate(t, h, tok); status != http.StatusUnauthorized {
			t.Errorf("%s after the change: /validate %d, want 401", name, status)
		}
	}
	if status, pr := iatValidate(t, h, out.Session.AccessToken); status != http.StatusOK || pr.UserID != a.UserID || pr.Role != "owner" {
		t.Fatalf("replacement session: %d %+v", status, pr)
	}
	apptest.ExpectProblem(t, iatLogin(t, h, a.Email, a.Password, nil), http.StatusUnauthorized, "authentication_required")
	apptest.Must(t, iatLogin(t, h, a.Email, newPassword, nil), http.StatusOK, "sign-in with the new password")

	stored := recEventPayloads(t, h, domain.UserPasswordChanged, a.UserID)
	if !strings.Contains(stored, `"password_hash": "enc:v1:`) || strings.Contains(stored, "argon2") {
		t.Fatalf("the new password hash must be sealed: %s", stored)
	}
}

type recInvitation struct {
	InvitationID   string    `json:"invitation_id"`
	OrganizationID string    `json:"organization_id"`
	Email          string    `json:"email"`
	Role           string    `json:"role"`
	State          string    `json:"state"`
	ExpiresAt      time.Time `json:"expires_at"`
}

func recInvite(t *testing.T, h *apptest.Harness, token, orgID, address, role string) apptest.Response {
	t.Helper()
	return h.Do(t, "identity", http.MethodPost, "/api/organizations/"+orgID+"/invitations", token, map[string]any{"email": address, "role": role})
}

func recInviteOK(t *testing.T, h *apptest.Harness, token, orgID, address, role string) recInvitation {
	t.Helper()
	res := recInvite(t, h, token, orgID, address, role)
	apptest.Must(t, res, http.StatusCreated, "invite "+address)
	var inv recInvitation
	res.JSON(t, &inv)
	if inv.State != "pending" || inv.Role != role || inv.OrganizationID != orgID || inv.Email != "" ||
		bytes.Contains(res.Body, []byte("inv_")) || bytes.Contains(res.Body, []byte("hash")) {
		t.Fatalf("invitation answer %s", res.Body)
	}
	return inv
}

func recAccept(t *testing.T, h *apptest.Harness, token string, body map[string]any) apptest.Response {
	t.Helper()
	return h.Do(t, "identity", http.MethodPost, "/invitations/accept", token, body)
}

// TestInvitationFlow: a new invitee creates its account by accepting (once);
// an existing user accepts signed in as the invited email's user; a revoked
// invitation fails; the list shows pending invitations and no code or hash.
func TestInvitationFlow(t *testing.T) {
	h, smtp := recHarness(t)
	owner := iatRegister(t, h, "invowner")
	newcomer := iatEmail("newcomer")
	inv := recInviteOK(t, h, owner.Access, owner.OrgID, newcomer, "member")
	if d := time.Until(inv.ExpiresAt); d < 6*24*time.Hour || d > 7*24*time.Hour+time.Minute {
		t.Fatalf("expires in %s, want 7 days", d)
	}
	code := recAwaitToken(t, smtp, newcomer, 1, recInvitePattern)
	if !strings.Contains(recMailTo(smtp, newcomer)[0].Data, "https://id.platform.test/invitations/accept?code=") {
		t.Fatalf("the email lacks the accept link:\n%s", recMailTo(smtp, newcomer)[0].Data)
	}
	secret := code[strings.LastIndexByte(code, '.')+1:]

	t.Run("the list shows the pending invitation, no code", func(t *testing.T) {
		res := h.Do(t, "identity", http.MethodGet, "/api/organizations/"+owner.OrgID+"/invitations", owner.Access, nil)
		apptest.Must(t, res, http.StatusOK, "list")
		var body struct{ Invitations []recInvitation }
		res.JSON(t, &body)
		if len(body.Invitations) != 1 || body.Invitations[0].InvitationID != inv.InvitationID || body.Invitations[0].Email != newcomer {
			t.Fatalf("list %s", res.Body)
		}
		for _, s := range []string{secret, identitycmd.HashSecret(secret), "inv_", "hash", "enc:v1:"} {
			if bytes.Contains(res.Body, []byte(s)) {
				t.Fatalf("the list contains %q: %s", s, res.Body)
			}
		}
		stored := recEventPayloads(t, h, domain.InvitationCreated, domain.InvitationStreamID(owner.OrgID))
		if !strings.Contains(stored, identitycmd.HashSecret(secret)) || strings.Contains(stored, secret) || strings.Contains(stored, newcomer) {
			t.Fatalf("the invitation event must hold the code's hash and the sealed email only: %s", stored)
		}
	})

	t.Run("a new account accepts once", func(t *testing.T) {
		p := apptest.ExpectProblem(t, recAccept(t, h, "-", map[string]any{"code": code}), http.StatusUnprocessableEntity, "invalid_input")
		if len(p.Errors) != 1 || p.Errors[0].Pointer != "/password" {
			t.Fatalf("errors %+v", p.Errors)
		}
		apptest.ExpectProblem(t, recAccept(t, h, "-", map[string]any{"code": code[:len(code)-3] + "xyz", "password": "the newcomer's password"}),
			http.StatusNotFound, "not_found")
		res := recAccept(t, h, "-", map[string]any{"code": code, "name": "Newcomer", "password": "the newcomer's password", "returnRefreshToken": true})
		apptest.Must(t, res, http.StatusOK, "accept")
		var out recPostSession
		res.JSON(t, &out)
		if !out.CreatedUser || out.Role != "member" || out.Session.OrganizationID != owner.OrgID || !strings.HasPrefix(out.Session.AccessToken, "pat_") {
			t.Fatalf("answer %s", res.Body)
		}
		if status, pr := iatValidate(t, h, out.Session.AccessToken); status != http.StatusOK || pr.OrganizationID != owner.OrgID || pr.Role != "member" {
			t.Fatalf("the newcomer's session: %d %+v", status, pr)
		}
		apptest.ExpectProblem(t, recAccept(t, h, "-", map[string]any{"code": code, "password": "another password!"}), http.StatusConflict, "invitation_accepted")
		apptest.ExpectProblem(t, recAccept(t, h, out.Session.AccessToken, map[string]any{"code": code}), http.StatusConflict, "invitation_accepted")
		apptest.Must(t, iatLogin(t, h, newcomer, "the newcomer's password", nil), http.StatusOK, "the newcomer signs in")
		list := h.Do(t, "identity", http.MethodGet, "/api/organizations/"+owner.OrgID+"/invitations", owner.Access, nil)
		if bytes.Contains(list.Body, []byte(inv.InvitationID)) {
			t.Fatalf("an accepted invitation is still pending: %s", list.Body)
		}
		all := h.Do(t, "identity", http.MethodGet, "/api/organizations/"+owner.OrgID+"/invitations?state=all", owner.Access, nil)
		if !bytes.Contains(all.Body, []byte(`"state":"accepted"`)) {
			t.Fatalf("state=all lacks the accepted invitation: %s", all.Body)
		}
		recExportsClean(t, h, out.Session.AccessToken, owner.OrgID, out.UserID, code, secret, identitycmd.HashSecret(secret))
		recAuditClean(t, h, owner.Access, domain.InvitationStreamID(owner.OrgID), domain.InvitationAccepted,
			secret, identitycmd.HashSecret(secret), newcomer)
	})

	t.Run("a revoked invitation fails", func(t *testing.T) {
		revokee := iatEmail("revokee")
		inv := recInviteOK(t, h, owner.Access, owner.OrgID, revokee, "guest")
		code := recAwaitToken(t, smtp, revokee, 1, recInvitePattern)
		res := h.Do(t, "identity", http.MethodDelete, "/api/organizations/"+owner.OrgID+"/invitations/"+inv.InvitationID, owner.Access, nil)
		apptest.Must(t, res, http.StatusOK, "revoke")
		if !bytes.Contains(res.Body, []byte(`"state":"revoked"`)) {
			t.Fatalf("revoke answer %s", res.Body)
		}
		apptest.ExpectProblem(t, recAccept(t, h, "-", map[string]any{"code": code, "password": "the revokee's password"}), http.StatusConflict, "invitation_revoked")
		apptest.Must(t, h.Do(t, "identity", http.MethodDelete, "/api/organizations/"+owner.OrgID+"/invitations/"+inv.InvitationID, owner.Access, nil),
			http.StatusOK, "revoke twice")
		// The email can be invited again once nothing is pending.
		recInviteOK(t, h, owner.Access, owner.OrgID, revokee, "guest")
	})

	t.Run("an existing user accepts signed in", func(t *testing.T) {
		existing := iatRegister(t, h, "invexisting")
		bystander := iatRegister(t, h, "invbystander")
		inv := recInviteOK(t, h, owner.Access, owner.OrgID, existing.Email, "guest")
		code := recAwaitToken(t, smtp, existing.Email, 1, recInvitePattern)
		apptest.ExpectProblem(t, recAccept(t, h, "-", map[string]any{"code": code, "password": "a password to take over"}),
			http.StatusUnauthorized, "authentication_required")
		apptest.ExpectProblem(t, recAccept(t, h, bystander.Access, map[string]any{"code": code}), http.StatusForbidden, "permission_denied")
		apptest.ExpectProblem(t, recAccept(t, h, h.APIKey, map[string]any{"code": code}), http.StatusForbidden, "permission_denied")
		res := recAccept(t, h, existing.Access, map[string]any{"code": code})
		apptest.Must(t, res, http.StatusOK, "accept signed in")
		var out struct {
			InvitationID string `json:"invitation_id"`
			UserID       string `json:"user_id"`
			Role         string `json:"role"`
			CreatedUser  bool   `json:"created_user"`
		}
		res.JSON(t, &out)
		if out.InvitationID != inv.InvitationID || out.UserID != existing.UserID || out.Role != "guest" || out.CreatedUser {
			t.Fatalf("answer %s", res.Body)
		}
		apptest.ExpectProblem(t, recAccept(t, h, existing.Access, map[string]any{"code": code}), http.StatusConflict, "invitation_accepted")
		login := iatLogin(t, h, existing.Email, existing.Password, map[string]any{"organizationId": owner.OrgID})
		apptest.Must(t, login, http.StatusOK, "sign in to the inviting organization")
		var s iatSession
		login.JSON(t, &s)
		if s.OrganizationID != owner.OrgID || s.Role != "guest" {
			t.Fatalf("session %+v", s)
		}
		// Already a member: a second invitation is refused at accept and stays pending.
		recInviteOK(t, h, owner.Access, owner.OrgID, existing.Email, "member")
		again := recAwaitToken(t, smtp, existing.Email, 2, recInvitePattern)
		apptest.ExpectProblem(t, recAccept(t, h, existing.Access, map[string]any{"code": again}), http.StatusConflict, "already_member")
	})
}

// TestInvitationAuthorization: members cannot invite, admins cannot invite
// above their rank, platform roles are never invited, another organization's
// admin gets 404, and one email has one pending invitation.
func TestInvitationAuthorization(t *testing.T) {
	h, smtp := recHarness(t)
	owner := iatRegister(t, h, "invauth")
	other := iatRegister(t, h, "invforeign")
	_, adminEmail, adminPassword := iatCreateUser(t, h, owner.Access, "admin")
	_, memberEmail, memberPassword := iatCreateUser(t, h, owner.Access, "member")
	admin := iatLoginEventually(t, h, adminEmail, adminPassword)
	member := iatLoginEventually(t, h, memberEmail, memberPassword)
	list := "/api/organizations/" + owner.OrgID + "/invitations"

	apptest.ExpectProblem(t, recInvite(t, h, member.AccessToken, owner.OrgID, iatEmail("x"), "guest"), http.StatusForbidden, "permission_denied")
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodGet, list, member.AccessToken, nil), http.StatusForbidden, "permission_denied")
	apptest.ExpectProblem(t, recInvite(t, h, admin.AccessToken, owner.OrgID, iatEmail("x"), "owner"), http.StatusForbidden, "permission_denied")
	apptest.ExpectProblem(t, recInvite(t, h, admin.AccessToken, owner.OrgID, iatEmail("x"), "super_admin"), http.StatusForbidden, "permission_denied")
	p := apptest.ExpectProblem(t, recInvite(t, h, owner.Access, owner.OrgID, iatEmail("x"), "platform_admin"), http.StatusUnprocessableEntity, "invalid_input")
	if len(p.Errors) == 0 || p.Errors[0].Pointer != "/role" {
		t.Fatalf("errors %+v", p.Errors)
	}
	p = apptest.ExpectProblem(t, recInvite(t, h, owner.Access, owner.OrgID, "not-an-email", "member"), http.StatusUnprocessableEntity, "invalid_input")
	if len(p.Errors) == 0 || p.Errors[0].Pointer != "/email" {
		t.Fatalf("errors %+v", p.Errors)
	}

	invited := iatEmail("invitedbyadmin")
	inv := recInviteOK(t, h, admin.AccessToken, owner.OrgID, invited, "admin")
	apptest.ExpectProblem(t, recInvite(t, h, owner.Access, owner.OrgID, invited, "member"), http.StatusConflict, "invitation_pending")

	t.Run("another organization answers 404", func(t *testing.T) {
		apptest.ExpectProblem(t, recInvite(t, h, other.Access, owner.OrgID, iatEmail("x"), "guest"), http.StatusNotFound, "not_found")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodGet, list, other.Access, nil), http.StatusNotFound, "not_found")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodDelete, list+"/"+inv.InvitationID, other.Access, nil), http.StatusNotFound, "not_found")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodDelete, "/api/organizations/"+other.OrgID+"/invitations/"+inv.InvitationID, other.Access, nil),
			http.StatusNotFound, "not_found")
	})
	t.Run("a member cannot revoke", func(t *testing.T) {
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodDelete, list+"/"+inv.InvitationID, member.AccessToken, nil), http.StatusForbidden, "permission_denied")
	})
	t.Run("an admin cannot revoke an owner's invitation to an owner", func(t *testing.T) {
		top := recInviteOK(t, h, owner.Access, owner.OrgID, iatEmail("coowner"), "owner")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodDelete, list+"/"+top.InvitationID, admin.AccessToken, nil), http.StatusForbidden, "permission_denied")
		apptest.Must(t, h.Do(t, "identity", http.MethodDelete, list+"/"+top.InvitationID, owner.Access, nil), http.StatusOK, "owner revokes")
	})
	// Refused invitations sent nothing.
	for _, m := range smtp.Messages() {
		if m.To[0] != invited && !strings.Contains(m.To[0], "coowner") {
			t.Errorf("an email went to %s", m.To[0])
		}
	}
}

// TestRecoveryDescriptors: every new route is an action descriptor.
func TestRecoveryDescriptors(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true})
	actions := iatDescriptors(t, h)
	want := map[string][2]bool{ // name -> readOnly, destructive
		"app_platform_auth.users.password.change":                {false, false},
		"app_platform_auth.password_reset.request":               {false, false},
		"app_platform_auth.password_reset.complete":              {false, false},
		"app_platform_auth.organizations.members.password_reset": {false, false},
		"app_platform_auth.invitations.create":                   {false, false},
		"app_platform_auth.invitations.list":                     {true, false},
		"app_platform_auth.invitations.revoke":                   {false, true},
		"app_platform_auth.invitations.accept":                   {false, false},
	}
	for name, w := range want {
		a, ok := actions[name]
		if !ok {
			t.Errorf("action %s is not listed", name)
			continue
		}
		if a.ReadOnly != w[0] || a.Destructive != w[1] || a.Summary == "" || a.InputSchema["properties"] == nil {
			t.Errorf("%s: readOnly %v destructive %v summary %q schema %v", a.Name, a.ReadOnly, a.Destructive, a.Summary, a.InputSchema)
		}
	}
}
