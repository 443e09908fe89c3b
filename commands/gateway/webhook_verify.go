package gateway

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/providers/delivery"
	"github.com/platform/backend/providers/email/postmark"
	"github.com/platform/backend/providers/email/resend"
	"github.com/platform/backend/providers/message/whatsapp"
	"github.com/platform/backend/providers/payments/stripe"
)

// verified is what a provider's check of an inbound webhook yields: the
// provider's own id of the event (what makes a repeat the same webhook),
// its type, and the delivery receipts it carries.
type verified struct {
	EventID   string
	EventType string
	Receipts  []delivery.Event
}

// verifier checks one provider's webhook with the connection's secrets
// (tolerance and clock for signed timestamps).
type verifier func(s Secrets, h http.Header, body []byte, tolerance time.Duration, now func() time.Time) (verified, error)

// verifiers: one per provider that sends webhooks. A new provider is one
// more entry (and its webhook path in domain.ConnectionProviders).
var verifiers = map[string]verifier{
	domain.ProviderPaymentsA: func(s Secrets, h http.Header, body []byte, tol time.Duration, now func() time.Time) (verified, error) {
		if s["webhook_secret"] == "" {
			return verified{}, noSecret
		}
		ev, err := stripe.WebhookVerifier{Secret: s["webhook_secret"], Tolerance: tol, Now: now}.Verify(h, body)
		if err != nil {
			return verified{}, err
		}
		return verified{EventID: ev.ID, EventType: ev.Type}, nil
	},
	domain.ProviderEmailA: func(s Secrets, h http.Header, body []byte, _ time.Duration, _ func() time.Time) (verified, error) {
		// Postmark signs nothing and sends no timestamp: the URL's Basic
		// credentials are checked, and a repeat is the same body.
		if s["webhook_username"] == "" || s["webhook_password"] == "" {
			return verified{}, noSecret
		}
		events, err := postmark.Webhook{Username: s["webhook_username"], Password: s["webhook_password"]}.Receive(h, body)
		return verified{EventID: digest(body), EventType: member(body, "RecordType"), Receipts: events}, err
	},
	domain.ProviderEmailB: func(s Secrets, h http.Header, body []byte, tol time.Duration, now func() time.Time) (verified, error) {
		if s["webhook_secret"] == "" {
			return verified{}, noSecret
		}
		events, err := resend.Webhook{Secret: s["webhook_secret"], Tolerance: tol, Now: now}.Receive(h, body)
		return verified{EventID: h.Get(resend.HeaderID), EventType: member(body, "type"), Receipts: events}, err
	},
	domain.ProviderMessageA: func(s Secrets, h http.Header, body []byte, _ time.Duration, _ func() time.Time) (verified, error) {
		// No signed timestamp either: a repeat is the same signed body.
		if s["app_secret"] == "" {
			return verified{}, noSecret
		}
		events, err := whatsapp.Webhook{AppSecret: s["app_secret"]}.Receive(h, body)
		return verified{EventID: digest(body), EventType: member(body, "object"), Receipts: events}, err
	},
}

// noSecret: the connection has no webhook secret, so nothing can be verified.
var noSecret = errors.New("the connection has no webhook secret")

// unverified is the 400 of a webhook that failed its check: nothing of it
// is stored. A stale timestamp (a replay, or a clock far off) has its own
// code.
func unverified(err error) error {
	code, why := "webhook_unverified", "the webhook's signature does not verify"
	var de *delivery.WebhookError
	var se *stripe.WebhookError
	switch {
	case errors.Is(err, noSecret):
		why = noSecret.Error()
	case errors.As(err, &de):
		why = "the webhook was refused: " + string(de.Reason)
		if de.Reason == delivery.Stale {
			code = "webhook_stale"
		}
	case errors.As(err, &se):
		why = "the webhook was refused: " + string(se.Reason)
		if se.Reason == stripe.StaleTimestamp {
			code = "webhook_stale"
		}
	}
	return &errs.Error{Kind: errs.KindInvalidInput, Code: code, Message: why, Fields: []errs.Field{{Pointer: "", Detail: why}}}
}

func digest(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

// member reads a top-level string member of a JSON body ("" when absent),
// bounded: it names the event type in the log.
func member(body []byte, name string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(m[name], &s) != nil {
		return ""
	}
	return truncate(s, 128)
}

// recipientHash tells recipients apart without keeping their address.
func recipientHash(connectionID, recipient string) string {
	sum := sha256.Sum256([]byte(connectionID + "\x00" + strings.ToLower(strings.TrimSpace(recipient))))
	return hex.EncodeToString(sum[:16])
}
