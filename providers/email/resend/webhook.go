package resend

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/platform/backend/providers/delivery"
)

// DefaultTolerance is how far a webhook's signed timestamp may be from
// now, either way, before it counts as a replay.
const DefaultTolerance = 5 * time.Minute

// Webhook verifies and reads Resend's webhooks, which are signed the Svix
// way: svix-signature holds one or more space-separated "v1,<base64
// HMAC-SHA256>" of svix-id + "." + svix-timestamp + "." + the raw body,
// keyed with the base64-decoded part of the secret after "whsec_".
type Webhook struct {
	Secret    string        // "whsec_..." as Resend shows it
	Tolerance time.Duration // default DefaultTolerance
	Now       func() time.Time
}

var _ delivery.WebhookReceiver = Webhook{}

// Header names of the Svix scheme.
const (
	HeaderID        = "svix-id"
	HeaderTimestamp = "svix-timestamp"
	HeaderSignature = "svix-signature"
)

func (w Webhook) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

func (w Webhook) key() ([]byte, bool) {
	k, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(w.Secret, "whsec_"))
	return k, err == nil && len(k) > 0
}

// signature is the v1 signature of a message, raw.
func signature(key []byte, id, timestamp string, body []byte) []byte {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + timestamp + "."))
	mac.Write(body)
	return mac.Sum(nil)
}

// Verify checks the headers against the raw body: presence, then the
// timestamp's freshness, then any one of the v1 signatures.
func (w Webhook) Verify(h http.Header, body []byte) error {
	fail := func(r delivery.WebhookReason, detail string) error {
		return &delivery.WebhookError{Provider: Provider, Reason: r, Detail: detail}
	}
	id, ts, sigs := h.Get(HeaderID), h.Get(HeaderTimestamp), h.Get(HeaderSignature)
	for _, name := range []string{HeaderID, HeaderTimestamp, HeaderSignature} {
		if h.Get(name) == "" {
			return fail(delivery.MissingAuth, name)
		}
	}
	secs, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fail(delivery.Malformed, HeaderTimestamp)
	}
	tolerance := w.Tolerance
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	if d := w.now().Sub(time.Unix(secs, 0)); d > tolerance || d < -tolerance {
		return fail(delivery.Stale, HeaderTimestamp)
	}
	key, ok := w.key()
	if !ok {
		// A secret we cannot decode verifies nothing: refuse, never accept.
		return fail(delivery.BadAuth, "secret unusable")
	}
	want := signature(key, id, ts, body)
	for _, sig := range strings.Fields(sigs) {
		version, value, _ := strings.Cut(sig, ",")
		got, err := base64.StdEncoding.DecodeString(value)
		if version == "v1" && err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return fail(delivery.BadAuth, HeaderSignature)
}

// Sign returns the Svix headers for a body: what Resend sends, and what
// tests and the fake use.
func (w Webhook) Sign(id string, at time.Time, body []byte) http.Header {
	key, _ := w.key()
	ts := strconv.FormatInt(at.Unix(), 10)
	h := http.Header{}
	h.Set(HeaderID, id)
	h.Set(HeaderTimestamp, ts)
	h.Set(HeaderSignature, "v1,"+base64.StdEncoding.EncodeToString(signature(key, id, ts, body)))
	return h
}

// Receive verifies the webhook and parses it.
func (w Webhook) Receive(h http.Header, body []byte) ([]delivery.Event, error) {
	if err := w.Verify(h, body); err != nil {
		return nil, err
	}
	return ParseWebhook(body)
}
