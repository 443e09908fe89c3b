package gateway

import (
	gatewaycmd "github.com/platform/backend/commands/gateway"
	gatewayview "github.com/platform/backend/projections/gateway"
)

// EdgeArea is the gateway's edge as one area of the service: provider
// connections and credentials, email profiles and sends, instant messages,
// payments, deliveries, and the providers' inbound webhooks.
func EdgeArea(e *gatewaycmd.Edge, q *gatewayview.Queries) Area {
	areas := []Area{connectionsArea(e, q), emailArea(e, q), callsArea(e, q)}
	out := Area{Actions: webhookActions(e)}
	for _, a := range areas {
		out.Actions = append(out.Actions, a.Actions...)
	}
	return out
}
