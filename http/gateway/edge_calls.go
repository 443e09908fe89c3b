package gateway

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/platform/backend/commands"
	gatewaycmd "github.com/platform/backend/commands/gateway"
	"github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/eventstore"
	httpapi "github.com/platform/backend/http"
	gatewayview "github.com/platform/backend/projections/gateway"
	"github.com/platform/backend/providers/payments/stripe"
)

// Services that may send instant messages (seed 001: the notification
// service and the messaging dispatch service).
var MessageServices = []string{"notifications", "messaging_dispatch"}

// Answers of the webhook list.
type InboundWebhooks struct {
	Webhooks []gatewayview.InboundWebhook `json:"webhooks"`
}

// sendMessageSchema is instant_message.send's input (seed 001); a
// template message names its template, a text message (the default) its text.
var sendMessageSchema = withTypeRule(httpapi.Object([]string{"to"}, map[string]string{
	"to": httpapi.LineSchema(5, 40), "connection_id": connectionIDSchema, "phone_number_id": httpapi.PatternSchema(32, `^[0-9]{1,32}$`),
	"app_id": appIDSchema, "type": `{"type":"string","enum":["text","template"]}`, "text": httpapi.TextSchema(1, 4096),
	"preview_url": booleanSchema,
	"template": `{"type":"object","additionalProperties":false,"required":["name","language"],"properties":{
		"name":` + httpapi.LineSchema(1, 512) + `,"language":` + httpapi.LineSchema(2, 20) + `,
		"components":{"type":"array","maxItems":20,"items":{"type":"object"}}}}`,
}))

func withTypeRule(schema json.RawMessage) json.RawMessage {
	var s map[string]any
	_ = json.Unmarshal(schema, &s)
	s["if"] = map[string]any{"required": []string{"type"}, "properties": map[string]any{"type": map[string]any{"const": "template"}}}
	s["then"] = map[string]any{"required": []string{"template"}}
	s["else"] = map[string]any{"required": []string{"text"}}
	out, _ := json.Marshal(s)
	return out
}

var paymentsSchema = httpapi.Object([]string{"operation", "params"}, map[string]string{
	"operation": mustEnum(stripeOperations()), "params": `{"type":"object"}`,
})

func stripeOperations() []string {
	var out []string
	for _, op := range stripe.Operations() {
		out = append(out, op.Name)
	}
	return out
}

func callsArea(e *gatewaycmd.Edge, q *gatewayview.Queries) Area {
	return Area{Actions: []httpapi.Action{
		httpapi.Command(httpapi.Action{
			Name: "instant_message.send", Method: http.MethodPost, Path: "/api/instant-message/send", Permission: "message:send",
			AuthorizationMode: httpapi.AuthRuntime, AllowedServices: MessageServices, Destructive: true, Problems: aiProblems,
			Summary: "Send a WhatsApp Cloud API message (text, or an approved template) through the metered path; only the notification " +
				"and messaging-dispatch services' identities may call it. connection_id names the sending organization's connection " +
				"(else the platform's); a failed terminal result notifies gateway.delivery.failed",
			OutputSchema: deliveryOut, InputSchema: sendMessageSchema,
		}, e.SendMessage),
		withIdempotencyKey(httpapi.Query(httpapi.Action{
			Name: "payments.processor.invoke", Method: http.MethodPost, Path: "/api/payments/processor", Permission: "payments:invoke",
			Problems: aiProblems,
			Summary: "Run a Stripe operation (REST path and method from the operation; params form-encoded, params.id the path id, " +
				"params.stripe_account the connected account) through the metered path (one call); the Idempotency-Key header goes through " +
				"to Stripe (a changed request under it is 422 idempotency_key_reused, one still running 409); the provider's object is answered",
			OutputSchema: open(gatewaycmd.PaymentsAnswer{}, httpapi.OpenObject("object")), InputSchema: paymentsSchema,
		}, invokeWithKey(e))),
		httpapi.Query(httpapi.Action{
			Name: "webhooks.list", Method: http.MethodGet, Path: "/api/webhooks", Permission: "connections:read", ReadOnly: true,
			Summary: "Verified provider webhooks received on the organization's connections, newest first, and their relay to the " +
				"connection's webhook URL (pending, relayed, failed; none without a URL)", ReadModel: gatewayview.Name,
			InputSchema:  httpapi.Object(nil, map[string]string{"limit": limitSchema}),
			OutputSchema: open(InboundWebhooks{}, httpapi.EnumOf("webhooks[].relay_status", gateway.RelayStatuses...)),
		}, func(ctx context.Context, p principal.Principal, in ListAudit) (InboundWebhooks, error) {
			ws, err := q.Webhooks(ctx, p.OrganizationID, defaultTo(in.Limit, 50))
			return InboundWebhooks{Webhooks: ws}, err
		}),
	}}
}

// invokeWithKey is payments.processor.invoke: a query's shape (it appends
// no event of its own but its usage event, so it answers no position) that
// needs the caller's Idempotency-Key, which withIdempotencyKey hands on.
func invokeWithKey(e *gatewaycmd.Edge) func(context.Context, principal.Principal, gatewaycmd.InvokePayments) (gatewaycmd.PaymentsAnswer, error) {
	return func(ctx context.Context, p principal.Principal, in gatewaycmd.InvokePayments) (gatewaycmd.PaymentsAnswer, error) {
		m := commands.Meta{OrganizationID: p.OrganizationID, Actor: eventstore.Actor{ID: p.ID, Type: p.Type}, ActingUser: p.ActingUser(),
			CorrelationID: httpapi.RequestID(ctx)}
		m.IdempotencyKey, _ = ctx.Value(keyOfCall{}).(string)
		return e.InvokePayments(ctx, m, in)
	}
}

type keyOfCall struct{}

// withIdempotencyKey passes the call's checked Idempotency-Key on to the
// action's handler.
func withIdempotencyKey(a httpapi.Action) httpapi.Action {
	inner := a.Handle
	a.Handle = func(ctx context.Context, c *httpapi.Call) (httpapi.Reply, error) {
		return inner(context.WithValue(ctx, keyOfCall{}, c.Meta.IdempotencyKey), c)
	}
	return a
}
