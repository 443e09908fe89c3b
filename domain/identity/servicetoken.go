package identity

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/platform/backend/domain/errs"
)

// Service-to-service tokens: compact JWTs (EdDSA, Ed25519) that the identity
// service signs with its own key set for service identities. Internal
// billing-plane routes verify them by kid against that key set; no user
// token is involved.
const (
	ServiceTokenIssuer   = "app_platform_auth"
	ServiceTokenAudience = "app_platform_auth"
	ServiceTokenTTL      = 10 * time.Minute
)

// BillingPlaneServices may call the internal billing-plane routes.
var BillingPlaneServices = []string{"payments", "marketing_site", "dashboard_api"}

// ServiceClaims are the claims of a service token.
type ServiceClaims struct {
	Issuer        string `json:"iss"`
	Subject       string `json:"sub"` // service:<name>
	Audience      string `json:"aud"`
	Service       string `json:"service"`
	PrincipalType string `json:"principal_type"` // always service
	IssuedAt      int64  `json:"iat"`
	ExpiresAt     int64  `json:"exp"`
	ID            string `json:"jti"`
}

type jwtHeader struct {
	Alg string `json:"alg"`
	Typ string `json:"typ"`
	Kid string `json:"kid"`
}

var b64 = base64.RawURLEncoding

// SignServiceToken signs claims with one key of the set.
func SignServiceToken(kid string, key ed25519.PrivateKey, c ServiceClaims) (string, error) {
	h, err := json.Marshal(jwtHeader{Alg: "EdDSA", Typ: "JWT", Kid: kid})
	if err != nil {
		return "", err
	}
	p, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	input := b64.EncodeToString(h) + "." + b64.EncodeToString(p)
	return input + "." + b64.EncodeToString(ed25519.Sign(key, []byte(input))), nil
}

// LooksLikeJWT tells a compact JWT from the platform's other credentials.
func LooksLikeJWT(token string) bool {
	return strings.HasPrefix(token, "eyJ") && strings.Count(token, ".") == 2
}

// VerifyServiceToken checks the signature with the key named by kid, then
// the algorithm, issuer, audience, lifetime and principal type. Every
// failure is the same 401, so a caller learns nothing about the key set.
func VerifyServiceToken(token string, key func(kid string) (ed25519.PublicKey, bool), audience string, now time.Time) (ServiceClaims, error) {
	bad := errs.AuthenticationRequired("invalid service token")
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return ServiceClaims{}, bad
	}
	raw, err := b64.DecodeString(parts[0])
	if err != nil {
		return ServiceClaims{}, bad
	}
	var h jwtHeader
	if json.Unmarshal(raw, &h) != nil || h.Alg != "EdDSA" || h.Kid == "" {
		return ServiceClaims{}, bad
	}
	pub, ok := key(h.Kid)
	if !ok {
		return ServiceClaims{}, bad
	}
	sig, err := b64.DecodeString(parts[2])
	if err != nil || !ed25519.Verify(pub, []byte(parts[0]+"."+parts[1]), sig) {
		return ServiceClaims{}, bad
	}
	body, err := b64.DecodeString(parts[1])
	if err != nil {
		return ServiceClaims{}, bad
	}
	var c ServiceClaims
	if json.Unmarshal(body, &c) != nil {
		return ServiceClaims{}, bad
	}
	if c.Issuer != ServiceTokenIssuer || c.Audience != audience || c.PrincipalType != "service" || c.Service == "" ||
		c.Subject != "service:"+c.Service || now.Unix() >= c.ExpiresAt || c.IssuedAt > now.Add(time.Minute).Unix() {
		return ServiceClaims{}, bad
	}
	return c, nil
}

// IsBillingPlane reports whether a service may call billing-plane routes.
func IsBillingPlane(service string) bool { return slices.Contains(BillingPlaneServices, service) }
