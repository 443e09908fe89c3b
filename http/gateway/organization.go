package gateway

import (
	"net/http"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	"github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/domain/text"
	httpapi "github.com/platform/backend/http"
)

func organizationArea(d Deps) Area {
	return Area{Actions: []httpapi.Action{
		httpapi.Command(httpapi.Action{
			Name: "organization.provision", Method: http.MethodPost, Path: "/api/organizations/provision", Permission: "organizations:provision",
			AuthorizationMode: httpapi.AuthRuntime, AllowedServices: []string{gatewaycmd.IdentityService},
			Summary:      "The identity service tells the gateway of an organization (its service identity only); idempotent per organization",
			OutputSchema: open(gateway.OrganizationV1{}, httpapi.FormatOf("billing_email", "email")),
			InputSchema: httpapi.Object([]string{"organization_id", "name", "slug"}, map[string]string{
				"organization_id": httpapi.NonEmptyID, "name": httpapi.LineSchema(1, text.MaxTitle), "slug": httpapi.LineSchema(1, text.MaxID),
				"billing_email": httpapi.WithFormat(httpapi.StringSchema(3, text.MaxEmail, text.LinePattern, []string{"string", "null"}), "email")}),
		}, d.Commands.ProvisionOrganization),
	}}
}
