package gateway

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/platform/backend/commands"
	gatewaycmd "github.com/platform/backend/commands/gateway"
	"github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/domain/text"
	httpapi "github.com/platform/backend/http"
	gatewayview "github.com/platform/backend/projections/gateway"
)

// Answers and inputs of the connection reads.
type (
	Connections struct {
		Connections []gatewayview.Connection `json:"connections"`
	}
	ConnectionRef struct {
		ConnectionID string `json:"connectionId"`
	}
)

// Input members of the connection actions. Credential members carry no
// pattern: a pattern's refusal quotes the value, and a secret must never
// be quoted; the command refuses control characters in words of its own.
var (
	connectionIDSchema = httpapi.NonEmptyID
	connectionProvider = mustEnum(gateway.ConnectionProviderIDs())
	webhookURLSchema   = httpapi.NullableURLSchema("https?")
	expirySchema       = httpapi.WithFormat(httpapi.StringSchema(0, text.MaxDateTime, "", []string{"string", "null"}), "date-time")
	reasonInput        = httpapi.Object(nil, map[string]string{"connectionId": connectionIDSchema, "reason": httpapi.LineSchema(0, text.MaxReason)})
	credentialsSchema  = secretsSchema()
	settingsSchema     = settingSchema()
	connectionOut      = open(gateway.ConnectionV1{}, httpapi.EnumOf("status", gateway.ConnectionStatuses...),
		httpapi.EnumOf("credential.state", gateway.CredentialStates...), httpapi.OpenObject("settings"))
)

// connectionAdmin makes an action runtime-authorized: beyond its
// permission, the caller acts as an admin (gatewaycmd.AuthorizeConnectionAdmin),
// decided before the action runs.
func connectionAdmin(a httpapi.Action) httpapi.Action {
	a.AuthorizationMode = httpapi.AuthRuntime
	a.Summary += "; needs an admin role (a key: its creator's), else 403 permission_denied"
	inner := a.Handle
	a.Handle = func(ctx context.Context, c *httpapi.Call) (httpapi.Reply, error) {
		if err := gatewaycmd.AuthorizeConnectionAdmin(c.Principal); err != nil {
			return httpapi.Reply{}, err
		}
		return inner(ctx, c)
	}
	return a
}

func connectionsArea(e *gatewaycmd.Edge, q *gatewayview.Queries) Area {
	write := func(a httpapi.Action, f func(context.Context, commands.Meta, gatewaycmd.ChangeConnectionStatus) (commands.Result[gateway.ConnectionV1], error)) httpapi.Action {
		a.Permission, a.OutputSchema, a.InputSchema = "connections:write", connectionOut, reasonInput
		return connectionAdmin(httpapi.Command(a, f))
	}
	return Area{Actions: []httpapi.Action{
		httpapi.Query(httpapi.Action{
			Name: "connections.list", Method: http.MethodGet, Path: "/api/connections", Permission: "connections:read", ReadOnly: true,
			Summary: "The organization's provider connections, newest first, then the platform's own (sandbox: true for the in-process " +
				"fakes of make run); a credential shows its key id, version and member names, never a secret; choice.in_use marks the " +
				"connection of each provider that calls naming none use (the organization's active one chosen last, else the platform's)",
			ReadModel: gatewayview.Name, OutputSchema: open(Connections{}, httpapi.OpenObject("connections[].settings"),
				httpapi.EnumOf("connections[].status", gateway.ConnectionStatuses...), httpapi.Nullable("connections[].credential"),
				httpapi.EnumOf("connections[].credential.state", gateway.CredentialStates...)),
		}, func(ctx context.Context, p principal.Principal, _ Empty) (Connections, error) {
			own, err := q.Connections(ctx, p.OrganizationID)
			if err != nil {
				return Connections{}, err
			}
			inUse := map[string]bool{}
			for _, c := range own {
				inUse[c.Provider] = inUse[c.Provider] || c.Choice.InUse
			}
			for _, pc := range e.PlatformConnections() {
				own = append(own, gatewayview.Connection{ConnectionID: pc.ConnectionID, Provider: pc.Provider, Kind: kindOf(pc.Provider),
					Name: "platform " + pc.Provider, Status: gateway.StatusActive, Sandbox: pc.Sandbox, Settings: map[string]string{},
					Choice: gatewayview.ConnectionChoice{InUse: !inUse[pc.Provider]}})
			}
			return Connections{Connections: own}, nil
		}),
		httpapi.Query(httpapi.Action{
			Name: "connections.get", Method: http.MethodGet, Path: "/api/connections/{connectionId}", Permission: "connections:read",
			ReadOnly: true, Summary: "One of the organization's connections (another organization's answers 404 like a missing one)",
			ReadModel: gatewayview.Name, InputSchema: httpapi.Object([]string{"connectionId"}, map[string]string{"connectionId": connectionIDSchema}),
			OutputSchema: open(gatewayview.Connection{}, httpapi.OpenObject("settings"), httpapi.EnumOf("status", gateway.ConnectionStatuses...),
				httpapi.Nullable("credential"), httpapi.EnumOf("credential.state", gateway.CredentialStates...)),
		}, func(ctx context.Context, p principal.Principal, in ConnectionRef) (gatewayview.Connection, error) {
			return q.Connection(ctx, p.OrganizationID, in.ConnectionID)
		}),
		connectionAdmin(httpapi.Query(httpapi.Action{
			Name: "connections.webhook_secret.get", Method: http.MethodGet, Path: "/api/connections/{connectionId}/webhook-secret",
			Permission: "connections:write", ReadOnly: true,
			Summary: "The secret an app verifies the connection's relayed webhooks with: each relay carries X-Platform-Signature " +
				"t=<unix seconds>,v1=<hex HMAC-SHA256(secret, \"<t>.<body>\")>, as Stripe signs (503 when the operator set no " +
				"GATEWAY_RELAY_SIGNING_KEY); administrators only, since its holder can forge relays",
			InputSchema:  httpapi.Object([]string{"connectionId"}, map[string]string{"connectionId": connectionIDSchema}),
			OutputSchema: open(gatewaycmd.RelaySecret{}),
		}, func(ctx context.Context, p principal.Principal, in ConnectionRef) (gatewaycmd.RelaySecret, error) {
			return e.RelaySecret(ctx, p.OrganizationID, in.ConnectionID) // another organization's, a deleted one: 404
		})),
		connectionAdmin(httpapi.Command(httpapi.Action{
			Name: "connections.create", Method: http.MethodPost, Path: "/api/connections", Permission: "connections:write",
			SuccessStatus: http.StatusCreated,
			Summary: "Connect the organization's own provider account (BYOK: its calls are charged the service fee): the credential is " +
				"sealed (AES-256-GCM) at once and never answered; webhook_url receives the provider's verified webhooks; a token_expires_at " +
				"within seven days notifies gateway.provider.connection_expiring. The first connection of a provider (none in use) is " +
				"chosen at once; another waits for connections.choose, and calls stay on the one in use",
			OutputSchema: connectionOut,
			InputSchema: perProvider(httpapi.Object([]string{"provider", "name", "credentials"}, map[string]string{"provider": connectionProvider,
				"name": httpapi.LineSchema(1, text.MaxTitle), "app_id": httpapi.NullableLine(text.MaxID), "webhook_url": webhookURLSchema,
				"token_expires_at": expirySchema, "settings": settingsSchema, "credentials": credentialsSchema})),
		}, e.CreateConnection)),
		connectionAdmin(httpapi.Command(httpapi.Action{
			Name: "connections.choose", Method: http.MethodPost, Path: "/api/connections/{connectionId}/choose", Permission: "connections:write",
			Summary: "Choose the connection as the one the organization's calls to its provider use when they name none (it stays in use " +
				"until another is chosen; while it is not active, the one chosen before it is used, else the platform's); an inactive " +
				"connection is 409 connection_<status>", OutputSchema: connectionOut,
			InputSchema: httpapi.Object([]string{"connectionId"}, map[string]string{"connectionId": connectionIDSchema}),
		}, e.ChooseConnection)),
		connectionAdmin(httpapi.Command(httpapi.Action{
			Name: "connections.update", Method: http.MethodPatch, Path: "/api/connections/{connectionId}", Permission: "connections:write",
			Summary: "Change a connection's name, app, webhook URL, token expiry or settings (null clears); credentials change with " +
				"connections.credentials.set", OutputSchema: connectionOut,
			InputSchema: httpapi.Object([]string{"connectionId"}, map[string]string{"connectionId": connectionIDSchema,
				"name": httpapi.LineSchema(1, text.MaxTitle), "app_id": httpapi.NullableLine(text.MaxID), "webhook_url": webhookURLSchema,
				"token_expires_at": expirySchema, "settings": settingsSchema}),
		}, e.UpdateConnection)),
		write(httpapi.Action{Name: "connections.disconnect", Method: http.MethodPost, Path: "/api/connections/{connectionId}/disconnect",
			Summary: "Stop using a connection (gateway.provider.disconnected, status disconnected); new credentials reconnect it"}, e.Disconnect),
		write(httpapi.Action{Name: "connections.deauthorize", Method: http.MethodPost, Path: "/api/connections/{connectionId}/deauthorize",
			Summary: "Record that the provider account withdrew access (gateway.provider.disconnected, status deauthorized); the gateway " +
				"does so itself when the provider refuses the connection's credential"}, e.Deauthorize),
		write(httpapi.Action{Name: "connections.delete", Method: http.MethodDelete, Path: "/api/connections/{connectionId}", Destructive: true,
			Summary: "Delete a connection for good: its credential's ciphertext is destroyed (gateway.provider.disconnected, status deleted)"},
			e.DeleteConnection),
		connectionAdmin(httpapi.Command(httpapi.Action{
			Name: "connections.credentials.set", Method: http.MethodPut, Path: "/api/connections/{connectionId}/credentials",
			Permission: "connections:write", Summary: "Replace a connection's credential (a new version, sealed under the active key); " +
				"reconnects a disconnected or deauthorized connection", OutputSchema: connectionOut,
			InputSchema: httpapi.Object([]string{"connectionId", "credentials"}, map[string]string{"connectionId": connectionIDSchema,
				"credentials": credentialsSchema}),
		}, e.SetCredentials)),
		connectionAdmin(httpapi.Command(httpapi.Action{
			Name: "connections.credentials.rotate", Method: http.MethodPost, Path: "/api/connections/{connectionId}/credentials/rotate",
			Permission: "connections:write", Summary: "Key rotation: re-seal the connection's credential under the key ring's active key " +
				"(the secret is unchanged); a credential no key of the ring opens is 409 credential_undecryptable", OutputSchema: connectionOut,
			InputSchema: httpapi.Object([]string{"connectionId"}, map[string]string{"connectionId": connectionIDSchema}),
		}, e.RotateCredential)),
	}}
}

// secretsSchema: every credential member any provider takes, bounded, no
// pattern (see above); at least one.
func secretsSchema() string {
	props := map[string]string{}
	for _, m := range gateway.SecretMembers() {
		props[m] = httpapi.StringSchema(1, gateway.MaxSecretLength, "", nil)
	}
	return withMinProperties(httpapi.Object(nil, props), 1)
}

// settingSchema: the plain settings providers take.
func settingSchema() string {
	props := map[string]string{}
	for _, m := range gateway.SettingMembers() {
		props[m] = httpapi.PatternSchema(64, `^[A-Za-z0-9_-]{1,64}$`)
	}
	return string(httpapi.Object(nil, props))
}

// perProvider states in the create schema which credential members and
// settings each provider takes (one branch per provider), so the schema
// admits what the command accepts.
func perProvider(schema json.RawMessage) json.RawMessage {
	var s map[string]any
	_ = json.Unmarshal(schema, &s)
	var branches []any
	for _, id := range gateway.ConnectionProviderIDs() {
		spec := gateway.ConnectionProviders[id]
		secrets := map[string]json.RawMessage{}
		for _, m := range append(append([]string{}, spec.Secrets...), spec.Optional...) {
			secrets[m] = json.RawMessage(httpapi.StringSchema(1, gateway.MaxSecretLength, "", nil))
		}
		settings := map[string]json.RawMessage{}
		for k, pattern := range spec.Settings {
			settings[k] = json.RawMessage(httpapi.PatternSchema(64, pattern.String()))
		}
		branch := map[string]any{"properties": map[string]any{
			"provider":    map[string]any{"const": id},
			"credentials": map[string]any{"type": "object", "additionalProperties": false, "required": spec.Secrets, "properties": secrets},
			"settings": map[string]any{"type": "object", "additionalProperties": false, "required": nonNil(spec.RequiredSettings),
				"properties": settings},
		}}
		if len(spec.RequiredSettings) > 0 {
			branch["required"] = []string{"settings"}
		}
		branches = append(branches, branch)
	}
	s["oneOf"] = branches
	out, _ := json.Marshal(s)
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func withMinProperties(schema json.RawMessage, n int) string {
	var s map[string]any
	_ = json.Unmarshal(schema, &s)
	s["minProperties"] = n
	out, _ := json.Marshal(s)
	return string(out)
}

func mustEnum(values []string) string {
	s, _ := jsonEnum(values)
	return s
}

func kindOf(provider string) string {
	if spec, ok := gateway.ConnectionProviders[provider]; ok {
		return spec.Kind
	}
	return gateway.KindAI
}
