package identity_test

import (
	"bytes"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
)

// Helpers of this file are prefixed ent (enumeration test).

var entSignupPattern = regexp.MustCompile(`su_[A-Za-z0-9_-]{40,}`)

// entSame fails unless two answers show the same thing: status, content
// type, position header and body bytes.
func entSame(t *testing.T, what string, a, b apptest.Response) {
	t.Helper()
	if a.Status != b.Status || a.Header.Get("Content-Type") != b.Header.Get("Content-Type") ||
		a.Header.Get("X-Platform-Position") != b.Header.Get("X-Platform-Position") || !bytes.Equal(a.Body, b.Body) {
		t.Fatalf("%s: the answers differ:\n%d %s %q %s\n%d %s %q %s", what, a.Status, a.Header.Get("Content-Type"),
			a.Header.Get("X-Platform-Position"), a.Body, b.Status, b.Header.Get("Content-Type"), b.Header.Get("X-Platform-Position"), b.Body)
	}
}

// entProblemShape: status, code and detail of a problem (request ids differ).
func entProblemShape(t *testing.T, res apptest.Response) string {
	t.Helper()
	var p apptest.Problem
	res.JSON(t, &p)
	return strings.Join([]string{res.Header.Get("Content-Type"), p.Code, p.Detail, p.Title}, "|") + "|" + http.StatusText(res.Status)
}

// TestSignupDoesNotTellAccounts: POST /register answered 409 email_taken for
// any address with an account (black-box attack run). Now every well-formed
// sign-up is 202 with the same body; the address gets a confirmation link,
// or, when it has an account, a notice; the link signs in once; no second
// account or organization is made for a taken address.
func TestSignupDoesNotTellAccounts(t *testing.T) {
	h, smtp := recHarness(t)
	existing := iatRegister(t, h, "suexisting")
	fresh := iatEmail("sufresh")
	takenSlug, freshSlug := iatSlug("sutaken"), iatSlug("sufresh")
	body := func(email, slug string) map[string]any {
		return map[string]any{"email": email, "password": "a long sign-up password", "name": "New Person",
			"organizationName": "New Org", "organizationSlug": slug, "developerWorkspace": true, "createOrganization": true}
	}
	before := h.Events(t, "identity")
	taken := h.Do(t, "identity", http.MethodPost, "/register", "-", body(existing.Email, takenSlug))
	apptest.Must(t, taken, http.StatusAccepted, "sign-up with an address that has an account")
	unused := h.Do(t, "identity", http.MethodPost, "/register", "-", body(fresh, freshSlug))
	apptest.Must(t, unused, http.StatusAccepted, "sign-up with a new address")
	entSame(t, "sign-up", taken, unused)
	if after := h.Events(t, "identity"); after != before {
		t.Fatalf("a sign-up request appended %d events before its confirmation", after-before)
	}

	// The address with an account is told so by email, with no link that signs up.
	var notice string
	apptest.Eventually(t, 15*time.Second, "the notice to the existing account", func() bool {
		msgs := recMailTo(smtp, existing.Email)
		if len(msgs) == 0 {
			return false
		}
		notice = msgs[0].Data
		return true
	})
	if !strings.Contains(notice, "already has an account") || entSignupPattern.MatchString(notice) {
		t.Fatalf("notice:\n%s", notice)
	}

	// The new address gets a link that signs up once.
	token := recAwaitToken(t, smtp, fresh, 1, entSignupPattern)
	if !strings.Contains(recMailTo(smtp, fresh)[0].Data, "https://id.platform.test/register/confirm?token=") {
		t.Fatalf("the email lacks the confirmation link:\n%s", recMailTo(smtp, fresh)[0].Data)
	}
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/register/confirm", "-", map[string]any{"token": token[:len(token)-2] + "xx"}),
		http.StatusConflict, "signup_token_invalid")
	res := h.Do(t, "identity", http.MethodPost, "/register/confirm", "-", map[string]any{"token": token, "returnRefreshToken": true})
	apptest.Must(t, res, http.StatusCreated, "confirm")
	var out struct {
		Organization struct {
			OrganizationID string `json:"organization_id"`
		} `json:"organization"`
		Session iatSession `json:"session"`
	}
	res.JSON(t, &out)
	if out.Session.Role != "owner" || out.Session.OrganizationID != out.Organization.OrganizationID {
		t.Fatalf("confirm answer: %s", res.Body)
	}
	if status, p := iatValidate(t, h, out.Session.AccessToken); status != http.StatusOK || p.UserID != out.Session.UserID {
		t.Fatalf("the confirmed session: %d %+v", status, p)
	}
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/register/confirm", "-", map[string]any{"token": token}),
		http.StatusConflict, "signup_token_used")
	apptest.Must(t, iatLogin(t, h, fresh, "a long sign-up password", nil), http.StatusOK, "the new account signs in")

	// The taken address got no second account and its slug holds nothing.
	avail := h.Do(t, "identity", http.MethodGet, "/api/internal/organizations/slug-availability?slug="+takenSlug, existing.Access, nil)
	if !bytes.Contains(avail.Body, []byte(`"reason":"available"`)) {
		t.Fatalf("the refused sign-up holds its slug: %s", avail.Body)
	}
	if n := h.Count(t, `SELECT count(*) FROM es_unique WHERE kind='email' AND stream_id=$1`, existing.UserID); n != 1 {
		t.Fatalf("claims of the existing account: %d", n)
	}
	// What the form refuses, it refuses for every address alike.
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/register", "-", body(existing.Email, "www")), http.StatusUnprocessableEntity, "invalid_input")
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, "/register", "-", body(iatEmail("x"), freshSlug)), http.StatusConflict, "slug_taken")
}

// TestAddUserDoesNotTellAccounts: another tenant's POST /api/users
// answered 409 email_taken for an address with an account anywhere
// (black-box attack run). Now a tenant admin gets the same 202 body for an
// address with an account elsewhere (which is invited, and joins when it
// accepts) as for a new one (an account of the organization); only its own
// members and pending invitations are 409, alike for both.
func TestAddUserDoesNotTellAccounts(t *testing.T) {
	h, smtp := recHarness(t)
	victim := iatRegister(t, h, "addvictim")
	admin := iatRegister(t, h, "addadmin")
	fresh := iatEmail("addfresh")
	add := func(email, key string) apptest.Response {
		headers := []string{}
		if key != "" {
			headers = append(headers, "Idempotency-Key", key)
		}
		return h.Do(t, "identity", http.MethodPost, "/api/users", admin.Access,
			map[string]any{"email": email, "role": "member", "name": "Someone", "password": "an admin chosen password"}, headers...)
	}
	elsewhere := add(victim.Email, "")
	apptest.Must(t, elsewhere, http.StatusAccepted, "add an address with an account elsewhere")
	unused := add(fresh, "")
	apptest.Must(t, unused, http.StatusAccepted, "add a new address")
	entSame(t, "users.create", elsewhere, unused)

	// Twice: 409 for both, alike (a member here; a pending invitation here).
	again1, again2 := add(victim.Email, ""), add(fresh, "")
	apptest.ExpectProblem(t, again1, http.StatusConflict, "email_taken")
	apptest.ExpectProblem(t, again2, http.StatusConflict, "email_taken")
	if entProblemShape(t, again1) != entProblemShape(t, again2) {
		t.Fatalf("second adds differ:\n%s\n%s", again1.Body, again2.Body)
	}

	// The same request again with its Idempotency-Key answers as the first time, on either path.
	other := iatRegister(t, h, "addother")
	for _, email := range []string{other.Email, iatEmail("addkeyed")} {
		first, replay := add(email, "k-"+email), add(email, "k-"+email)
		apptest.Must(t, first, http.StatusAccepted, "keyed add")
		apptest.Must(t, replay, http.StatusAccepted, "keyed add replayed")
		if replay.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(first.Body, replay.Body) {
			t.Fatalf("replay of %s: %v %s", email, replay.Header, replay.Body)
		}
	}

	// The account elsewhere is untouched (its password, its organization) and invited.
	apptest.Must(t, iatLogin(t, h, victim.Email, victim.Password, nil), http.StatusOK, "the victim's own password")
	apptest.ExpectProblem(t, iatLogin(t, h, victim.Email, "an admin chosen password", nil), http.StatusUnauthorized, "authentication_required")
	code := recAwaitToken(t, smtp, victim.Email, 1, recInvitePattern)
	apptest.Must(t, recAccept(t, h, victim.Access, map[string]any{"code": code}), http.StatusOK, "the victim accepts")
	login := iatLogin(t, h, victim.Email, victim.Password, map[string]any{"organizationId": admin.OrgID})
	apptest.Must(t, login, http.StatusOK, "the victim signs in to the inviting organization")
	// The new address is an account of the organization, with the admin's password.
	var s iatSession
	res := iatLogin(t, h, fresh, "an admin chosen password", nil)
	apptest.Must(t, res, http.StatusOK, "the new account signs in")
	res.JSON(t, &s)
	if s.OrganizationID != admin.OrgID || s.Role != "member" {
		t.Fatalf("new account session %+v", s)
	}
}
