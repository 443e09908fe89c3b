package identity

import (
	"context"
	"net/http"
	"time"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/domain/identity"
	httpapi "github.com/platform/backend/http"
)

// serviceTokenAction issues service-to-service tokens over HTTP, so the
// workloads of a deployment (payments, the marketing site, ...) get their
// short-lived identity from whoever deploys them: a platform role or an
// operator key (a key of the administration organization naming the
// platform scope service_tokens:issue). No tenant reaches it.
func serviceTokenAction(keys *identitycmd.ServiceKeys) httpapi.Action {
	return httpapi.NoStore(httpapi.Perform(httpapi.Action{
		Name: "app_platform_auth.service_tokens.issue", Method: http.MethodPost, Path: "/api/internal/service-tokens",
		Permission: "service_tokens:issue", SuccessStatus: http.StatusCreated,
		Summary: "Issue a service-to-service token (EdDSA JWT of the identity key set) for a named service; platform " +
			"roles and operator keys only. ttlSeconds 60..3600, default 600",
		InputSchema: httpapi.Object([]string{"service"}, map[string]string{
			"service":    appIDSchema,
			"ttlSeconds": `{"type":"integer","minimum":60,"maximum":3600}`}),
	}, func(ctx context.Context, _ commands.Meta, _ identity.Principal, in ServiceTokenInput) (ServiceToken, error) {
		ttl := identity.ServiceTokenTTL
		if in.TTLSeconds > 0 {
			ttl = time.Duration(in.TTLSeconds) * time.Second
		}
		token, err := keys.Issue(ctx, in.Service, ttl)
		if err != nil {
			return ServiceToken{}, err
		}
		return ServiceToken{Token: token, TokenType: "Bearer", Service: in.Service, ExpiresIn: int(ttl.Seconds())}, nil
	}))
}

// ServiceToken is the answer of service_tokens.issue (shown once).
type ServiceToken struct {
	Token     string `json:"token"`
	TokenType string `json:"token_type"`
	Service   string `json:"service"`
	ExpiresIn int    `json:"expires_in"`
}
