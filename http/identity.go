package httpapi

import (
	"context"
	"net/http"

	"github.com/gorilla/mux"

	identitycmd "github.com/platform/backend/commands/identity"
)

// IdentityService serves what the backbone needs of seed 001's identity
// service: /validate for every backend, and API key management.
func IdentityService(cmds *identitycmd.Handlers) Service {
	return Service{
		Name: "identity",
		Actions: []Action{
			{
				Name: "app_platform_auth.api_keys.create", Method: http.MethodPost, Path: "/api/api-keys", Permission: "api_keys:write",
				SuccessStatus: http.StatusCreated, Summary: "Create an API key of the caller's organization; the token is shown once",
				InputSchema: schemaObject([]string{"name", "scopes"}, map[string]string{
					"name": `{"type":"string","minLength":1,"maxLength":120}`, "service": `{"type":"string"}`,
					"scopes": `{"type":"array","minItems":1,"items":{"type":"string","pattern":"^[a-z0-9_.-]+:[a-z0-9_.-]+$"}}`}),
				Handle: func(ctx context.Context, c *Call) (Reply, error) {
					var in identitycmd.CreateAPIKey
					if err := c.Decode(&in); err != nil {
						return Reply{}, err
					}
					return FromResult(cmds.CreateAPIKey(ctx, c.Meta, in))
				},
			},
			{
				Name: "app_platform_auth.api_keys.revoke", Method: http.MethodDelete, Path: "/api/api-keys/{keyId}", Permission: "api_keys:write",
				Destructive: true, Summary: "Revoke an API key; it fails validation at once",
				InputSchema: schemaObject([]string{"keyId"}, map[string]string{"keyId": `{"type":"string","format":"uuid"}`}),
				Handle: func(ctx context.Context, c *Call) (Reply, error) {
					var in identitycmd.RevokeAPIKey
					if err := c.Decode(&in); err != nil {
						return Reply{}, err
					}
					return FromResult(cmds.RevokeAPIKey(ctx, c.Meta, in))
				},
			},
		},
		Routes: func(r *mux.Router) {
			r.HandleFunc("/api/health", func(w http.ResponseWriter, _ *http.Request) {
				WriteJSON(w, http.StatusOK, map[string]string{"status": "ok", "service": "identity"})
			}).Methods(http.MethodGet)
		},
	}
}

// ValidateRoute is the identity service's /validate (any method): 200 with
// the principal, 401 for a bad credential, 503 when the store is down.
func ValidateRoute(v Validator, d Deps) func(r *mux.Router) {
	return func(r *mux.Router) {
		r.HandleFunc("/validate", func(w http.ResponseWriter, req *http.Request) {
			token := credential(req)
			if token == "" {
				WriteError(w, req, d.Log, errAuthRequired)
				return
			}
			p, err := v.Validate(req.Context(), token)
			if err != nil {
				WriteError(w, req, d.Log, err)
				return
			}
			WriteJSON(w, http.StatusOK, p)
		})
	}
}
