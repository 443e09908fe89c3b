package identity_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/projections/history"
)

// Helpers of this file are prefixed sec (identity security test).

// secTOTP computes an RFC 6238 code the way an authenticator app does,
// independently of the platform's implementation: HMAC-SHA-1, 6 digits,
// 30-second steps, offset steps from now.
func secTOTP(t *testing.T, secret string, offset int64) string {
	t.Helper()
	key, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ToUpper(secret))
	if err != nil {
		t.Fatalf("secret %q: %v", secret, err)
	}
	var msg [8]byte
	binary.BigEndian.PutUint64(msg[:], uint64(time.Now().Unix()/30+offset))
	mac := hmac.New(sha1.New, key)
	mac.Write(msg[:])
	sum := mac.Sum(nil)
	off := sum[len(sum)-1] & 0x0f
	return fmt.Sprintf("%06d", (binary.BigEndian.Uint32(sum[off:off+4])&0x7fffffff)%1000000)
}

// secWrong is a 6-digit code that matches no step within the skew.
func secWrong(t *testing.T, secret string) string {
	t.Helper()
	for _, w := range []string{"000000", "999999", "123456"} {
		if w != secTOTP(t, secret, -1) && w != secTOTP(t, secret, 0) && w != secTOTP(t, secret, 1) && w != secTOTP(t, secret, 2) {
			return w
		}
	}
	t.Fatal("no wrong code found")
	return ""
}

type secEnrolled struct {
	Secret      string
	BackupCodes []string
}

type secProblem struct {
	Code              string    `json:"code"`
	Status            int       `json:"status"`
	MFAToken          string    `json:"mfa_token"`
	MFATokenExpiresAt time.Time `json:"mfa_token_expires_at"`
	Errors            []struct {
		Pointer string `json:"pointer"`
	} `json:"errors"`
}

type secSessionList struct {
	UserID   string `json:"user_id"`
	Sessions []struct {
		SessionID      string     `json:"session_id"`
		OrganizationID string     `json:"organization_id"`
		StartedAt      time.Time  `json:"started_at"`
		RefreshedAt    *time.Time `json:"refreshed_at"`
		ExpiresAt      time.Time  `json:"expires_at"`
		Current        bool       `json:"current"`
	} `json:"sessions"`
}

func (l secSessionList) find(id string) (current, found bool) {
	for _, s := range l.Sessions {
		if s.SessionID == id {
			return s.Current, true
		}
	}
	return false, false
}

// secEnroll enrolls and confirms TOTP for the session's user with a code
// computed from the returned secret.
func secEnroll(t *testing.T, h *apptest.Harness, token string) secEnrolled {
	t.Helper()
	res := h.Do(t, "identity", http.MethodPost, "/api/me/mfa/totp", token, nil)
	apptest.Must(t, res, http.StatusOK, "start TOTP enrollment")
	var start struct {
		Secret     string `json:"secret"`
		OTPAuthURI string `json:"otpauth_uri"`
		Digits     int    `json:"digits"`
		Period     int    `json:"period"`
	}
	res.JSON(t, &start)
	if res.Header.Get("Cache-Control") != "no-store" || start.Digits != 6 || start.Period != 30 || len(start.Secret) != 32 {
		t.Fatalf("enrollment answer: %s", res.Body)
	}
	u, err := url.Parse(start.OTPAuthURI)
	if err != nil || u.Scheme != "otpauth" || u.Host != "totp" || u.Query().Get("secret") != start.Secret ||
		u.Query().Get("algorithm") != "SHA1" || u.Query().Get("issuer") == "" {
		t.Fatalf("otpauth URI %q: %v", start.OTPAuthURI, err)
	}
	res = h.Do(t, "identity", http.MethodPost, "/api/me/mfa/totp/confirm", token, map[string]any{"code": secTOTP(t, start.Secret, 0)})
	apptest.Must(t, res, http.StatusOK, "confirm TOTP")
	var confirmed struct {
		Enabled         bool     `json:"enabled"`
		BackupCodes     []string `json:"backup_codes"`
		BackupCodesLeft int      `json:"backup_codes_left"`
	}
	res.JSON(t, &confirmed)
	seen := map[string]bool{}
	for _, c := range confirmed.BackupCodes {
		seen[c] = true
	}
	if !confirmed.Enabled || len(confirmed.BackupCodes) != 10 || len(seen) != 10 || confirmed.BackupCodesLeft != 10 {
		t.Fatalf("confirmation answer: %s", res.Body)
	}
	return secEnrolled{Secret: start.Secret, BackupCodes: confirmed.BackupCodes}
}

// secChallenge signs in with the password and expects the MFA challenge.
func secChallenge(t *testing.T, h *apptest.Harness, email, password string) string {
	t.Helper()
	res := iatLogin(t, h, email, password, nil)
	p := secExpect(t, res, http.StatusUnauthorized, "mfa_required")
	if !strings.HasPrefix(p.MFAToken, "mfa_") || time.Until(p.MFATokenExpiresAt) > 5*time.Minute+time.Second ||
		time.Until(p.MFATokenExpiresAt) < 4*time.Minute {
		t.Fatalf("challenge: %s", res.Body)
	}
	if res.Header.Get("Set-Cookie") != "" || bytes.Contains(res.Body, []byte("access_token")) {
		t.Fatalf("a challenged sign-in must start no session: %v %s", res.Header, res.Body)
	}
	return p.MFAToken
}

func secExpect(t *testing.T, res apptest.Response, status int, code string) secProblem {
	t.Helper()
	apptest.ExpectProblem(t, res, status, code)
	var p secProblem
	res.JSON(t, &p)
	return p
}

func secSecondStep(t *testing.T, h *apptest.Harness, mfaToken, code string) apptest.Response {
	t.Helper()
	return h.Do(t, "identity", http.MethodPost, "/login/mfa", "-", map[string]any{"mfaToken": mfaToken, "code": code, "returnRefreshToken": true})
}

func secSession(t *testing.T, res apptest.Response) iatSession {
	t.Helper()
	apptest.Must(t, res, http.StatusOK, "second sign-in step")
	var s iatSession
	res.JSON(t, &s)
	if !strings.HasPrefix(s.AccessToken, "pat_") || !strings.Contains(res.Header.Get("Set-Cookie"), "platform_refresh=prt_") {
		t.Fatalf("the second step answers a session like /login: %s", res.Body)
	}
	return s
}

// TestMFAEnrollmentAndSignIn: enrollment and confirmation with a computed
// code; sign-in then demands the second factor; wrong codes, replayed
// steps, used tokens and used backup codes fail; the right code starts a
// session that passes /validate; too many wrong codes lock; disable needs a
// code.
func TestMFAEnrollmentAndSignIn(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	owner := iatRegister(t, h, "mfaowner")
	userID, email, password := iatCreateUser(t, h, owner.Access, "member")
	member := iatLoginEventually(t, h, email, password)

	res := h.Do(t, "identity", http.MethodGet, "/api/me/mfa", member.AccessToken, nil)
	apptest.Must(t, res, http.StatusOK, "mfa status")
	if !bytes.Contains(res.Body, []byte(`"enabled":false`)) {
		t.Fatalf("before enrollment: %s", res.Body)
	}
	// An API key is no signed-in user.
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/me/mfa/totp", "", nil), http.StatusForbidden, "permission_denied")
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/me/mfa/totp/confirm", member.AccessToken, map[string]any{"code": "123456"}),
		http.StatusConflict, "mfa_not_enrolling")

	// A wrong confirmation code is refused on /code and leaves MFA off.
	res = h.Do(t, "identity", http.MethodPost, "/api/me/mfa/totp", member.AccessToken, nil)
	apptest.Must(t, res, http.StatusOK, "start enrollment")
	var pending struct {
		Secret string `json:"secret"`
	}
	res.JSON(t, &pending)
	p := secExpect(t, h.Do(t, "identity", http.MethodPost, "/api/me/mfa/totp/confirm", member.AccessToken,
		map[string]any{"code": secWrong(t, pending.Secret)}),
		http.StatusUnprocessableEntity, "invalid_input")
	if len(p.Errors) != 1 || p.Errors[0].Pointer != "/code" {
		t.Fatalf("wrong confirmation code: %+v", p)
	}
	apptest.Must(t, iatLogin(t, h, email, password, nil), http.StatusOK, "sign-in while enrollment is only pending")

	mfa := secEnroll(t, h, member.AccessToken) // replaces the pending secret
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/api/me/mfa/totp", member.AccessToken, nil), http.StatusConflict, "mfa_already_enabled")

	t.Run("the secret is sealed in the log and codes are hashed", func(t *testing.T) {
		if n := h.Count(t, `SELECT count(*) FROM es_events WHERE stream_id=$1 AND event_type='identity.user.mfa_enrolled'
			AND payload->>'mfa_secret' LIKE 'enc:v1:%'`, userID); n != 2 {
			t.Fatalf("sealed enrollments: %d", n)
		}
		for _, clear := range append([]string{mfa.Secret, pending.Secret}, mfa.BackupCodes...) {
			if n := h.Count(t, `SELECT count(*) FROM es_events WHERE payload::text ILIKE '%'||$1||'%'`, clear); n != 0 {
				t.Fatalf("%q is stored in clear", clear)
			}
		}
	})

	t.Run("sign-in demands the second factor", func(t *testing.T) {
		token := secChallenge(t, h, email, password)
		// The challenge token is no bearer credential.
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/validate", token, nil), http.StatusUnauthorized, "authentication_required")
		// A wrong password is still just a wrong password.
		apptest.ExpectProblem(t, iatLogin(t, h, email, "not the password", nil), http.StatusUnauthorized, "authentication_required")
		secExpect(t, secSecondStep(t, h, token, secWrong(t, mfa.Secret)), http.StatusUnauthorized, "mfa_code_invalid")
		secExpect(t, secSecondStep(t, h, token[:len(token)-2]+"xx", secTOTP(t, mfa.Secret, 1)), http.StatusUnauthorized, "mfa_token_invalid")
		// The confirming step is spent; the next step (within the skew) works.
		secExpect(t, secSecondStep(t, h, token, secTOTP(t, mfa.Secret, -1)), http.StatusUnauthorized, "mfa_code_invalid")
		code := secTOTP(t, mfa.Secret, 1)
		s := secSession(t, secSecondStep(t, h, token, code))
		if status, pr := iatValidate(t, h, s.AccessToken); status != http.StatusOK || pr.UserID != userID || pr.OrganizationID != owner.OrgID {
			t.Fatalf("the MFA session on /validate: %d %+v", status, pr)
		}
		// The token is single use, even with a good code.
		secExpect(t, secSecondStep(t, h, token, mfa.BackupCodes[9]), http.StatusUnauthorized, "mfa_token_invalid")

		// A used TOTP step is refused the second time.
		again := secChallenge(t, h, email, password)
		secExpect(t, secSecondStep(t, h, again, code), http.StatusUnauthorized, "mfa_code_invalid")

		// A backup code works once (typed in any case), then never again.
		secSession(t, secSecondStep(t, h, again, strings.ToUpper(mfa.BackupCodes[0])))
		third := secChallenge(t, h, email, password)
		secExpect(t, secSecondStep(t, h, third, mfa.BackupCodes[0]), http.StatusUnauthorized, "mfa_code_invalid")
		secSession(t, secSecondStep(t, h, third, mfa.BackupCodes[1]))
		res := h.Do(t, "identity", http.MethodGet, "/api/me/mfa", s.AccessToken, nil)
		if !bytes.Contains(res.Body, []byte(`"backup_codes_left":8`)) || !bytes.Contains(res.Body, []byte(`"enabled":true`)) {
			t.Fatalf("status after two backup codes: %s", res.Body)
		}
	})

	t.Run("disable needs a valid code", func(t *testing.T) {
		p := secExpect(t, h.Do(t, "identity", http.MethodDelete, "/api/me/mfa", member.AccessToken, map[string]any{"code": mfa.BackupCodes[0]}),
			http.StatusUnprocessableEntity, "invalid_input")
		if len(p.Errors) != 1 || p.Errors[0].Pointer != "/code" {
			t.Fatalf("disable with a used backup code: %+v", p)
		}
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodDelete, "/api/me/mfa", member.AccessToken, nil), http.StatusUnprocessableEntity, "invalid_input")
		apptest.Must(t, h.Do(t, "identity", http.MethodDelete, "/api/me/mfa", member.AccessToken, map[string]any{"code": mfa.BackupCodes[2]}),
			http.StatusOK, "disable MFA")
		apptest.Must(t, iatLogin(t, h, email, password, nil), http.StatusOK, "password-only sign-in after disabling")
	})

	t.Run("consecutive wrong codes lock the second step", func(t *testing.T) {
		again := secEnroll(t, h, member.AccessToken)
		token := secChallenge(t, h, email, password)
		for range 5 {
			secExpect(t, secSecondStep(t, h, token, "zzzz-zzzz-zzzz-zzzz"), http.StatusUnauthorized, "mfa_code_invalid")
		}
		res := secSecondStep(t, h, token, again.BackupCodes[0])
		secExpect(t, res, http.StatusTooManyRequests, "mfa_locked")
		if res.Header.Get("Retry-After") == "" {
			t.Fatal("a lockout says when to retry")
		}
	})
}

// TestSessionsListAndEnd: a user lists its open sessions (the calling one
// flagged, no token material) and ends one; an organization admin lists and
// ends a member's sessions; other organizations get 404, plain members 403,
// admins nothing above their rank.
func TestSessionsListAndEnd(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	owner := iatRegister(t, h, "sessowner")
	memberID, email, password := iatCreateUser(t, h, owner.Access, "member")
	s1 := iatLoginEventually(t, h, email, password)
	s2 := iatLoginEventually(t, h, email, password)
	foreign := iatRegister(t, h, "sessforeign")

	list := func(token, path string) secSessionList {
		t.Helper()
		res := h.Do(t, "identity", http.MethodGet, path, token, nil)
		apptest.Must(t, res, http.StatusOK, "list "+path)
		if m := regexp.MustCompile(`(?i)hash|token|pat_|prt_|secret`).Find(res.Body); m != nil {
			t.Fatalf("a session list holds %q: %s", m, res.Body)
		}
		var l secSessionList
		res.JSON(t, &l)
		return l
	}

	t.Run("own sessions, the current one flagged", func(t *testing.T) {
		var l secSessionList
		apptest.Eventually(t, 15*time.Second, "both sessions listed", func() bool {
			l = list(s1.AccessToken, "/api/me/sessions")
			_, ok1 := l.find(s1.SessionID)
			_, ok2 := l.find(s2.SessionID)
			return ok1 && ok2
		})
		cur1, _ := l.find(s1.SessionID)
		cur2, _ := l.find(s2.SessionID)
		if !cur1 || cur2 || l.UserID != memberID {
			t.Fatalf("current flags: %+v", l)
		}
		for _, s := range l.Sessions {
			if s.OrganizationID != owner.OrgID || s.StartedAt.IsZero() || !s.ExpiresAt.After(time.Now()) {
				t.Fatalf("session record: %+v", s)
			}
		}
		// A refresh shows up as refreshed_at.
		apptest.Must(t, h.Do(t, "identity", http.MethodPost, "/refresh", "-", map[string]any{"refreshToken": s2.RefreshToken}), http.StatusOK, "refresh s2")
		apptest.Eventually(t, 15*time.Second, "refreshed_at of s2", func() bool {
			for _, s := range list(s1.AccessToken, "/api/me/sessions").Sessions {
				if s.SessionID == s2.SessionID && s.RefreshedAt != nil {
					return true
				}
			}
			return false
		})
	})

	t.Run("ending one's own session", func(t *testing.T) {
		// Another user's session id is missing, not forbidden.
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodDelete, "/api/me/sessions/"+secSessionID(t, h, owner.Access), s1.AccessToken, nil),
			http.StatusNotFound, "not_found")
		res := h.Do(t, "identity", http.MethodDelete, "/api/me/sessions/"+s2.SessionID, s1.AccessToken, nil)
		apptest.Must(t, res, http.StatusOK, "end s2")
		if !bytes.Contains(res.Body, []byte(`"sessions_ended":1`)) {
			t.Fatalf("end answer: %s", res.Body)
		}
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/validate", s2.AccessToken, nil), http.StatusUnauthorized, "authentication_required")
		if _, found := list(s1.AccessToken, "/api/me/sessions").find(s2.SessionID); found {
			t.Fatal("an ended session is still listed")
		}
		if status, _ := iatValidate(t, h, s1.AccessToken); status != http.StatusOK {
			t.Fatalf("the calling session must survive: %d", status)
		}
	})

	memberPath := "/api/organizations/" + owner.OrgID + "/members/" + memberID + "/sessions"
	t.Run("organization isolation and roles", func(t *testing.T) {
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodGet, memberPath, foreign.Access, nil), http.StatusNotFound, "not_found")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodDelete, memberPath, foreign.Access, nil), http.StatusNotFound, "not_found")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodGet, "/api/organizations/"+foreign.OrgID+"/members/"+memberID+"/sessions",
			foreign.Access, nil), http.StatusNotFound, "not_found")
		ownerPath := "/api/organizations/" + owner.OrgID + "/members/" + owner.UserID + "/sessions"
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodGet, ownerPath, s1.AccessToken, nil), http.StatusForbidden, "permission_denied")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodDelete, ownerPath, s1.AccessToken, nil), http.StatusForbidden, "permission_denied")
		// An admin manages members, not the owner above it.
		adminID, adminEmail, adminPassword := iatCreateUser(t, h, owner.Access, "admin")
		admin := iatLoginEventually(t, h, adminEmail, adminPassword)
		apptest.Must(t, h.Do(t, "identity", http.MethodGet, ownerPath, admin.AccessToken, nil), http.StatusOK, "admin lists the owner's sessions")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodDelete, ownerPath, admin.AccessToken, nil), http.StatusForbidden, "permission_denied")
		_ = adminID
		l := list(admin.AccessToken, memberPath)
		if cur, found := l.find(s1.SessionID); !found || cur {
			t.Fatalf("the admin's view of the member: %+v", l)
		}
	})

	t.Run("an admin ends a member's sessions", func(t *testing.T) {
		apptest.Must(t, h.Do(t, "identity", http.MethodDelete, memberPath+"/"+s1.SessionID, owner.Access, nil), http.StatusOK, "end s1")
		apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/validate", s1.AccessToken, nil), http.StatusUnauthorized, "authentication_required")
		a := iatLoginEventually(t, h, email, password)
		b := iatLoginEventually(t, h, email, password)
		apptest.Eventually(t, 15*time.Second, "the new sessions listed", func() bool {
			l := list(owner.Access, memberPath)
			_, okA := l.find(a.SessionID)
			_, okB := l.find(b.SessionID)
			return okA && okB
		})
		res := h.Do(t, "identity", http.MethodDelete, memberPath, owner.Access, nil)
		apptest.Must(t, res, http.StatusOK, "end all")
		if !bytes.Contains(res.Body, []byte(a.SessionID)) || !bytes.Contains(res.Body, []byte(b.SessionID)) {
			t.Fatalf("end all: %s", res.Body)
		}
		for _, s := range []iatSession{a, b} {
			apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/validate", s.AccessToken, nil), http.StatusUnauthorized, "authentication_required")
		}
		if status, _ := iatValidate(t, h, owner.Access); status != http.StatusOK {
			t.Fatalf("the admin's own session: %d", status)
		}
	})
}

// secSessionID is the session id behind an access token.
func secSessionID(t *testing.T, h *apptest.Harness, token string) string {
	t.Helper()
	status, p := iatValidate(t, h, token)
	if status != http.StatusOK || p.SessionID == "" {
		t.Fatalf("validate: %d %+v", status, p)
	}
	return p.SessionID
}

// TestMFAAdminResetAndExport: an organization admin resets a member's MFA
// (another organization 404, a plain member 403); the member signs in with
// the password again; exports and the audit view hold no MFA secret.
func TestMFAAdminResetAndExport(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	owner := iatRegister(t, h, "resetowner")
	memberID, email, password := iatCreateUser(t, h, owner.Access, "member")
	member := iatLoginEventually(t, h, email, password)
	_, otherEmail, otherPassword := iatCreateUser(t, h, owner.Access, "member")
	other := iatLoginEventually(t, h, otherEmail, otherPassword)
	foreign := iatRegister(t, h, "resetforeign")
	mfa := secEnroll(t, h, member.AccessToken)
	secChallenge(t, h, email, password)

	path := "/api/organizations/" + owner.OrgID + "/members/" + memberID + "/mfa"
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodDelete, path, foreign.Access, nil), http.StatusNotFound, "not_found")
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodDelete, path, other.AccessToken, nil), http.StatusForbidden, "permission_denied")
	secChallenge(t, h, email, password) // still on

	res := h.Do(t, "identity", http.MethodDelete, path, owner.Access, nil)
	apptest.Must(t, res, http.StatusOK, "admin MFA reset")
	if !bytes.Contains(res.Body, []byte(`"enabled":false`)) {
		t.Fatalf("reset answer: %s", res.Body)
	}
	apptest.Must(t, iatLogin(t, h, email, password, nil), http.StatusOK, "password sign-in after the reset")
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodDelete, path, owner.Access, nil), http.StatusConflict, "mfa_not_enabled")

	t.Run("exports hold no MFA secret", func(t *testing.T) {
		var export apptest.Response
		apptest.Eventually(t, 15*time.Second, "the sessions in the user export", func() bool {
			export = h.Do(t, "identity", http.MethodGet, "/api/users/"+memberID+"/export", owner.Access, nil)
			return export.Status == http.StatusOK && bytes.Contains(export.Body, []byte(`"session_id"`))
		})
		orgExport := h.Do(t, "identity", http.MethodGet, "/api/organizations/"+owner.OrgID+"/export", owner.Access, nil)
		apptest.Must(t, orgExport, http.StatusOK, "organization export")
		var hashes []string
		rows, err := h.App.Pool.Query(context.Background(), `SELECT jsonb_array_elements_text(payload->'backup_code_hashes')
			FROM es_events WHERE stream_id=$1 AND event_type='identity.user.mfa_confirmed'`, memberID)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			hashes = append(hashes, s)
		}
		rows.Close()
		if len(hashes) != 10 {
			t.Fatalf("backup-code hashes in the log: %d", len(hashes))
		}
		forbidden := append(append([]string{mfa.Secret, strings.ToLower(mfa.Secret)}, mfa.BackupCodes...), hashes...)
		scan := regexp.MustCompile(`(?i)mfa|backup|secret|enc:v1:|hash|totp`)
		for name, body := range map[string][]byte{"user": export.Body, "organization": orgExport.Body} {
			for _, f := range forbidden {
				if bytes.Contains(body, []byte(f)) {
					t.Errorf("%s export contains %q", name, f)
				}
			}
			if m := scan.Find(body); m != nil {
				t.Errorf("%s export contains %q: %s", name, m, body)
			}
		}
	})

	t.Run("the audit view holds no MFA secret", func(t *testing.T) {
		ctx := context.Background()
		count := func(where string) int64 {
			sql, err := h.App.Reader.SQL(ctx, history.Projection{}, `SELECT count(*) FROM {{history_events}} WHERE stream_id=$1 AND `+where)
			if err != nil {
				t.Fatal(err)
			}
			return h.Count(t, sql, memberID)
		}
		apptest.Eventually(t, 15*time.Second, "the MFA events in the history", func() bool {
			return count(`event_type='identity.user.mfa_disabled'`) == 1
		})
		if n := count(`(payload::jsonb ? 'mfa_secret' OR payload::jsonb ? 'backup_code_hashes')`); n != 0 {
			t.Fatalf("%d audit records carry MFA material", n)
		}
		if n := count(`event_type IN ('identity.user.mfa_enrolled','identity.user.mfa_confirmed')`); n != 2 {
			t.Fatalf("the audit view still records the MFA events themselves: %d", n)
		}
	})
}

// TestSecurityDescriptors: every security route is an action descriptor
// (reads read-only, ends and resets destructive) listed in /api/actions.
func TestSecurityDescriptors(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true})
	actions := iatDescriptors(t, h)
	want := map[string][3]any{ // name -> method path, readOnly, destructive
		"app_platform_auth.mfa.get":                                {"GET /api/me/mfa", true, false},
		"app_platform_auth.mfa.totp.enroll":                        {"POST /api/me/mfa/totp", false, false},
		"app_platform_auth.mfa.totp.confirm":                       {"POST /api/me/mfa/totp/confirm", false, false},
		"app_platform_auth.mfa.disable":                            {"DELETE /api/me/mfa", false, true},
		"app_platform_auth.sessions.login_mfa":                     {"POST /login/mfa", false, false},
		"app_platform_auth.sessions.list":                          {"GET /api/me/sessions", true, false},
		"app_platform_auth.sessions.end":                           {"DELETE /api/me/sessions/{sessionId}", false, true},
		"app_platform_auth.organizations.members.sessions.list":    {"GET /api/organizations/{orgId}/members/{userId}/sessions", true, false},
		"app_platform_auth.organizations.members.sessions.end_all": {"DELETE /api/organizations/{orgId}/members/{userId}/sessions", false, true},
		"app_platform_auth.organizations.members.sessions.end":     {"DELETE /api/organizations/{orgId}/members/{userId}/sessions/{sessionId}", false, true},
		"app_platform_auth.organizations.members.mfa.reset":        {"DELETE /api/organizations/{orgId}/members/{userId}/mfa", false, true},
	}
	for name, w := range want {
		a, ok := actions[name]
		if !ok {
			t.Errorf("security action %s is not listed", name)
			continue
		}
		if a.Method+" "+a.Path != w[0] || a.ReadOnly != w[1] || a.Destructive != w[2] || a.Summary == "" || a.InputSchema["type"] != "object" {
			t.Errorf("%s: %s %s readOnly %v destructive %v", a.Name, a.Method, a.Path, a.ReadOnly, a.Destructive)
		}
	}
}
