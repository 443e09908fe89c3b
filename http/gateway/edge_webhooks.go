package gateway

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	"github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/domain/text"
	httpapi "github.com/platform/backend/http"
)

// maxWebhookBody bounds an inbound webhook (providers send a few KiB).
const maxWebhookBody = 1 << 20

// Schemas of the webhook actions: the provider's event is whatever it signed
// (its JSON, read raw: the signature covers the bytes); the handshake echoes
// a challenge of at most 1 KiB as text.
var (
	webhookBody   = json.RawMessage(`{"type":"object","description":"the provider's event, as it signed it"}`)
	webhookOut    = httpapi.OutputOf(gatewaycmd.WebhookAnswer{})
	challengeOut  = json.RawMessage(`{"type":"string","maxLength":1024}`)
	handshakeHint = "WhatsApp's subscription handshake: echoes hub.challenge as text when hub.mode is subscribe and " +
		"hub.verify_token is the connection's verify token; 400 otherwise"
)

// HandshakeIn is the WhatsApp handshake's query.
type HandshakeIn struct {
	ConnectionID string `json:"connectionId"`
	Mode         string `json:"hub.mode"`
	VerifyToken  string `json:"hub.verify_token"`
	Challenge    string `json:"hub.challenge"`
}

// webhookActions are the providers' inbound webhooks: public actions (the
// provider authenticates with the connection's secret, not a platform
// credential), POST /webhooks/<segment>/{connectionId} for each provider
// whose table row names a webhook segment (stripe, postmark, resend,
// whatsapp), and WhatsApp's GET subscription handshake. Being actions, they
// get the kernel's checks of every route (parameters, sizes, media type, the
// per-address inbound limit), its problem answers and the OpenAPI document
// the fuzzing gate reads. Unverified: 400 and nothing stored.
//
// A receive is recorded once per provider event id, so it takes no
// Idempotency-Key (NoIdempotencyKey: one sent is ignored). It keeps seed
// 000's agentAccess confirm of a mutation: providers call it, never an
// agent, and an agent that could sign one would be forging a provider's
// event (receipts recorded, a relay to the app), which is nothing to run
// unasked.
func webhookActions(e *gatewaycmd.Edge) []httpapi.Action {
	var segments []string
	for _, spec := range gateway.ConnectionProviders {
		if spec.Webhook != "" {
			segments = append(segments, spec.Webhook)
		}
	}
	slices.Sort(segments)
	in := httpapi.Object([]string{"connectionId"}, map[string]string{"connectionId": connectionIDSchema})
	var out []httpapi.Action
	for _, segment := range segments {
		out = append(out, httpapi.Bytes(httpapi.Action{
			Name: "webhooks." + segment + ".receive", Method: http.MethodPost, Path: "/webhooks/" + segment + "/{connectionId}",
			AuthorizationMode: httpapi.AuthPublic, Inbound: true, InvalidStatus: http.StatusBadRequest, NoIdempotencyKey: true,
			Summary: "A " + segment + " webhook to the connection, verified with its secret (400 webhook_unverified or " +
				"webhook_stale, nothing stored), recorded once (a repeat answers duplicate: true) and relayed to its webhook URL",
			InputSchema: in, OutputSchema: webhookOut,
			Body: &httpapi.RawBody{MediaTypes: []string{"application/json"}, MaxBytes: maxWebhookBody, Schema: webhookBody},
		}, func(ctx context.Context, c *httpapi.Call, in ConnectionRef) (httpapi.Reply, error) {
			body, err := io.ReadAll(c.Body)
			if err != nil {
				return httpapi.Reply{}, err
			}
			ans, err := e.ReceiveWebhook(ctx, gatewaycmd.InboundWebhook{Segment: segment, ConnectionID: in.ConnectionID,
				Header: c.Request.Header, Body: body})
			if err != nil {
				return httpapi.Reply{}, err
			}
			return httpapi.OK(ans), nil
		}))
	}
	whatsapp := gateway.ConnectionProviders[gateway.ProviderMessageA].Webhook
	out = append(out, httpapi.Bytes(httpapi.Action{
		Name: "webhooks." + whatsapp + ".subscribe", Method: http.MethodGet, Path: "/webhooks/" + whatsapp + "/{connectionId}",
		ReadOnly: true, AuthorizationMode: httpapi.AuthPublic, Inbound: true, InvalidStatus: http.StatusBadRequest,
		Summary: handshakeHint, Produces: "text/plain", OutputSchema: challengeOut,
		InputSchema: httpapi.Object([]string{"connectionId"}, map[string]string{"connectionId": connectionIDSchema,
			"hub.mode": httpapi.LineSchema(0, 32), "hub.verify_token": httpapi.LineSchema(0, text.MaxToken),
			"hub.challenge": httpapi.LineSchema(0, 1024)}),
	}, func(ctx context.Context, c *httpapi.Call, in HandshakeIn) (httpapi.Reply, error) {
		challenge, err := e.SubscribeWebhook(ctx, whatsapp, in.ConnectionID,
			url.Values{"hub.mode": {in.Mode}, "hub.verify_token": {in.VerifyToken}, "hub.challenge": {in.Challenge}})
		if err != nil {
			return httpapi.Reply{}, err
		}
		return httpapi.Reply{ContentType: "text/plain; charset=utf-8", Header: http.Header{"Cache-Control": {"no-store"}},
			Content: func(w io.Writer) error {
				_, err := io.WriteString(w, challenge)
				return err
			}}, nil
	}))
	return out
}
