package identity

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/identity"
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
// nothing twice. Every call, first or repeat, grants this request's app and
// records this request's entitlement on the organization it answers.
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
	p := checkoutCall{a: a, m: m, in: in, mail: mail, emailHash: emailHash, streamID: domain.CheckoutStreamID(emailHash)}
	// A superseded or released anchor, or a concurrent call that moved it,
	// sends the call round once more; each round writes at most one anchor.
	for range 3 {
		out, again, err := p.round(ctx)
		if err != nil || !again {
			return out, err
		}
	}
	return Provisioned{}, errs.Conflict("concurrent_modification", "the checkout of this email changed while the call ran; retry")
}

// checkoutCall is one provision call's inputs.
type checkoutCall struct {
	a                         *Access
	m                         commands.Meta
	in                        domain.CheckoutRequest
	mail, emailHash, streamID string
}

type checkoutAnchor struct {
	State   domain.CheckoutProvisionedV1 `json:"state"`
	Created bool                         `json:"created"`
	Sent    bool                         `json:"sent"`
	Moved   bool                         `json:"moved"` // not the state this round checked
}

// round answers from the anchor when it is usable, from an existing owner
// when there is none, and otherwise writes a new or superseding anchor.
func (p checkoutCall) round(ctx context.Context) (Provisioned, bool, error) {
	a := p.a
	history, err := a.load(ctx, p.streamID)
	if err != nil {
		return Provisioned{}, false, err
	}
	c, err := domain.LoadCheckout(commands.Recorded(history))
	if err != nil {
		return Provisioned{}, false, err
	}
	orgID, userID := uuid.Must(uuid.NewV7()).String(), uuid.Must(uuid.NewV7()).String()
	prev := ""
	if !c.Exists() {
		// An owner who already exists outside checkout (resolved by the
		// email's claim and membership) gets a fresh link and no second workspace.
		if org, user, ok, err := a.existingOwner(ctx, p.emailHash); err != nil {
			return Provisioned{}, false, err
		} else if ok {
			out, err := p.serve(ctx, org, user, false)
			return out, false, err
		}
	} else {
		verdict, err := a.checkAnchor(ctx, c.State())
		if err != nil {
			return Provisioned{}, false, err
		}
		switch verdict {
		case anchorNewOrganization:
			prev, userID = c.State().OrganizationID, c.State().UserID
		case anchorNewAccount:
			prev = c.State().OrganizationID
		}
	}
	anchor := checkoutAnchor{State: c.State(), Sent: c.SafetyNetSent()}
	if !c.Exists() || prev != "" {
		res, err := commands.Run(ctx, a.h.store, platformMeta(p.m), domain.StreamCheckout, p.streamID,
			func(history []event.Recorded) ([]event.Change, checkoutAnchor, error) {
				c, err := domain.LoadCheckout(history)
				if err != nil {
					return nil, checkoutAnchor{}, err
				}
				changes, created := c.Provision(p.emailHash, orgID, userID, p.in, a.now())
				if prev != "" {
					changes, created = c.Supersede(prev, p.emailHash, orgID, userID, p.in, a.now())
				}
				if !created { // a concurrent call anchored first: check its anchor
					return nil, checkoutAnchor{Moved: true}, nil
				}
				return changes, checkoutAnchor{State: changes[0].Payload.(domain.CheckoutProvisionedV1), Created: true}, nil
			})
		if err != nil || res.Value.Moved {
			return Provisioned{}, err == nil, err
		}
		anchor = res.Value
	}
	st := anchor.State
	if err := a.ensureWorkspace(ctx, p.m, st, p.in, p.mail); err != nil {
		if e, ok := errs.As(err); ok && e.Kind == errs.KindConflict && e.Code == "email_taken" {
			// The email's claim went to an account made outside checkout
			// (a sign-up that committed after the owner lookup): this anchor's
			// owner can never be made, so the next round serves that account.
			return Provisioned{}, true, a.releaseAnchor(ctx, p.m, p.streamID, st)
		}
		return Provisioned{}, false, err
	}
	out, err := a.loginLink(ctx, p.m, st.OrganizationID, st.UserID, p.in.RedirectURI, anchor.Created)
	if err != nil {
		return Provisioned{}, false, err
	}
	// The safety net goes out on the creating call. A later call sends it
	// only when the first one evidently failed to (not recorded a while
	// after creation), so a double-submitted checkout sends one email.
	if anchor.Created || (!anchor.Sent && a.now().Sub(st.At) > safetyNetRetryAfter) {
		a.sendSafetyNet(ctx, p.m, p.streamID, st, p.in.RedirectURI, p.mail)
	}
	return out, false, nil
}

// serve answers an existing owner's organization: this purchase's grants
// and entitlement, then a fresh link.
func (p checkoutCall) serve(ctx context.Context, org, user string, created bool) (Provisioned, error) {
	if err := p.a.grantPurchase(ctx, p.m, org, p.in); err != nil {
		return Provisioned{}, err
	}
	return p.a.loginLink(ctx, p.m, org, user, p.in.RedirectURI, created)
}

// safetyNetRetryAfter: how long after creation an unsent safety net is
// taken for failed rather than in flight.
const safetyNetRetryAfter = 2 * time.Minute
