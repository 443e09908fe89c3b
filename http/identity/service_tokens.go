package identity

import (
	"context"
	httpapi "github.com/platform/backend/http"
	"net/http"
	"time"

	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/domain/identity"
)

// serviceTokenAction issues service-to-service tokens over HTTP, so the
// workloads of a deployment (payments, the marketing site, ...) get their
// short-lived identity from whoever deploys them: a platform role or an
// operator key (a key of the administration organization naming the
// platform scope service_tokens:issue). No tenant reaches it.
func serviceTokenAction(keys *identitycmd.ServiceKeys) httpapi.Action {
	return httpapi.Action{
		Name: "app_platform_auth.service_tokens.issue", Method: http.MethodPost, Path: "/api/internal/service-tokens",
		Permission: "service_tokens:issue", SuccessStatus: http.StatusCreated,
		Summary: "Issue a service-to-service token (EdDSA JWT of the identity key set) for a named service; platform " +
			"roles and operator keys only. ttlSeconds 60..3600, default 600",
		InputSchema: httpapi.Object([]string{"service"}, map[string]string{
			"service":    appIDSchema,
			"ttlSeconds": `{"type":"integer","minimum":60,"maximum":3600}`}),
		Handle: func(ctx context.Context, c *httpapi.Call) (httpapi.Reply, error) {
			var in struct {
				Service    string `json:"service"`
				TTLSeconds int    `json:"ttlSeconds"`
			}
			if err := c.Decode(&in); err != nil {
				return httpapi.Reply{}, err
			}
			ttl := identity.ServiceTokenTTL
			if in.TTLSeconds > 0 {
				ttl = time.Duration(in.TTLSeconds) * time.Second
			}
			token, err := keys.Issue(ctx, in.Service, ttl)
			if err != nil {
				return httpapi.Reply{}, err
			}
			h := http.Header{}
			h.Set("Cache-Control", "no-store")
			return httpapi.Reply{Body: map[string]any{"token": token, "token_type": "Bearer", "service": in.Service,
				"expires_in": int(ttl.Seconds())}, Header: h}, nil
		},
	}
}
