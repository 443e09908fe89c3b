package status

import (
	"strings"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/text"
)

// Component is the write model of one monitored surface.
type Component struct {
	def              ComponentDefinedV1
	status           string
	consecutiveFails int
}

func LoadComponent(history []event.Recorded) (*Component, error) {
	return componentFold.Load(&Component{}, history)
}

// Continue folds events after the history the model was loaded from
// (commands.Continuable): its decisions never change it.
func (c *Component) Continue(more []event.Recorded) error {
	_, err := componentFold.Load(c, more)
	return err
}

var componentFold = event.Fold[*Component]{
	event.SnapshotType: event.Apply(func(c *Component, st ComponentState) {
		c.def, c.status, c.consecutiveFails = st.ComponentDefinedV1, st.Status, st.ConsecutiveFails
	}),
	ComponentRegistered:     event.Apply((*Component).defined),
	ComponentChanged:        event.Apply((*Component).defined),
	ComponentCheckFailed:    componentChecked(""), // the status stays
	ComponentCheckSucceeded: componentChecked(""),
	ComponentDegraded:       componentChecked(Degraded),
	ComponentRecovered:      componentChecked(Operational),
}

func (c *Component) defined(d ComponentDefinedV1) {
	c.def = d
	if c.status == "" {
		c.status = Operational
	}
}

// componentChecked records a check's outcome; status is the component's
// status after it ("" leaves it as it is).
func componentChecked(status string) event.Step[*Component] {
	return event.Apply(func(c *Component, p ComponentCheckedV1) {
		c.consecutiveFails = p.ConsecutiveFails
		if status != "" {
			c.status = status
		}
	})
}

func (c *Component) Exists() bool                   { return c.status != "" }
func (c *Component) Status() string                 { return c.status }
func (c *Component) ConsecutiveFails() int          { return c.consecutiveFails }
func (c *Component) Definition() ComponentDefinedV1 { return c.def }

// ComponentState is the externally visible state of a component.
type ComponentState struct {
	ComponentDefinedV1
	Status           string `json:"status"`
	ConsecutiveFails int    `json:"consecutive_fails"`
}

func (c *Component) State() ComponentState {
	return ComponentState{ComponentDefinedV1: c.def, Status: c.status, ConsecutiveFails: c.consecutiveFails}
}

// Define registers the component or changes its definition.
func (c *Component) Define(d ComponentDefinedV1) ([]event.Change, error) {
	// Pointers name the members of the HTTP input (componentHost, ...);
	// bounds are domain/text's, which the HTTP schema checks first.
	var fields []errs.Field
	if strings.TrimSpace(d.Host) == "" {
		fields = append(fields, errs.Field{Pointer: "/componentHost", Detail: "must not be empty"})
	} else {
		fields = text.Line(fields, "/componentHost", d.Host, text.MaxHost)
	}
	if strings.TrimSpace(d.Name) == "" {
		fields = append(fields, errs.Field{Pointer: "/componentName", Detail: "must not be empty"})
	} else {
		fields = text.Line(fields, "/componentName", d.Name, text.MaxTitle)
	}
	fields = optionalLine(fields, "/componentGroup", d.Group, text.MaxTitle)
	fields = text.URL(fields, "/checkUrl", d.CheckURL, text.URLRules{})
	if len(fields) > 0 {
		return nil, errs.Invalid(fields...)
	}
	if !c.Exists() {
		return []event.Change{event.New(ComponentRegistered, d)}, nil
	}
	if c.def.Host == d.Host && c.def.Name == d.Name && c.def.CheckURL == d.CheckURL && equalPtr(c.def.Group, d.Group) &&
		c.def.AutoIncident == d.AutoIncident {
		return nil, nil
	}
	return []event.Change{event.New(ComponentChanged, d)}, nil
}

// RecordCheck applies one check result. A check succeeds on HTTP 200..399;
// status 0 means no response. Failures count up; the DegradedAfter-th
// consecutive failure degrades the component; a success while degraded
// recovers it. A healthy check of a healthy component records nothing.
func (c *Component) RecordCheck(httpStatus int, checkErr string, now time.Time) ([]event.Change, error) {
	if !c.Exists() {
		return nil, errs.NotFound("component")
	}
	ok := checkErr == "" && httpStatus >= 200 && httpStatus <= 399
	p := ComponentCheckedV1{ComponentID: c.def.ComponentID, Host: c.def.Host, Name: c.def.Name, Group: c.def.Group,
		HTTPStatus: httpStatus, Error: checkErr, CheckedAt: now, AutoIncident: c.def.AutoIncident}
	if ok {
		switch {
		case c.status == Degraded:
			return []event.Change{event.New(ComponentRecovered, p)}, nil
		case c.consecutiveFails > 0:
			return []event.Change{event.New(ComponentCheckSucceeded, p)}, nil
		}
		return nil, nil
	}
	p.ConsecutiveFails = c.consecutiveFails + 1
	out := []event.Change{event.New(ComponentCheckFailed, p)}
	if c.status == Operational && p.ConsecutiveFails >= DegradedAfter {
		out = append(out, event.New(ComponentDegraded, p))
	}
	return out, nil
}

func equalPtr(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
