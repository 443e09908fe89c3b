package identity

import (
	"crypto/subtle"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// One-time tokens: magic-login links and SSO handoff codes. Each is its own
// stream, so consuming takes the stream lock and a token is used at most
// once however many requests race for it. The secret is stored hashed.
const (
	KindMagicLink = "magic_link"
	KindSSOCode   = "sso_code"

	StreamMagicLink = "identity.magic_link"
	StreamSSOCode   = "identity.sso_code"

	MagicLinkIssued   = "identity.magic_link.issued"
	MagicLinkConsumed = "identity.magic_link.consumed"
	SSOCodeIssued     = "identity.sso_code.issued"
	SSOCodeConsumed   = "identity.sso_code.consumed"
)

// Lifetimes. A checkout login link is short; the emailed safety-net link
// lives longer and keeps the confirmation interstitial; a handoff code is
// exchanged by the destination at once.
const (
	MagicLinkTTL = 15 * time.Minute
	SafetyNetTTL = 7 * 24 * time.Hour
	SSOCodeTTL   = 2 * time.Minute
)

// Magic-link purposes.
const (
	PurposeCheckoutLogin = "checkout_login"
	PurposeSafetyNet     = "checkout_safety_net"
)

// StreamTypeOf is the stream type of a token kind.
func StreamTypeOf(kind string) string {
	if kind == KindSSOCode {
		return StreamSSOCode
	}
	return StreamMagicLink
}

type OneTimeIssuedV1 struct {
	TokenID          string    `json:"token_id"`
	Kind             string    `json:"kind"`
	OrganizationID   string    `json:"organization_id"`
	UserID           string    `json:"user_id"`
	SecretHash       string    `json:"secret_hash"`
	SkipInterstitial bool      `json:"skip_interstitial"`
	Purpose          string    `json:"purpose,omitempty"`
	AppID            string    `json:"app_id,omitempty"`
	RedirectURI      string    `json:"redirect_uri,omitempty"`
	IssuedAt         time.Time `json:"issued_at"`
	ExpiresAt        time.Time `json:"expires_at"`
}

type OneTimeConsumedV1 struct {
	TokenID    string    `json:"token_id"`
	ConsumedAt time.Time `json:"consumed_at"`
}

// OneTime is the write model of one token.
type OneTime struct {
	issued   OneTimeIssuedV1
	consumed bool
}

func LoadOneTime(history []event.Recorded) (*OneTime, error) {
	return oneTimeFold.Load(&OneTime{}, history)
}

// oneTimeFold reads magic links and SSO codes alike: each has a stream
// type of its own, and the same model.
var oneTimeFold = event.Fold[*OneTime]{
	MagicLinkIssued:   event.Apply((*OneTime).issue),
	SSOCodeIssued:     event.Apply((*OneTime).issue),
	MagicLinkConsumed: event.Mark((*OneTime).consume),
	SSOCodeConsumed:   event.Mark((*OneTime).consume),
}

func (t *OneTime) issue(p OneTimeIssuedV1) { t.issued = p }
func (t *OneTime) consume()                { t.consumed = true }

func (t *OneTime) Exists() bool           { return t.issued.TokenID != "" }
func (t *OneTime) State() OneTimeIssuedV1 { return t.issued }
func (t *OneTime) Consumed() bool         { return t.consumed }

// Issue records a new token; ttl comes from the kind and purpose.
func (t *OneTime) Issue(in OneTimeIssuedV1, ttl time.Duration, now time.Time) ([]event.Change, error) {
	if t.Exists() {
		return nil, errs.Conflict("token_exists", "the token already exists")
	}
	if in.TokenID == "" || in.UserID == "" || in.OrganizationID == "" || in.SecretHash == "" {
		return nil, errs.InvalidField("", "a token needs an id, a user, an organization and a secret")
	}
	in.IssuedAt, in.ExpiresAt = now, now.Add(ttl)
	typ := MagicLinkIssued
	if in.Kind == KindSSOCode {
		typ = SSOCodeIssued
	}
	return []event.Change{event.New(typ, in)}, nil
}

// Check tells whether the presented secret opens a usable token of the kind,
// without using it (the interstitial page checks before it asks).
func (t *OneTime) Check(kind, secretHash string, now time.Time) error {
	if !t.Exists() || t.issued.Kind != kind || subtle.ConstantTimeCompare([]byte(t.issued.SecretHash), []byte(secretHash)) != 1 {
		return errs.AuthenticationRequired("the link or code is not valid")
	}
	if t.consumed {
		return errs.Conflict(kind+"_used", "the link or code was already used")
	}
	if !now.Before(t.issued.ExpiresAt) {
		return errs.Conflict(kind+"_expired", "the link or code has expired")
	}
	return nil
}

// Consume uses the token: the first call appends consumed, every later one
// fails with <kind>_used.
func (t *OneTime) Consume(kind, secretHash string, now time.Time) ([]event.Change, error) {
	if err := t.Check(kind, secretHash, now); err != nil {
		return nil, err
	}
	typ := MagicLinkConsumed
	if kind == KindSSOCode {
		typ = SSOCodeConsumed
	}
	return []event.Change{event.New(typ, OneTimeConsumedV1{TokenID: t.issued.TokenID, ConsumedAt: now})}, nil
}
