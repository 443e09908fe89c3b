package identity_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/testenv"
)

// Helpers of this file are prefixed ck (checkout test).

const ckPath = "/api/internal/provision-from-checkout"

func ckBody(email, app, mode string) map[string]any {
	b := map[string]any{"email": email, "workspaceName": "Acme Studio", "appId": app, "redirectUri": accApps + "/" + app + "/welcome",
		"mode": mode, "name": "Ada"}
	if mode == "count" {
		b["paidAppCount"] = 2
	}
	return b
}

// ckProvision calls provisioning and expects 200.
func ckProvision(t *testing.T, h *apptest.Harness, token string, body map[string]any) accProvisioned {
	t.Helper()
	res := h.Do(t, "identity", http.MethodPost, ckPath, token, body)
	apptest.Must(t, res, http.StatusOK, "provision")
	var p accProvisioned
	res.JSON(t, &p)
	if p.OrgID == "" || p.UserID == "" || !strings.HasPrefix(p.LoginURL, "https://id.platform.test/magic-link/consume?token=ml_") {
		t.Fatalf("provision answer %s", res.Body)
	}
	return p
}

// ckSignIn consumes a trusted login link and answers the session.
func ckSignIn(t *testing.T, h *apptest.Harness, p accProvisioned) string {
	t.Helper()
	res := accConsume(t, h, http.MethodGet, p.LoginURL)
	apptest.Must(t, res, http.StatusOK, "consume login link")
	var s accSession
	res.JSON(t, &s)
	if !strings.HasPrefix(s.Session.AccessToken, "pat_") || s.Session.UserID != p.UserID || s.Session.OrganizationID != p.OrgID {
		t.Fatalf("session of %+v: %s", p, res.Body)
	}
	return s.Session.AccessToken
}

type ckServiceAccess struct {
	Services []domain.ServiceGrant `json:"services"`
	Settings struct {
		AppEntitlement *domain.Entitlement `json:"appEntitlement"`
	} `json:"settings"`
}

func ckAccess(t *testing.T, h *apptest.Harness, token, org string) ckServiceAccess {
	t.Helper()
	res := h.Do(t, "identity", http.MethodGet, "/api/organizations/"+org+"/service-access", token, nil)
	apptest.Must(t, res, http.StatusOK, "service access")
	var sa ckServiceAccess
	res.JSON(t, &sa)
	return sa
}

func (sa ckServiceAccess) provisioned(app string) bool {
	return slices.ContainsFunc(sa.Services, func(g domain.ServiceGrant) bool { return g.AppID == app && g.Source == domain.AccessProvision })
}

// ckAnchor writes an email's checkout anchor directly, as a provision call
// does after its owner lookup found nobody.
func ckAnchor(t *testing.T, h *apptest.Harness, email, org, user string) string {
	t.Helper()
	ctx := context.Background()
	hash, err := h.Identity().Keys().EmailHash(ctx, domain.NormalizeEmail(email))
	if err != nil {
		t.Fatal(err)
	}
	stream := domain.CheckoutStreamID(hash)
	m := commands.Meta{OrganizationID: domain.PlatformTenant, Actor: eventstore.Actor{ID: "test", Type: "system"}}
	if _, err := commands.Run(ctx, h.Identity().Store(), m, domain.StreamCheckout, stream,
		func(history []event.Recorded) ([]event.Change, struct{}, error) {
			c, err := domain.LoadCheckout(history)
			if err != nil {
				return nil, struct{}{}, err
			}
			ch, _ := c.Provision(hash, org, user, domain.CheckoutRequest{AppID: "design", Mode: "free"}, time.Now().UTC())
			return ch, struct{}{}, nil
		}); err != nil {
		t.Fatal(err)
	}
	return stream
}

// TestCheckoutAfterErasureAndDeletion: an erased buyer is provisioned
// afresh (created true, new ids, a link that works); the erased id's data
// key stays destroyed; a soft-deleted workspace or account is a clear 409
// until it is restored or erased; an erased workspace gets a new one for
// the same owner.
func TestCheckoutAfterErasureAndDeletion(t *testing.T) {
	h, _ := accHarness(t)
	ctx := context.Background()
	payments := accServiceToken(t, h, "payments")

	t.Run("the buyer erased the account", func(t *testing.T) {
		mail := testenv.UniqueName("erased") + "@example.com"
		first := ckProvision(t, h, payments, ckBody(mail, "design", "free"))
		session := ckSignIn(t, h, first)
		// The last owner deletes the workspace first, then erases the account.
		apptest.Must(t, h.Do(t, "identity", http.MethodDelete, "/api/organizations/"+first.OrgID, session, nil), http.StatusOK, "soft delete")
		apptest.Must(t, h.Do(t, "identity", http.MethodDelete, "/api/users/"+first.UserID+"/permanent", session, map[string]any{"confirm": true}),
			http.StatusOK, "self erasure")

		// The erased id's key is never made again: sealing for it is refused.
		_, err := h.Identity().Keys().Seal(ctx, first.UserID, "anything")
		if e, ok := errs.As(err); !ok || e.Kind != errs.KindConflict || e.Code != "subject_erased" {
			t.Fatalf("sealing for an erased user: %v", err)
		}
		if n := accCount(t, h, `SELECT count(*) FROM identity_data_keys WHERE subject_id=$1 AND data_key IS NULL AND destroyed_at IS NOT NULL`,
			first.UserID); n != 1 {
			t.Fatalf("destroyed-key markers of the erased user: %d, want 1", n)
		}

		again := ckProvision(t, h, payments, ckBody(mail, "design", "free"))
		if !again.Created || again.UserID == first.UserID || again.OrgID == first.OrgID {
			t.Fatalf("provision after erasure %+v (first %+v)", again, first)
		}
		ckSignIn(t, h, again)
		if n := accCount(t, h, `SELECT count(*) FROM identity_data_keys WHERE subject_id=$1 AND data_key IS NOT NULL`, first.UserID); n != 0 {
			t.Fatal("the erased user's key was made again")
		}
		// The superseding anchor is recorded on the checkout stream.
		if n := accCount(t, h, `SELECT count(*) FROM es_events WHERE event_type=$1 AND payload->>'supersedes'=$2 AND payload->>'organization_id'=$3`,
			domain.CheckoutProvisioned, first.OrgID, again.OrgID); n != 1 {
			t.Fatalf("superseding anchors: %d", n)
		}
		third := ckProvision(t, h, payments, ckBody(mail, "design", "free"))
		if third.Created || third.OrgID != again.OrgID || third.UserID != again.UserID {
			t.Fatalf("the new anchor holds: %+v vs %+v", third, again)
		}
	})

	t.Run("the workspace was deleted", func(t *testing.T) {
		mail := testenv.UniqueName("orgdel") + "@example.com"
		first := ckProvision(t, h, payments, ckBody(mail, "design", "free"))
		session := ckSignIn(t, h, first)
		org := "/api/organizations/" + first.OrgID
		apptest.Must(t, h.Do(t, "identity", http.MethodDelete, org, session, nil), http.StatusOK, "soft delete")
		p := secExpect(t, h.Do(t, "identity", http.MethodPost, ckPath, payments, ckBody(mail, "design", "free")), http.StatusConflict, "organization_deleted")
		if p.Status != http.StatusConflict {
			t.Fatalf("problem %+v", p)
		}
		apptest.Must(t, h.Do(t, "identity", http.MethodPost, org+"/restore", session, nil), http.StatusOK, "restore")
		restored := ckProvision(t, h, payments, ckBody(mail, "design", "free"))
		if restored.Created || restored.OrgID != first.OrgID || restored.UserID != first.UserID {
			t.Fatalf("after restore %+v", restored)
		}

		apptest.Must(t, h.Do(t, "identity", http.MethodDelete, org, session, nil), http.StatusOK, "soft delete again")
		apptest.Must(t, h.Do(t, "identity", http.MethodDelete, org+"/permanent?confirm=true", session, nil), http.StatusOK, "erase the workspace")
		fresh := ckProvision(t, h, payments, ckBody(mail, "design", "free"))
		if !fresh.Created || fresh.OrgID == first.OrgID || fresh.UserID != first.UserID {
			t.Fatalf("after the workspace's erasure: a new one for the same owner, got %+v (first %+v)", fresh, first)
		}
		session = ckSignIn(t, h, fresh)

		// A soft-deleted account is a 409 as well (its email stays claimed).
		apptest.Must(t, h.Do(t, "identity", http.MethodDelete, "/api/organizations/"+fresh.OrgID, session, nil), http.StatusOK, "soft delete")
		apptest.Must(t, h.Do(t, "identity", http.MethodDelete, "/api/users/"+first.UserID, session, nil), http.StatusOK, "soft delete the account")
		secExpect(t, h.Do(t, "identity", http.MethodPost, ckPath, payments, ckBody(mail, "design", "free")), http.StatusConflict, "account_deleted")
	})
}

// TestCheckoutRepeatPurchaseGrants: every purchase grants its app and
// records its entitlement, on an anchored workspace and on an existing
// owner's one.
func TestCheckoutRepeatPurchaseGrants(t *testing.T) {
	h, _ := accHarness(t)
	payments := accServiceToken(t, h, "payments")
	mail := testenv.UniqueName("repeat") + "@example.com"
	first := ckProvision(t, h, payments, ckBody(mail, "design", "count"))
	session := ckSignIn(t, h, first)
	// The agent is a default service (every organization's, like the
	// studio): the second purchase records its entitlement on a grant that
	// holds already.
	if sa := ckAccess(t, h, session, first.OrgID); !sa.provisioned("design") ||
		sa.Settings.AppEntitlement == nil || sa.Settings.AppEntitlement.Mode != "count" {
		t.Fatalf("first purchase: %+v", sa)
	}
	second := ckProvision(t, h, payments, ckBody(mail, "agent", "all"))
	if second.Created || second.OrgID != first.OrgID {
		t.Fatalf("second purchase %+v", second)
	}
	sa := ckAccess(t, h, session, first.OrgID)
	if !sa.provisioned("agent") || !sa.provisioned("design") || sa.Settings.AppEntitlement == nil ||
		sa.Settings.AppEntitlement.Mode != "all" || sa.Settings.AppEntitlement.PaidAppCount != nil {
		t.Fatalf("the second purchase's app and entitlement: %+v", sa)
	}
	// A retry of the same purchase appends nothing.
	before := accCount(t, h, `SELECT count(*) FROM es_events WHERE stream_id=$1`, domain.AccessStreamID(first.OrgID))
	ckProvision(t, h, payments, ckBody(mail, "agent", "all"))
	if n := accCount(t, h, `SELECT count(*) FROM es_events WHERE stream_id=$1`, domain.AccessStreamID(first.OrgID)); n != before {
		t.Fatalf("a repeated purchase appended %d access events", n-before)
	}

	t.Run("an existing owner outside checkout", func(t *testing.T) {
		a := iatRegister(t, h, "ckowner")
		got := ckProvision(t, h, payments, ckBody(a.Email, "agent", "free"))
		if got.Created || got.OrgID != a.OrgID || got.UserID != a.UserID {
			t.Fatalf("existing owner %+v, want %s/%s", got, a.OrgID, a.UserID)
		}
		sa := ckAccess(t, h, a.Access, a.OrgID)
		if !sa.provisioned("agent") || sa.Settings.AppEntitlement == nil || sa.Settings.AppEntitlement.Mode != "free" {
			t.Fatalf("the existing owner's purchase: %+v", sa)
		}
	})
}

// TestCheckoutRegisterRace: a sign-up that claims the email after a
// checkout anchored it (the checkout's owner lookup came first): the
// checkout serves the signed-up owner's workspace, makes no organization
// of its own, and erases one an earlier version left without an owner.
func TestCheckoutRegisterRace(t *testing.T) {
	h, _ := accHarness(t)
	ctx := context.Background()
	payments := accServiceToken(t, h, "payments")

	a := iatRegister(t, h, "ckrace")
	org, user := uuid.Must(uuid.NewV7()).String(), uuid.Must(uuid.NewV7()).String()
	stream := ckAnchor(t, h, a.Email, org, user)
	for i := range 2 {
		got := ckProvision(t, h, payments, ckBody(a.Email, "design", "free"))
		if got.Created || got.OrgID != a.OrgID || got.UserID != a.UserID {
			t.Fatalf("call %d: %+v, want the signed-up owner %s/%s", i, got, a.OrgID, a.UserID)
		}
	}
	if n := accCount(t, h, `SELECT count(*) FROM es_events WHERE stream_id = ANY($1)`, []string{org, user}); n != 0 {
		t.Fatalf("%d events of the anchor's organization or owner; none may exist", n)
	}
	if n := accCount(t, h, `SELECT count(*) FROM es_events WHERE stream_id=$1 AND event_type=$2`, stream, domain.CheckoutReleased); n != 1 {
		t.Fatalf("releases of the anchor: %d", n)
	}

	t.Run("a half-made organization of an earlier version", func(t *testing.T) {
		b := iatRegister(t, h, "ckhalf")
		org, user := uuid.Must(uuid.NewV7()).String(), uuid.Must(uuid.NewV7()).String()
		ckAnchor(t, h, b.Email, org, user)
		m := commands.Meta{Actor: eventstore.Actor{ID: "test", Type: "system"}}
		if _, err := h.Identity().CreateOrganization(ctx, m, identitycmd.CreateOrganization{ID: org, Name: "Half made",
			Slug: iatSlug("half"), Owner: user}); err != nil {
			t.Fatal(err)
		}
		got := ckProvision(t, h, payments, ckBody(b.Email, "design", "free"))
		if got.Created || got.OrgID != b.OrgID || got.UserID != b.UserID {
			t.Fatalf("%+v, want %s/%s", got, b.OrgID, b.UserID)
		}
		if n := accCount(t, h, `SELECT count(*) FROM es_events WHERE stream_id=$1 AND event_type=$2`, org, domain.OrganizationPermanentlyDeleted); n != 1 {
			t.Fatal("the ownerless organization was left behind")
		}
	})
}

// TestCheckoutSlugCarriesNoPersonalData: a checkout-made organization's
// slug is random; the workspace name appears nowhere in clear.
func TestCheckoutSlugCarriesNoPersonalData(t *testing.T) {
	h, _ := accHarness(t)
	marker := "jd" + strings.ReplaceAll(testenv.UniqueName("x"), "_", "")
	body := ckBody(testenv.UniqueName("slug")+"@example.com", "design", "free")
	body["workspaceName"] = marker + " Consulting"
	got := ckProvision(t, h, accServiceToken(t, h, "payments"), body)
	var slug string
	if err := h.App.Pool.QueryRow(context.Background(), `SELECT payload->>'slug' FROM es_events WHERE stream_id=$1 AND event_type=$2`,
		got.OrgID, domain.OrganizationCreated).Scan(&slug); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^ws-[a-z2-7]{16}$`).MatchString(slug) || !domain.ValidSlug(slug) {
		t.Fatalf("slug %q", slug)
	}
	for _, q := range []string{`SELECT count(*) FROM es_events WHERE payload::text ILIKE '%'||$1||'%'`,
		`SELECT count(*) FROM es_idempotency WHERE result::text ILIKE '%'||$1||'%'`,
		`SELECT count(*) FROM es_unique WHERE value ILIKE '%'||$1||'%'`} {
		if n := accCount(t, h, q, marker[:10]); n != 0 {
			t.Errorf("%s: the workspace name is stored in clear", q)
		}
	}
}

// TestCheckoutServiceKeyRetiredElsewhere: a key retired by another process
// stops verifying in this one at once; the successor key works.
func TestCheckoutServiceKeyRetiredElsewhere(t *testing.T) {
	h, _ := accHarness(t)
	ctx := context.Background()
	old := accServiceToken(t, h, "payments")
	body := ckBody(testenv.UniqueName("keys")+"@example.com", "design", "free")
	ckProvision(t, h, old, body) // this process has verified the key

	other := identitycmd.NewServiceKeys(h.App.Pool, nil)
	if _, err := other.Rotate(ctx); err != nil {
		t.Fatal(err)
	}
	header, _ := base64.RawURLEncoding.DecodeString(strings.Split(old, ".")[0])
	var hdr struct{ Kid string }
	if err := json.Unmarshal(header, &hdr); err != nil || hdr.Kid == "" {
		t.Fatalf("token header %s: %v", header, err)
	}
	if err := other.Retire(ctx, hdr.Kid); err != nil {
		t.Fatal(err)
	}
	apptest.ExpectProblem(t, h.Do(t, "identity", http.MethodPost, ckPath, old, body), http.StatusUnauthorized, "authentication_required")
	if _, err := h.Access().Keys().Verify(ctx, old); err == nil {
		t.Fatal("the serving process still verifies a retired key")
	}
	ckProvision(t, h, accServiceToken(t, h, "payments"), body)
}

// TestCheckoutMagicLinkMFA: a provisioned owner who turned MFA on gets the
// second step from a checkout link, not a session; the code completes it;
// the link is spent.
func TestCheckoutMagicLinkMFA(t *testing.T) {
	h, _ := accHarness(t)
	payments := accServiceToken(t, h, "payments")
	mail := testenv.UniqueName("mfa") + "@example.com"
	first := ckProvision(t, h, payments, ckBody(mail, "design", "free"))
	mfa := secEnroll(t, h, ckSignIn(t, h, first))

	link := ckProvision(t, h, payments, ckBody(mail, "design", "free"))
	if link.Created || link.UserID != first.UserID {
		t.Fatalf("second provision %+v", link)
	}
	res := accConsume(t, h, http.MethodGet, link.LoginURL)
	p := secExpect(t, res, http.StatusUnauthorized, "mfa_required")
	if !strings.HasPrefix(p.MFAToken, "mfa_") || time.Until(p.MFATokenExpiresAt) <= 0 {
		t.Fatalf("challenge %s", res.Body)
	}
	if res.Header.Get("Set-Cookie") != "" || bytes.Contains(res.Body, []byte("access_token")) {
		t.Fatalf("a challenged link starts no session: %v %s", res.Header, res.Body)
	}
	// The confirming step is spent; the next one (within the skew) works.
	s := secSession(t, secSecondStep(t, h, p.MFAToken, secTOTP(t, mfa.Secret, 1)))
	if status, pr := iatValidate(t, h, s.AccessToken); status != http.StatusOK || pr.UserID != first.UserID || pr.OrganizationID != first.OrgID {
		t.Fatalf("the session after the second step: %d %+v", status, pr)
	}
	apptest.ExpectProblem(t, accConsume(t, h, http.MethodGet, link.LoginURL), http.StatusConflict, "magic_link_used")
}

// TestCheckoutCatalogOwnerVisibility: a developer app's owning organization
// is shown to that organization and to platform roles only.
func TestCheckoutCatalogOwnerVisibility(t *testing.T) {
	h, _ := accHarness(t)
	reg := map[string]any{"developerAppId": "dapp_owner1", "appId": "owner_app", "name": "Owner App", "organizationId": h.OrgID,
		"scopes": []string{"boards:read"}, "entrypointUrl": "https://owner.example.test/app"}
	res := h.Do(t, "identity", http.MethodPost, "/api/internal/developer-app-registrations", accServiceToken(t, h, "developer_portal"), reg)
	apptest.Must(t, res, http.StatusCreated, "register")
	pos := res.Header.Get("X-Platform-Position")
	owner := `"owner_organization_id":"` + h.OrgID + `"`
	list := func(token string) []byte {
		t.Helper()
		res := h.Do(t, "identity", http.MethodGet, "/api/catalog?surfaceKind=developer_app", token, nil, "X-Platform-Min-Position", pos)
		apptest.Must(t, res, http.StatusOK, "catalog")
		if !bytes.Contains(res.Body, []byte(`"developer_app_id":"dapp_owner1"`)) {
			t.Fatalf("catalog without the app: %s", res.Body)
		}
		return res.Body
	}
	if body := list(""); !bytes.Contains(body, []byte(owner)) {
		t.Fatalf("the owner organization's key sees its app's owner: %s", body)
	}
	other := iatRegister(t, h, "ckother")
	for name, token := range map[string]string{"another organization": other.Access, "a service": accServiceToken(t, h, "payments")} {
		if body := list(token); bytes.Contains(body, []byte("owner_organization_id")) {
			t.Errorf("%s sees the owner: %s", name, body)
		}
	}
	system := commands.Meta{Actor: eventstore.Actor{ID: "test", Type: "system"}}
	adminEmail, adminPassword := iatEmail("ckroot"), "platform root password"
	if _, err := h.Identity().Bootstrap(context.Background(), system, identitycmd.Bootstrap{OrganizationName: "Platform",
		Slug: iatSlug("platform"), Email: adminEmail, Password: adminPassword, Administration: true}); err != nil {
		t.Fatal(err)
	}
	root := iatLoginEventually(t, h, adminEmail, adminPassword)
	if body := list(root.AccessToken); !bytes.Contains(body, []byte(owner)) {
		t.Fatalf("a platform role sees the owner: %s", body)
	}
}
