package status

import (
	"slices"
	"strings"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/text"
)

// Incident is the write model of one incident stream.
type Incident struct {
	id            string
	status        string
	revision      int
	severity      string
	title         string
	message       string
	componentHost *string
	componentName *string
	createdAt     time.Time
	updatedAt     time.Time
}

// LoadIncident rebuilds an incident from its history.
func LoadIncident(history []event.Recorded) (*Incident, error) {
	return incidentFold.Load(&Incident{}, history)
}

// Continue folds events after the history the model was loaded from
// (commands.Continuable): its decisions never change it.
func (i *Incident) Continue(more []event.Recorded) error {
	_, err := incidentFold.Load(i, more)
	return err
}

var incidentFold = event.Fold[*Incident]{
	event.SnapshotType: event.Apply(func(i *Incident, st IncidentState) {
		i.id, i.status, i.revision, i.severity, i.title, i.message = st.IncidentID, st.Status, st.Revision, st.Severity, st.Title, st.Message
		i.componentHost, i.componentName, i.createdAt, i.updatedAt = st.ComponentHost, st.ComponentName, st.CreatedAt, st.UpdatedAt
	}),
	IncidentCreated: event.Apply(func(i *Incident, p IncidentCreatedV1) {
		i.id, i.status, i.revision, i.severity, i.title, i.message = p.IncidentID, p.Status, p.Revision, p.Severity, p.Title, p.Message
		i.componentHost, i.componentName, i.createdAt, i.updatedAt = p.ComponentHost, p.ComponentName, p.OccurredAt, p.OccurredAt
	}),
	IncidentUpdated:  event.Apply((*Incident).revised),
	IncidentResolved: event.Apply((*Incident).revised),
}

func (i *Incident) revised(p IncidentUpdatedV1) {
	i.status, i.revision, i.severity, i.title, i.message, i.updatedAt = p.Status, p.Revision, p.Severity, p.Title, p.Message, p.OccurredAt
}

func (i *Incident) Exists() bool     { return i.revision > 0 }
func (i *Incident) Status() string   { return i.status }
func (i *Incident) Revision() int    { return i.revision }
func (i *Incident) Severity() string { return i.severity }

// IncidentState is the externally visible state of an incident.
type IncidentState struct {
	IncidentID    string    `json:"incident_id"`
	Title         string    `json:"title"`
	Message       string    `json:"message"`
	Severity      string    `json:"severity"`
	Status        string    `json:"status"`
	Revision      int       `json:"revision"`
	ComponentHost *string   `json:"component_host"`
	ComponentName *string   `json:"component_name"`
	CreatedAt     time.Time `json:"created_at"`
	UpdatedAt     time.Time `json:"updated_at"`
}

func (i *Incident) State() IncidentState {
	return IncidentState{IncidentID: i.id, Title: i.title, Message: i.message, Severity: i.severity, Status: i.status,
		Revision: i.revision, ComponentHost: i.componentHost, ComponentName: i.componentName, CreatedAt: i.createdAt, UpdatedAt: i.updatedAt}
}

// NewIncident is the input of incidents.create.
type NewIncident struct {
	ID            string
	Title         string
	Message       string
	Severity      string
	ComponentHost *string
	ComponentName *string
}

// titleAndMessage checks the two texts every incident and maintenance
// window shows: a non-empty one-line title and a non-empty multi-line
// message, within the bounds of domain/text (the HTTP schema checks them
// first; the domain does not rely on it).
func titleAndMessage(title, message string) []errs.Field {
	var fields []errs.Field
	if strings.TrimSpace(title) == "" {
		fields = append(fields, errs.Field{Pointer: "/title", Detail: "must not be empty"})
	} else {
		fields = text.Line(fields, "/title", title, text.MaxTitle)
	}
	if strings.TrimSpace(message) == "" {
		fields = append(fields, errs.Field{Pointer: "/message", Detail: "must not be empty"})
	} else {
		fields = text.MultiLine(fields, "/message", message, text.MaxMessage)
	}
	return fields
}

// optionalLine checks an optional one-line member.
func optionalLine(fields []errs.Field, pointer string, s *string, max int) []errs.Field {
	if s == nil {
		return fields
	}
	return text.Line(fields, pointer, *s, max)
}

func (n NewIncident) validate() error {
	fields := titleAndMessage(n.Title, n.Message)
	fields = optionalLine(fields, "/componentHost", n.ComponentHost, text.MaxHost)
	fields = optionalLine(fields, "/componentName", n.ComponentName, text.MaxTitle)
	if !slices.Contains(Severities, n.Severity) {
		fields = append(fields, errs.Field{Pointer: "/severity", Detail: "must be one of minor, major, critical"})
	}
	if len(fields) > 0 {
		return errs.Invalid(fields...)
	}
	return nil
}

// Create opens an incident: investigating, revision 1.
func (i *Incident) Create(n NewIncident, now time.Time) ([]event.Change, error) {
	if err := n.validate(); err != nil {
		return nil, err
	}
	if i.Exists() {
		return nil, errs.Conflict("incident_exists", "the incident already exists")
	}
	return []event.Change{event.New(IncidentCreated, IncidentCreatedV1{
		IncidentID: n.ID, Title: n.Title, Message: n.Message, Severity: n.Severity,
		ComponentHost: n.ComponentHost, ComponentName: n.ComponentName,
		Status: Investigating, Revision: 1, OccurredAt: now,
	})}, nil
}

// IncidentUpdate is the input of incidents.update. Empty members keep their value.
type IncidentUpdate struct {
	Status   string // investigating, identified, monitoring or resolved
	Message  string
	Severity string
	Title    string
}

// Update publishes a new revision of an open incident; status resolved
// resolves it. Every update is a revision, so revisions run 2, 3, ...
func (i *Incident) Update(u IncidentUpdate, now time.Time) ([]event.Change, error) {
	if !i.Exists() {
		return nil, errs.NotFound("incident")
	}
	if i.status == Resolved {
		return nil, errs.Conflict("incident_resolved", "a resolved incident cannot be updated")
	}
	var fields []errs.Field
	if strings.TrimSpace(u.Message) == "" {
		fields = append(fields, errs.Field{Pointer: "/message", Detail: "must not be empty"})
	} else {
		fields = text.MultiLine(fields, "/message", u.Message, text.MaxMessage)
	}
	if u.Title != "" { // empty keeps the current title
		fields = text.Line(fields, "/title", u.Title, text.MaxTitle)
	}
	status := u.Status
	if status == "" {
		status = i.status
	}
	if !slices.Contains([]string{Investigating, Identified, Monitoring, Resolved}, status) {
		fields = append(fields, errs.Field{Pointer: "/status", Detail: "must be one of investigating, identified, monitoring, resolved"})
	}
	severity := u.Severity
	if severity == "" {
		severity = i.severity
	}
	if !slices.Contains(Severities, severity) {
		fields = append(fields, errs.Field{Pointer: "/severity", Detail: "must be one of minor, major, critical"})
	}
	if len(fields) > 0 {
		return nil, errs.Invalid(fields...)
	}
	title := u.Title
	if title == "" {
		title = i.title
	}
	typ := IncidentUpdated
	if status == Resolved {
		typ = IncidentResolved
	}
	return []event.Change{event.New(typ, IncidentUpdatedV1{
		IncidentID: i.id, Status: status, Message: u.Message, Severity: severity, Title: title,
		Revision: i.revision + 1, OccurredAt: now, ComponentHost: i.componentHost, ComponentName: i.componentName,
	})}, nil
}
