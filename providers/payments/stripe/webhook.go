package stripe

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// DefaultWebhookTolerance is how far a signed timestamp may be from now,
// either way, as in Stripe's own libraries.
const DefaultWebhookTolerance = 300 * time.Second

// WebhookVerifier checks Stripe-Signature on an inbound webhook and reads
// the event. Stripe signs "<t>.<raw body>" with HMAC-SHA256 under the
// endpoint's secret and sends t=<unix>,v1=<hex>[,v1=<hex>...] (several v1
// while a secret is being rolled; v0 and other schemes are ignored).
type WebhookVerifier struct {
	Secret    string        // the endpoint's signing secret, whsec_...
	Tolerance time.Duration // default DefaultWebhookTolerance
	Now       func() time.Time
}

// WebhookReason says why a webhook was refused.
type WebhookReason string

const (
	// MissingSignature: no Stripe-Signature header.
	MissingSignature WebhookReason = "missing signature"
	// BadSignature: the header is unreadable, or no v1 matches the body
	// under the secret (forged, tampered with, or another secret).
	BadSignature WebhookReason = "signature mismatch"
	// StaleTimestamp: correctly signed, but the timestamp is further than
	// the tolerance from now, in the past (a replay) or the future.
	StaleTimestamp WebhookReason = "timestamp outside tolerance"
	// MalformedEvent: correctly signed, but not an event envelope.
	MalformedEvent WebhookReason = "malformed event"
)

// WebhookError refuses a webhook. Compare with errors.Is against the
// sentinels: the reason decides, not the detail.
type WebhookError struct {
	Reason WebhookReason
	Detail string // a few words
}

var _ error = (*WebhookError)(nil)

func (e *WebhookError) Error() string {
	s := "stripe webhook: " + string(e.Reason)
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Is matches any WebhookError with the same reason.
func (e *WebhookError) Is(target error) bool {
	t, ok := target.(*WebhookError)
	return ok && t.Reason == e.Reason
}

// Sentinels for errors.Is.
var (
	ErrMissingSignature = &WebhookError{Reason: MissingSignature}
	ErrBadSignature     = &WebhookError{Reason: BadSignature}
	ErrStaleTimestamp   = &WebhookError{Reason: StaleTimestamp}
	ErrMalformedEvent   = &WebhookError{Reason: MalformedEvent}
)

// Verify checks the signature of payload (the raw request body, unchanged)
// and returns the event it carries.
func (v WebhookVerifier) Verify(h http.Header, payload []byte) (*Event, error) {
	header := h.Get("Stripe-Signature")
	if header == "" {
		return nil, &WebhookError{Reason: MissingSignature, Detail: "Stripe-Signature"}
	}
	if v.Secret == "" {
		// Fail closed: without a secret nothing can be verified.
		return nil, &WebhookError{Reason: BadSignature, Detail: "no secret configured"}
	}
	at, sigs, ok := parseSignatureHeader(header)
	if !ok {
		return nil, &WebhookError{Reason: BadSignature, Detail: "unreadable header"}
	}
	want := sign(v.Secret, at, payload)
	matched := false
	for _, s := range sigs {
		// hmac.Equal takes the same time wherever the first difference is.
		if hmac.Equal(want, s) {
			matched = true
		}
	}
	if !matched {
		return nil, &WebhookError{Reason: BadSignature, Detail: "no v1 signature matches"}
	}
	// The timestamp is judged only once it is known to be Stripe's own.
	tolerance := v.Tolerance
	if tolerance <= 0 {
		tolerance = DefaultWebhookTolerance
	}
	now := time.Now
	if v.Now != nil {
		now = v.Now
	}
	if d := now().Sub(time.Unix(at, 0)); d > tolerance || d < -tolerance {
		return nil, &WebhookError{Reason: StaleTimestamp, Detail: "t=" + strconv.FormatInt(at, 10)}
	}
	return parseEvent(payload)
}

// SignWebhook is the Stripe-Signature value Stripe would send for payload
// at time at under secret: for the fake and for tests.
func SignWebhook(secret string, payload []byte, at time.Time) string {
	return "t=" + strconv.FormatInt(at.Unix(), 10) + ",v1=" + hex.EncodeToString(sign(secret, at.Unix(), payload))
}

func sign(secret string, at int64, payload []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(strconv.FormatInt(at, 10)))
	m.Write([]byte{'.'})
	m.Write(payload)
	return m.Sum(nil)
}

// parseSignatureHeader reads t=<unix>,v1=<hex>,...: one timestamp, at least
// one v1. Undecodable v1 values are skipped (they cannot match anyway).
func parseSignatureHeader(header string) (at int64, v1 [][]byte, ok bool) {
	seenT := false
	for _, part := range strings.Split(header, ",") {
		k, val, found := strings.Cut(strings.TrimSpace(part), "=")
		if !found {
			continue
		}
		switch k {
		case "t":
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil || seenT {
				return 0, nil, false
			}
			at, seenT = n, true
		case "v1":
			if sig, err := hex.DecodeString(val); err == nil && len(sig) == sha256.Size {
				v1 = append(v1, sig)
			}
		}
	}
	return at, v1, seenT && len(v1) > 0
}
