package identity

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"strings"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/providers/email"
)

// The steps of provisioning from checkout (provision_checkout.go): each one
// is idempotent, so a retry completes what an earlier call started.

// ensureWorkspace runs the creation steps; each one that already happened
// answers a conflict of its own kind, which here means done.
func (a *Access) ensureWorkspace(ctx context.Context, m commands.Meta, st domain.CheckoutProvisionedV1, in domain.CheckoutRequest, mail string) error {
	done := func(err error, code string) error {
		if e, ok := errs.As(err); ok && e.Kind == errs.KindConflict && e.Code == code {
			return nil
		}
		return err
	}
	// The owner first, as sign-up does: when the email's claim is taken this
	// step fails before any organization exists, so none is left without an
	// owner. A superseding anchor may keep its owner (only the workspace was
	// gone): nothing is sealed for it again.
	u, err := a.h.loadUser(ctx, st.UserID)
	if err != nil {
		return err
	}
	if !u.Exists() {
		// Passwordless owner: no password, so the event holds an empty hash.
		_, err = a.h.createUserStream(ctx, m, CreateUser{Email: mail, Name: in.Name}, st.OrganizationID, st.UserID)
		if err = done(err, "user_exists"); err != nil {
			return err
		}
	}
	_, err = a.h.CreateOrganization(ctx, m, CreateOrganization{ID: st.OrganizationID, Name: in.Workspace(),
		Slug: checkoutSlug(), Owner: st.UserID})
	if err = done(err, "organization_exists"); err != nil {
		return err
	}
	return a.grantPurchase(ctx, m, st.OrganizationID, in)
}

// grantPurchase records this request's entitlement and grants the default
// services plus this request's app (each idempotent: a repeat appends
// nothing, a new purchase appends what changed).
func (a *Access) grantPurchase(ctx context.Context, m commands.Meta, org string, in domain.CheckoutRequest) error {
	_, err := a.changeAccess(ctx, m, org, func(cat *domain.Catalog, acc *domain.OrgAccess) ([]event.Change, error) {
		changes := acc.RecordEntitlement(in.Entitlement(), a.now())
		for _, app := range append(cat.DefaultServices(), in.AppID) {
			c, err := acc.GrantService(cat, app, domain.AccessProvision, a.now())
			if err != nil {
				return nil, err
			}
			changes = append(changes, c...)
		}
		return dedupeGrants(changes), nil
	})
	return err
}

// dedupeGrants drops a second grant of one app in one decision (the target
// service may also be a default one).
func dedupeGrants(changes []event.Change) []event.Change {
	seen := map[string]bool{}
	out := changes[:0]
	for _, c := range changes {
		if g, ok := c.Payload.(domain.ServiceAccessV1); ok {
			if seen[g.AppID] {
				continue
			}
			seen[g.AppID] = true
		}
		out = append(out, c)
	}
	return out
}

// loginLink issues the trusted single-use login link (skips the
// interstitial: it goes straight from checkout to the browser).
func (a *Access) loginLink(ctx context.Context, m commands.Meta, orgID, userID, redirect string, created bool) (Provisioned, error) {
	token, issued, err := a.IssueMagicLink(ctx, m, orgID, userID, domain.PurposeCheckoutLogin, redirect, true, domain.MagicLinkTTL)
	if err != nil {
		return Provisioned{}, err
	}
	return Provisioned{OrgID: orgID, UserID: userID, Created: created, LoginURL: a.MagicLinkURL(token), ExpiresAt: issued.ExpiresAt}, nil
}

// sendSafetyNet emails the longer-lived link (it keeps the interstitial)
// and records that it went out, so it goes out once. A failed send is
// logged and retried by the next provision call for the same email.
func (a *Access) sendSafetyNet(ctx context.Context, m commands.Meta, streamID string, st domain.CheckoutProvisionedV1, redirect, to string) {
	if a.mail == nil {
		return
	}
	token, issued, err := a.IssueMagicLink(ctx, m, st.OrganizationID, st.UserID, domain.PurposeSafetyNet, redirect, false, domain.SafetyNetTTL)
	if err != nil {
		a.log.Warn("safety-net link not issued", "organization_id", st.OrganizationID, "err", err)
		return
	}
	msg := email.Message{To: to, Subject: "Your workspace is ready",
		Text: "Your workspace is ready. If the sign-in window closed, use this link (valid for 7 days, one use):\n\n" +
			a.MagicLinkURL(token) + "\n\nIf you did not buy anything, ignore this message.\n"}
	if err := a.mail.Send(ctx, msg); err != nil {
		a.log.Warn("safety-net email not sent; the next provision call retries", "organization_id", st.OrganizationID, "err", err)
		return
	}
	if _, err := commands.Run(ctx, a.h.store, platformMeta(m), domain.StreamCheckout, streamID,
		func(history []event.Recorded) ([]event.Change, struct{}, error) {
			c, err := domain.LoadCheckout(history)
			if err != nil {
				return nil, struct{}{}, err
			}
			return c.MarkSafetyNetSent(issued.TokenID, a.now()), struct{}{}, nil
		}); err != nil {
		a.log.Warn("safety-net email sent but not recorded", "organization_id", st.OrganizationID, "err", err)
	}
}

// checkoutSlug is random ("ws-" + 16 base32 characters, 80 bits): the
// slug is stored in clear in events, the topic and answers, and is never
// erased with a data key, so it must carry nothing of the buyer (a
// workspace name like "Jane Doe Consulting" is personal data).
func checkoutSlug() string {
	b := make([]byte, 10)
	_, _ = rand.Read(b) // crypto/rand never fails on supported platforms
	return "ws-" + strings.ToLower(base32.StdEncoding.EncodeToString(b))
}
