package gateway

import (
	"context"
	"net/http"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	"github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/domain/text"
	httpapi "github.com/platform/backend/http"
	gatewayview "github.com/platform/backend/projections/gateway"
)

// Answers and inputs of the email profile reads.
type (
	EmailProfiles struct {
		Profiles []gateway.EmailProfile `json:"profiles"`
	}
	ProfileRef struct {
		ID string `json:"id"`
	}
)

// Input members of seed 001's email actions.
var (
	emailSchema     = httpapi.EmailSchema()
	emailList       = `{"type":"array","maxItems":50,"items":` + emailSchema + `}`
	profileName     = httpapi.LineSchema(1, gateway.MaxProfileName)
	nullableEmail   = httpapi.WithFormat(httpapi.StringSchema(3, text.MaxEmail, text.LinePattern, []string{"string", "null"}), "email")
	profileIDSchema = httpapi.NonEmptyID
	profileOut      = open(gatewaycmd.EmailProfileAnswer{}, httpapi.Nullable("profile"))
	deliveryOut     = open(gateway.DeliveryState{}, httpapi.EnumOf("status", gateway.DeliveryStatuses...))
	// Bodies: the 1 MiB request bounds them together.
	bodySchema  = httpapi.TextSchema(1, 500_000)
	emailToSend = `{"anyOf":[` + emailSchema + `,{"type":"array","minItems":1,"maxItems":50,"items":` + emailSchema + `}]}`
)

// sendEmailSchema is email.send's input, exactly as seed 001 lists it.
var sendEmailSchema = withAnyOf(httpapi.Object([]string{"to", "subject"}, map[string]string{
	"to": emailToSend, "subject": httpapi.LineSchema(1, 998), "profile_id": profileIDSchema,
	"provider": `{"type":"string","enum":["email_provider_a","email_provider_b"]}`,
	"from":     httpapi.LineSchema(3, text.MaxEmail+text.MaxTitle), "html": bodySchema, "text": bodySchema, "reply_to": emailSchema,
	"cc": emailList, "bcc": emailList,
	"tags": `{"type":"array","maxItems":20,"items":{"type":"object","additionalProperties":false,"required":["name","value"],"properties":{
		"name":` + httpapi.PatternSchema(256, `^[A-Za-z0-9_-]{1,256}$`) + `,"value":` + httpapi.LineSchema(1, 1000) + `}}}`,
	"message_stream": httpapi.PatternSchema(100, `^[A-Za-z0-9_-]{1,100}$`), "app_id": appIDSchema,
	"attachments": `{"type":"array","maxItems":20,"items":{"type":"object","additionalProperties":false,"required":["filename","content"],"properties":{
		"filename":` + httpapi.PatternSchema(255, `^[^\x00-\x1f\x7f-\x9f"/\\]{1,255}$`) + `,
		"content":` + base64Schema + `,
		"content_type":` + httpapi.PatternSchema(255, `^[a-zA-Z0-9][a-zA-Z0-9!#$&^_.+-]*/[a-zA-Z0-9][a-zA-Z0-9!#$&^_.+-]*(;[ -~]*)?$`) + `}}}`,
}), []string{"html"}, []string{"text"})

func emailArea(e *gatewaycmd.Edge, q *gatewayview.Queries) Area {
	profileMembers := map[string]string{"connection_id": connectionIDSchema, "profile_name": profileName, "from_name": profileName,
		"from_email": emailSchema, "reply_to_email": nullableEmail, "app_id": httpapi.NullableLine(text.MaxID), "is_active": booleanSchema,
		"is_default": booleanSchema}
	update := map[string]string{"id": profileIDSchema}
	for k, v := range profileMembers {
		update[k] = v
	}
	return Area{Actions: []httpapi.Action{
		httpapi.Command(httpapi.Action{
			Name: "email.profiles.create", Method: http.MethodPost, Path: "/api/email/profiles", Permission: "email:write",
			SuccessStatus: http.StatusCreated,
			Summary: "An email profile: the sender (from_name, from_email), reply-to, the email connection and the app it sends for; " +
				"is_default makes it the one email.send uses when it names none", OutputSchema: profileOut,
			InputSchema: httpapi.Object([]string{"connection_id", "profile_name", "from_name", "from_email"}, profileMembers),
		}, e.CreateEmailProfile),
		httpapi.Command(httpapi.Action{
			Name: "email.profiles.update", Method: http.MethodPatch, Path: "/api/email/profiles/{id}", Permission: "email:write",
			Summary: "Change an email profile (null clears reply_to_email or app_id)", OutputSchema: profileOut,
			InputSchema: httpapi.Object([]string{"id"}, update),
		}, e.UpdateEmailProfile),
		httpapi.Query(httpapi.Action{
			Name: "email.profiles.list", Method: http.MethodGet, Path: "/api/email/profiles", Permission: "email:read", ReadOnly: true,
			Summary: "The organization's email profiles, oldest first", ReadModel: gatewayview.Name, OutputSchema: open(EmailProfiles{}),
		}, func(ctx context.Context, p principal.Principal, _ Empty) (EmailProfiles, error) {
			ps, err := q.EmailProfiles(ctx, p.OrganizationID)
			return EmailProfiles{Profiles: ps}, err
		}),
		httpapi.Query(httpapi.Action{
			Name: "email.profiles.get", Method: http.MethodGet, Path: "/api/email/profiles/{id}", Permission: "email:read", ReadOnly: true,
			Summary: "One email profile", ReadModel: gatewayview.Name, OutputSchema: open(gateway.EmailProfile{}),
			InputSchema: httpapi.Object([]string{"id"}, map[string]string{"id": profileIDSchema}),
		}, func(ctx context.Context, p principal.Principal, in ProfileRef) (gateway.EmailProfile, error) {
			return q.EmailProfile(ctx, p.OrganizationID, in.ID)
		}),
		httpapi.Command(httpapi.Action{
			Name: "email.profiles.delete", Method: http.MethodDelete, Path: "/api/email/profiles/{id}", Permission: "email:write",
			Destructive: true, Summary: "Remove an email profile", OutputSchema: profileOut,
			InputSchema: httpapi.Object([]string{"id"}, map[string]string{"id": profileIDSchema}),
		}, e.DeleteEmailProfile),
		httpapi.Command(httpapi.Action{
			Name: "email.send", Method: http.MethodPost, Path: "/api/email/send", Permission: "email:send", Problems: aiProblems,
			Summary: "Send an email through the metered path (one message per recipient): the profile (profile_id, else the default) " +
				"chooses sender, reply-to, connection and app; email_provider_a is Postmark, email_provider_b Resend. Provider faults are " +
				"tried again; a failed terminal result notifies gateway.delivery.failed. With an Idempotency-Key a retry answers the first " +
				"result and sends nothing", OutputSchema: deliveryOut, InputSchema: sendEmailSchema,
		}, e.SendEmail),
		httpapi.Query(httpapi.Action{
			Name: "deliveries.list", Method: http.MethodGet, Path: "/api/deliveries", Permission: "usage:read", ReadOnly: true,
			Summary:   "Emails and instant messages sent, newest first, with their state (sent, delivered, bounced, failed, unknown)",
			ReadModel: gatewayview.Name, InputSchema: httpapi.Object(nil, map[string]string{"limit": limitSchema}),
			OutputSchema: open(Deliveries{}, httpapi.EnumOf("deliveries[].status", gateway.DeliveryStatuses...)),
		}, func(ctx context.Context, p principal.Principal, in ListAudit) (Deliveries, error) {
			ds, err := q.Deliveries(ctx, p.OrganizationID, defaultTo(in.Limit, 50))
			return Deliveries{Deliveries: ds}, err
		}),
		httpapi.Query(httpapi.Action{
			Name: "deliveries.get", Method: http.MethodGet, Path: "/api/deliveries/{deliveryId}", Permission: "usage:read", ReadOnly: true,
			Summary: "One delivery and its state", ReadModel: gatewayview.Name, OutputSchema: deliveryOut,
			InputSchema: httpapi.Object([]string{"deliveryId"}, map[string]string{"deliveryId": httpapi.NonEmptyID}),
		}, func(ctx context.Context, p principal.Principal, in DeliveryRef) (gateway.DeliveryState, error) {
			return q.Delivery(ctx, p.OrganizationID, in.DeliveryID)
		}),
	}}
}

// Deliveries answers deliveries.list.
type (
	Deliveries struct {
		Deliveries []gateway.DeliveryState `json:"deliveries"`
	}
	DeliveryRef struct {
		DeliveryID string `json:"deliveryId"`
	}
)
