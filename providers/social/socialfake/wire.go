package socialfake

import (
	"encoding/json"
	"net/http"
	"strings"
)

// WriteJSON answers v as JSON with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// ExpiresIn is the seconds left on a grant's access token by the fake's
// clock (0: it does not expire).
func (c *Core) ExpiresIn(g Grant) int64 {
	if g.Expiry.IsZero() {
		return 0
	}
	return int64(g.Expiry.Sub(c.Now()).Round(1e9) / 1e9)
}

// RefreshExpiresIn is the seconds left on a grant's refresh token (0:
// none or never).
func (c *Core) RefreshExpiresIn(g Grant) int64 {
	if g.RefreshExpiry.IsZero() {
		return 0
	}
	return int64(g.RefreshExpiry.Sub(c.Now()).Round(1e9) / 1e9)
}

// JoinScopes joins granted scopes the network's way.
func JoinScopes(scopes []string, sep string) string { return strings.Join(scopes, sep) }
