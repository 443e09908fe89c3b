package identity

import (
	"encoding/json"
	"net/mail"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// Provisioning from checkout (seed 001). The checkout stream of an email is
// the idempotency anchor: its lock serializes concurrent provisions of one
// email, and its first event fixes the organization and owner ids, so every
// retry converges on one organization. The email itself is not in the
// stream id or payload, only its hash.
const (
	StreamCheckout      = "identity.checkout"
	CheckoutProvisioned = "identity.checkout.provisioned"
	SafetyNetSent       = "identity.checkout.safety_net_sent"
	CheckoutReleased    = "identity.checkout.released"
	EntitlementRecorded = "identity.access.entitlement_recorded"
)

// Entitlement modes of the checkout snapshot.
var EntitlementModes = []string{"count", "all", "free"}

// Entitlement is stored at organizations.settings.appEntitlement.
type Entitlement struct {
	Mode         string   `json:"mode"`
	PaidAppCount *int     `json:"paidAppCount,omitempty"`
	AppSlugs     []string `json:"appSlugs,omitempty"`
}

type EntitlementRecordedV1 struct {
	OrganizationID string      `json:"organization_id"`
	AppEntitlement Entitlement `json:"app_entitlement"`
	At             time.Time   `json:"at"`
}

func CheckoutStreamID(emailHash string) string { return "checkout:" + emailHash }

type CheckoutProvisionedV1 struct {
	EmailHash      string      `json:"email_hash"`
	OrganizationID string      `json:"organization_id"`
	UserID         string      `json:"user_id"`
	AppID          string      `json:"app_id"`
	Entitlement    Entitlement `json:"entitlement"`
	// Supersedes is the organization of the anchor this one replaced (its
	// owner was erased or its workspace is gone); empty on a first anchor.
	Supersedes string    `json:"supersedes,omitempty"`
	At         time.Time `json:"at"`
}

// CheckoutReleasedV1 ends an anchor whose owner could never be made (the
// email belongs to an account made outside checkout): later calls go the
// existing-owner way.
type CheckoutReleasedV1 struct {
	OrganizationID string    `json:"organization_id"`
	UserID         string    `json:"user_id"`
	Reason         string    `json:"reason"`
	At             time.Time `json:"at"`
}

type SafetyNetSentV1 struct {
	TokenID string    `json:"token_id"`
	At      time.Time `json:"at"`
}

// Checkout is the write model of one email's provisioning.
type Checkout struct {
	provisioned   CheckoutProvisionedV1
	safetyNetSent bool
}

func LoadCheckout(history []event.Recorded) (*Checkout, error) {
	return checkoutFold.Load(&Checkout{}, history)
}

var checkoutFold = event.Fold[*Checkout]{
	// A superseding anchor is a new account: its safety net is unsent.
	CheckoutProvisioned: event.Apply(func(c *Checkout, p CheckoutProvisionedV1) {
		c.provisioned, c.safetyNetSent = p, false
	}),
	CheckoutReleased: event.Mark(func(c *Checkout) {
		c.provisioned, c.safetyNetSent = CheckoutProvisionedV1{}, false
	}),
	SafetyNetSent: event.Mark(func(c *Checkout) { c.safetyNetSent = true }),
}

func (c *Checkout) Exists() bool                 { return c.provisioned.OrganizationID != "" }
func (c *Checkout) State() CheckoutProvisionedV1 { return c.provisioned }
func (c *Checkout) SafetyNetSent() bool          { return c.safetyNetSent }

// CheckoutRequest is the request of POST /api/internal/provision-from-checkout.
type CheckoutRequest struct {
	Email         string   `json:"email"`
	WorkspaceName string   `json:"workspaceName"`
	Company       string   `json:"company"`
	AppID         string   `json:"appId"`
	RedirectURI   string   `json:"redirectUri"`
	Name          string   `json:"name"`
	Mode          string   `json:"mode"`
	PaidAppCount  *int     `json:"paidAppCount"`
	AppSlugs      []string `json:"appSlugs"`
}

// Workspace is the organization's name: workspaceName, else company.
func (r CheckoutRequest) Workspace() string {
	if w := strings.TrimSpace(r.WorkspaceName); w != "" {
		return w
	}
	return strings.TrimSpace(r.Company)
}

func (r CheckoutRequest) Entitlement() Entitlement {
	return Entitlement{Mode: r.Mode, PaidAppCount: r.PaidAppCount, AppSlugs: r.AppSlugs}
}

// ValidateCheckout checks the request against the catalog: the target
// application exists and redirectUri is under its entrypoint.
func ValidateCheckout(r CheckoutRequest, cat *Catalog) error {
	var f []errs.Field
	if _, err := mail.ParseAddress(r.Email); err != nil || !strings.Contains(r.Email, "@") {
		f = append(f, errs.Field{Pointer: "/email", Detail: "must be an email address"})
	}
	if w := r.Workspace(); w == "" {
		f = append(f, errs.Field{Pointer: "/workspaceName", Detail: "workspaceName or company is required"})
	} else if len(w) > 200 { // the organization's name limit, checked before any step is written
		f = append(f, errs.Field{Pointer: "/workspaceName", Detail: "must be at most 200 characters"})
	}
	if !slices.Contains(EntitlementModes, r.Mode) {
		f = append(f, errs.Field{Pointer: "/mode", Detail: "must be one of count, all, free"})
	}
	if r.Mode == "count" && (r.PaidAppCount == nil || *r.PaidAppCount < 1) {
		f = append(f, errs.Field{Pointer: "/paidAppCount", Detail: "mode count needs paidAppCount >= 1"})
	}
	for i, s := range r.AppSlugs {
		if !ValidSlug(s) && !ValidAppID(s) {
			f = append(f, errs.Field{Pointer: "/appSlugs/" + strconv.Itoa(i), Detail: "must be an app slug"})
		}
	}
	entry, err := cat.Entry("/appId", r.AppID)
	if err != nil {
		if e, ok := errs.As(err); ok && e.Kind == errs.KindNotFound {
			f = append(f, errs.Field{Pointer: "/appId", Detail: "unknown application " + r.AppID})
		} else if ok && e.Kind == errs.KindInvalidInput {
			f = append(f, e.Fields...)
		} else {
			return err
		}
	} else if !UnderEntrypoint(entry.EntrypointURL, r.RedirectURI) {
		f = append(f, errs.Field{Pointer: "/redirectUri", Detail: "must be under the service entrypoint " + entry.EntrypointURL})
	}
	if len(f) > 0 {
		return errs.Invalid(f...)
	}
	return nil
}

// UnderEntrypoint reports whether uri is the entrypoint or below it: same
// scheme and host, and a path under the entrypoint's path segment by
// segment (so https://app.example/status does not admit /statusx).
//
// The comparison is a string prefix, so a path that something downstream
// would resolve elsewhere is refused first (pathTricks): dot segments, raw
// or percent-encoded, encoded separators, backslashes. Refusing beats
// normalising: no legitimate client sends them, and the code exchange
// compares the redirect URI byte for byte, so a normalised copy would be a
// second spelling of the same target.
func UnderEntrypoint(entrypoint, uri string) bool {
	if entrypoint == "" || uri == "" || strings.ContainsAny(uri, " \\") || pathTricks(uri) {
		return false
	}
	ep := strings.TrimRight(entrypoint, "/")
	if uri == ep {
		return true
	}
	if !strings.HasPrefix(uri, ep) {
		return false
	}
	next := uri[len(ep)]
	return next == '/' || next == '?' || next == '#'
}

// pathTricks reports whether the path of uri (between the authority and
// the query or fragment) has a segment that is a dot segment, once or after
// repeated percent-decoding (`..`, `%2e%2e`, `%2E.`, `%252e%252e`), or also
// after a path parameter (`..;x`, which some servers read as `..`), or that
// hides a separator (`%2f`, `%5c`) or a control character, or whose escapes
// do not decode.
func pathTricks(uri string) bool {
	rest := uri
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
		j := strings.IndexByte(rest, '/')
		if j < 0 {
			return false // no path at all
		}
		rest = rest[j:]
	}
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	for _, seg := range strings.Split(rest, "/") {
		for range 3 { // decode until stable: a double-encoded dot is a dot to a double-decoding server
			dec, err := url.PathUnescape(seg)
			if err != nil {
				return true
			}
			if dec == seg {
				break
			}
			seg = dec
		}
		if strings.ContainsAny(seg, "/\\") || strings.ContainsFunc(seg, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return true
		}
		if name, _, _ := strings.Cut(seg, ";"); name == "." || name == ".." {
			return true
		}
		if strings.Contains(seg, "%") { // still encoded after three rounds: refuse rather than guess
			return true
		}
	}
	return false
}

// Provision records the email's organization and owner the first time; later
// calls change nothing (created false).
func (c *Checkout) Provision(emailHash, organizationID, userID string, r CheckoutRequest, now time.Time) ([]event.Change, bool) {
	if c.Exists() {
		return nil, false
	}
	return []event.Change{event.New(CheckoutProvisioned, CheckoutProvisionedV1{EmailHash: emailHash, OrganizationID: organizationID,
		UserID: userID, AppID: r.AppID, Entitlement: r.Entitlement(), At: now})}, true
}

// Supersede replaces the anchor of organization prev (whose owner was
// erased or whose workspace is gone) with new ids. It changes nothing when
// the anchor is no longer prev (a concurrent call moved it first).
func (c *Checkout) Supersede(prev, emailHash, organizationID, userID string, r CheckoutRequest, now time.Time) ([]event.Change, bool) {
	if !c.Exists() || c.provisioned.OrganizationID != prev {
		return nil, false
	}
	return []event.Change{event.New(CheckoutProvisioned, CheckoutProvisionedV1{EmailHash: emailHash, OrganizationID: organizationID,
		UserID: userID, AppID: r.AppID, Entitlement: r.Entitlement(), Supersedes: prev, At: now})}, true
}

// Release ends the anchor of organization org (see CheckoutReleasedV1);
// nothing when the anchor is no longer org.
func (c *Checkout) Release(org, reason string, now time.Time) []event.Change {
	if !c.Exists() || c.provisioned.OrganizationID != org {
		return nil
	}
	return []event.Change{event.New(CheckoutReleased, CheckoutReleasedV1{OrganizationID: org, UserID: c.provisioned.UserID,
		Reason: reason, At: now})}
}

// MarkSafetyNetSent records the one safety-net email.
func (c *Checkout) MarkSafetyNetSent(tokenID string, now time.Time) []event.Change {
	if c.safetyNetSent {
		return nil
	}
	return []event.Change{event.New(SafetyNetSent, SafetyNetSentV1{TokenID: tokenID, At: now})}
}

// RecordEntitlement stores the checkout snapshot on the organization.
func (a *OrgAccess) RecordEntitlement(e Entitlement, now time.Time) []event.Change {
	if a.entitlement != nil {
		cur, _ := json.Marshal(a.entitlement)
		next, _ := json.Marshal(e)
		if string(cur) == string(next) {
			return nil
		}
	}
	return []event.Change{event.New(EntitlementRecorded, EntitlementRecordedV1{OrganizationID: a.organizationID, AppEntitlement: e, At: now})}
}
