package whatsapp

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/platform/backend/providers/delivery"
)

// SignatureHeader carries the webhook's signature.
const SignatureHeader = "X-Hub-Signature-256"

// Webhook verifies and reads the Cloud API's webhooks: each POST carries
// X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body keyed with
// the app secret>. There is no signed timestamp, so no replay check:
// receivers dedupe on (message id, status).
type Webhook struct {
	AppSecret string
	// VerifyToken is the token set with the webhook's callback URL in the
	// app dashboard; Subscribe checks it.
	VerifyToken string
}

var _ delivery.WebhookReceiver = Webhook{}

func (w Webhook) mac(body []byte) []byte {
	m := hmac.New(sha256.New, []byte(w.AppSecret))
	m.Write(body)
	return m.Sum(nil)
}

// Verify checks the signature against the raw body, in constant time.
func (w Webhook) Verify(h http.Header, body []byte) error {
	v := h.Get(SignatureHeader)
	if v == "" {
		return &delivery.WebhookError{Provider: Provider, Reason: delivery.MissingAuth, Detail: SignatureHeader}
	}
	hexSig, ok := strings.CutPrefix(v, "sha256=")
	got, err := hex.DecodeString(hexSig)
	if !ok || err != nil || w.AppSecret == "" || !hmac.Equal(got, w.mac(body)) {
		return &delivery.WebhookError{Provider: Provider, Reason: delivery.BadAuth, Detail: SignatureHeader}
	}
	return nil
}

// Sign returns the signature header value for a body: what Meta sends,
// and what tests and the fake use.
func (w Webhook) Sign(body []byte) string {
	return "sha256=" + hex.EncodeToString(w.mac(body))
}

// Receive verifies the webhook and parses it.
func (w Webhook) Receive(h http.Header, body []byte) ([]delivery.Event, error) {
	if err := w.Verify(h, body); err != nil {
		return nil, err
	}
	return ParseWebhook(body)
}

// ErrSubscription refuses a subscription handshake (wrong mode or token).
var ErrSubscription = errors.New("whatsapp webhook: subscription refused")

// Subscribe answers the GET handshake Meta makes when the callback URL is
// set (hub.mode=subscribe, hub.verify_token, hub.challenge): the challenge
// to echo as the body, or ErrSubscription.
func (w Webhook) Subscribe(q url.Values) (string, error) {
	if q.Get("hub.mode") != "subscribe" || w.VerifyToken == "" || !delivery.SecretEqual(q.Get("hub.verify_token"), w.VerifyToken) {
		return "", ErrSubscription
	}
	return q.Get("hub.challenge"), nil
}
