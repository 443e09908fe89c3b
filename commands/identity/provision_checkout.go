package identity

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/providers/email"
)

// Provisioned is the answer of POST /api/internal/provision-from-checkout.
type Provisioned struct {
	OrgID     string    `json:"orgId"`
	UserID    string    `json:"userId"`
	Created   bool      `json:"created"`
	LoginURL  string    `json:"loginUrl"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// ProvisionFromCheckout creates (once per email) an organization with a
// passwordless owner, stores the entitlement snapshot, grants the default
// platform services and the target service, and answers a fresh single-use
// magic-login link. It spans several streams, so it is written as a
// sequence of idempotent steps anchored on the email's checkout stream: a
// retry after a crash finishes what the first call started and creates
// nothing twice.
func (a *Access) ProvisionFromCheckout(ctx context.Context, m commands.Meta, in domain.CheckoutRequest) (Provisioned, error) {
	if err := a.h.requireKeys(); err != nil {
		return Provisioned{}, err
	}
	cat, err := a.Catalog(ctx)
	if err != nil {
		return Provisioned{}, err
	}
	if err := domain.ValidateCheckout(in, cat); err != nil {
		return Provisioned{}, err
	}
	mail := domain.NormalizeEmail(in.Email)
	emailHash, err := a.h.keys.EmailHash(ctx, mail)
	if err != nil {
		return Provisioned{}, err
	}
	m.IdempotencyKey = "" // idempotent by email; each step below is too
	streamID := domain.CheckoutStreamID(emailHash)

	// An owner who already exists outside checkout (resolved by membership)
	// gets a fresh link and no second workspace.
	if history, err := a.load(ctx, streamID); err != nil {
		return Provisioned{}, err
	} else if len(history) == 0 {
		if org, user, ok, err := a.existingOwner(ctx, emailHash); err != nil {
			return Provisioned{}, err
		} else if ok {
			return a.loginLink(ctx, m, org, user, in.RedirectURI, false)
		}
	}

	orgID, userID := uuid.Must(uuid.NewV7()).String(), uuid.Must(uuid.NewV7()).String()
	type anchor struct {
		State   domain.CheckoutProvisionedV1 `json:"state"`
		Created bool                         `json:"created"`
		Sent    bool                         `json:"sent"`
	}
	res, err := commands.Run(ctx, a.h.store, platformMeta(m), domain.StreamCheckout, streamID,
		func(history []event.Recorded) ([]event.Change, anchor, error) {
			c, err := domain.LoadCheckout(history)
			if err != nil {
				return nil, anchor{}, err
			}
			changes, created := c.Provision(emailHash, orgID, userID, in, a.now())
			if !created {
				return nil, anchor{State: c.State(), Sent: c.SafetyNetSent()}, nil
			}
			return changes, anchor{State: changes[0].Payload.(domain.CheckoutProvisionedV1), Created: true}, nil
		})
	if err != nil {
		return Provisioned{}, err
	}
	st := res.Value.State
	if err := a.ensureWorkspace(ctx, m, st, in, mail); err != nil {
		return Provisioned{}, err
	}
	out, err := a.loginLink(ctx, m, st.OrganizationID, st.UserID, in.RedirectURI, res.Value.Created)
	if err != nil {
		return Provisioned{}, err
	}
	// The safety net goes out on the creating call. A later call sends it
	// only when the first one evidently failed to (not recorded a while
	// after creation), so a double-submitted checkout sends one email.
	if res.Value.Created || (!res.Value.Sent && a.now().Sub(st.At) > safetyNetRetryAfter) {
		a.sendSafetyNet(ctx, m, streamID, st, in.RedirectURI, mail)
	}
	return out, nil
}

// safetyNetRetryAfter: how long after creation an unsent safety net is
// taken for failed rather than in flight.
const safetyNetRetryAfter = 2 * time.Minute

// existingOwner finds an organization the email's user owns (read model
// candidates, confirmed on the write side).
func (a *Access) existingOwner(ctx context.Context, emailHash string) (string, string, bool, error) {
	userID, err := a.h.userByEmailHash(ctx, emailHash)
	if err != nil || userID == "" {
		return "", "", false, err
	}
	u, err := a.h.loadUser(ctx, userID)
	if err != nil {
		return "", "", false, err
	}
	// The home organization counts before the read model lists it: a second
	// checkout right after the first finds the workspace the first made.
	orgs := []string{u.State().OrganizationID}
	if a.h.dir != nil {
		more, err := a.h.dir.OrganizationsOf(ctx, userID)
		if err != nil {
			return "", "", false, err
		}
		for _, id := range more {
			if id != orgs[0] {
				orgs = append(orgs, id)
			}
		}
	}
	found := ""
	for _, id := range orgs {
		o, err := a.h.loadOrganization(ctx, id)
		if err != nil {
			return "", "", false, err
		}
		mem, ok := o.Member(userID)
		// A billing-plane caller never receives a sign-in link of a platform
		// account: that would turn any billing bug into a platform takeover.
		if ok && o.Administration() {
			return "", "", false, errs.Conflict("platform_account", "the email belongs to a platform administration account; it cannot be provisioned")
		}
		if ok && mem.Role == domain.RoleOwner && o.Active() && found == "" {
			found = id
		}
	}
	if found != "" {
		return found, userID, true, nil
	}
	return "", "", false, errs.Conflict("email_taken", "the email belongs to an account that owns no organization; sign in instead")
}

// ensureWorkspace runs the creation steps; each one that already happened
// answers a conflict of its own kind, which here means done.
func (a *Access) ensureWorkspace(ctx context.Context, m commands.Meta, st domain.CheckoutProvisionedV1, in domain.CheckoutRequest, mail string) error {
	done := func(err error, code string) error {
		if e, ok := errs.As(err); ok && e.Kind == errs.KindConflict && e.Code == code {
			return nil
		}
		return err
	}
	_, err := a.h.CreateOrganization(ctx, m, CreateOrganization{ID: st.OrganizationID, Name: in.Workspace(),
		Slug: checkoutSlug(in.Workspace(), st.OrganizationID), Owner: st.UserID})
	if err = done(err, "organization_exists"); err != nil {
		return err
	}
	// Passwordless owner: no password, so the event holds an empty hash.
	_, err = a.h.createUserStream(ctx, m, CreateUser{Email: mail, Name: in.Name}, st.OrganizationID, st.UserID)
	if err = done(err, "user_exists"); err != nil {
		return err
	}
	_, err = a.changeAccess(ctx, m, st.OrganizationID, func(cat *domain.Catalog, acc *domain.OrgAccess) ([]event.Change, error) {
		changes := acc.RecordEntitlement(st.Entitlement, a.now())
		for _, app := range append(cat.DefaultServices(), st.AppID) {
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

// checkoutSlug derives a unique slug from the workspace name and the
// organization id (the id's tail keeps two "Acme" workspaces apart).
func checkoutSlug(name, orgID string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if b.Len() >= 30 {
			break
		}
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	base := strings.Trim(b.String(), "-")
	if base == "" {
		base = "workspace"
	}
	tail := strings.ReplaceAll(orgID, "-", "")
	return base + "-" + tail[len(tail)-8:]
}
