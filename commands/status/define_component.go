package status

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/status"
)

// DefineComponent is components.upsert: register a monitored surface or change it.
type DefineComponent struct {
	ComponentID    string  `json:"componentId"`
	ComponentHost  string  `json:"componentHost"`
	ComponentName  string  `json:"componentName"`
	ComponentGroup *string `json:"componentGroup"`
	CheckURL       string  `json:"checkUrl"`
	// AutoIncident opens an incident when the component degrades and
	// resolves it when it recovers (AutoIncidents, the reactor).
	AutoIncident bool `json:"autoIncident"`
}

// ComponentStreamID keeps client-chosen component ids apart per organization.
func ComponentStreamID(organizationID, componentID string) string {
	return "component:" + organizationID + ":" + componentID
}

// DefineComponent refuses a checkUrl that is not http(s), carries
// credentials or names an internal address literally (422); names are
// judged when the check dials them, the guard that counts. Registering a
// component beyond the organization's MaxComponents is 409
// component_limit_reached.
func (h *Handlers) DefineComponent(ctx context.Context, m commands.Meta, in DefineComponent) (commands.Result[domain.ComponentState], error) {
	if reason, detail := h.urls.CheckURL(in.CheckURL); reason != "" {
		return commands.Result[domain.ComponentState]{}, errs.InvalidField("/checkUrl", detail)
	}
	streamID := ComponentStreamID(m.OrganizationID, in.ComponentID)
	return withinComponentCap(ctx, h, m.OrganizationID, streamID, func() (commands.Result[domain.ComponentState], error) {
		return run(ctx, h, m, domain.StreamComponent, streamID,
			domain.LoadComponent, func(c *domain.Component) ([]event.Change, error) {
				return c.Define(domain.ComponentDefinedV1{ComponentID: in.ComponentID, Host: in.ComponentHost,
					Name: in.ComponentName, Group: in.ComponentGroup, CheckURL: in.CheckURL, AutoIncident: in.AutoIncident})
			}, (*domain.Component).State)
	})
}
