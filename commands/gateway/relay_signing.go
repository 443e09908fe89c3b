package gateway

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/platform/backend/domain/errs"
)

// Relays are signed the way Stripe signs its webhooks, so an app verifies
// them with code its developers know: the header
//
//	X-Platform-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>
//
// with the connection's relay secret. The timestamp bounds replays; the
// app dedupes on X-Platform-Webhook-Id as before (a relay is at least once).
const (
	RelaySignatureHeader = "X-Platform-Signature"
	// MinRelaySigningKey is the shortest root key, in bytes.
	MinRelaySigningKey = 32
)

// RelaySecret is what an app needs to verify a connection's relays.
type RelaySecret struct {
	ConnectionID string `json:"connection_id"`
	Secret       string `json:"secret"`
	Header       string `json:"header"`
	Scheme       string `json:"scheme"`
}

// relaySecret derives a connection's relay secret from the root key: one
// key to keep, a secret per connection (one app's secret verifies none of
// another's relays), nothing stored. Rotating the root rotates them all.
func (c EdgeConfig) relaySecret(connectionID string) (string, bool) {
	if len(c.RelaySigningKey) == 0 {
		return "", false
	}
	m := hmac.New(sha256.New, c.RelaySigningKey)
	m.Write([]byte("platform gateway relay secret\x00" + connectionID))
	return "whsec_" + base64.RawURLEncoding.EncodeToString(m.Sum(nil)), true
}

// RelaySecret answers the relay secret of one of the organization's
// connections. It reads the write side: a connection deleted a moment ago
// (its credential destroyed in the same transaction) is missing at once,
// like another organization's.
func (e *Edge) RelaySecret(ctx context.Context, organizationID, connectionID string) (RelaySecret, error) {
	row, ok, err := e.readCredential(ctx, connectionID)
	if err != nil {
		return RelaySecret{}, err
	}
	if !ok || row.Org != organizationID {
		return RelaySecret{}, errs.NotFound("connection")
	}
	secret, ok := e.cfg.relaySecret(connectionID)
	if !ok {
		return RelaySecret{}, errs.Unavailable("relays are not signed: no relay signing key is configured (GATEWAY_RELAY_SIGNING_KEY)", nil)
	}
	return RelaySecret{ConnectionID: connectionID, Secret: secret, Header: RelaySignatureHeader,
		Scheme: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`}, nil
}

// SignRelay is the signature header's value for body at t.
func SignRelay(secret string, body []byte, t time.Time) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + relayMAC(secret, ts, body)
}

func relayMAC(secret, ts string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "."))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// Errors of VerifyRelay.
var (
	ErrRelayUnsigned = errors.New("relay: no valid signature")
	ErrRelayStale    = errors.New("relay: signed outside the tolerance")
)

// VerifyRelay checks a relay's signature header as an app written in Go
// would: any v1 signature matching, a timestamp within tolerance of now.
func VerifyRelay(secret, header string, body []byte, now time.Time, tolerance time.Duration) error {
	var ts string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	unix, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return ErrRelayUnsigned
	}
	want := relayMAC(secret, ts, body)
	matched := false
	for _, s := range sigs {
		matched = matched || hmac.Equal([]byte(s), []byte(want))
	}
	if !matched {
		return ErrRelayUnsigned
	}
	if d := now.Sub(time.Unix(unix, 0)); d > tolerance || d < -tolerance {
		return ErrRelayStale
	}
	return nil
}
