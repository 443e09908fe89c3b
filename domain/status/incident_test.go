package status_test

import (
	"cmp"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/event/eventtest"
	"github.com/platform/backend/domain/status"
)

const incID = "inc_01"

// incCreated is the stored status.incident.created of incident incID.
func incCreated(title, severity string) event.Change {
	return event.New(status.IncidentCreated, status.IncidentCreatedV1{
		IncidentID: incID, Title: title, Message: "We are looking into it.", Severity: severity,
		Status: status.Investigating, Revision: 1, OccurredAt: t0.Add(-time.Hour),
	})
}

// incUpdated is a stored status.incident.updated (or resolved when st is resolved).
func incUpdated(st string, revision int, title, severity string) event.Change {
	typ := status.IncidentUpdated
	if st == status.Resolved {
		typ = status.IncidentResolved
	}
	return event.New(typ, status.IncidentUpdatedV1{
		IncidentID: incID, Status: st, Message: "progress", Severity: severity, Title: title,
		Revision: revision, OccurredAt: t0.Add(-time.Duration(60-revision) * time.Minute),
	})
}

func wantUpdated(typ, st string, revision int, message, title, severity string) event.Change {
	return event.New(typ, status.IncidentUpdatedV1{
		IncidentID: incID, Status: st, Message: message, Severity: severity, Title: title,
		Revision: revision, OccurredAt: t0,
	})
}

func TestIncidentCreate(t *testing.T) {
	valid := status.NewIncident{
		ID: incID, Title: "API errors", Message: "We are investigating elevated errors.", Severity: "major",
		ComponentHost: ptr("api.platform.local"), ComponentName: ptr("API"),
	}
	with := func(f func(*status.NewIncident)) status.NewIncident {
		n := valid
		f(&n)
		return n
	}
	tests := []struct {
		name  string
		given []event.Recorded
		when  status.NewIncident
		then  eventtest.Then
	}{
		{
			name: "new incident is investigating at revision 1",
			when: valid,
			then: eventtest.Events(event.New("status.incident.created", status.IncidentCreatedV1{
				IncidentID: incID, Title: "API errors", Message: "We are investigating elevated errors.", Severity: "major",
				ComponentHost: ptr("api.platform.local"), ComponentName: ptr("API"),
				Status: "investigating", Revision: 1, OccurredAt: t0,
			})),
		},
		{
			name: "component host and name are optional",
			when: with(func(n *status.NewIncident) { n.ComponentHost, n.ComponentName, n.Severity = nil, nil, "minor" }),
			then: eventtest.Events(event.New("status.incident.created", status.IncidentCreatedV1{
				IncidentID: incID, Title: "API errors", Message: "We are investigating elevated errors.", Severity: "minor",
				Status: "investigating", Revision: 1, OccurredAt: t0,
			})),
		},
		{
			name: "critical severity is accepted",
			when: with(func(n *status.NewIncident) { n.Severity = "critical" }),
			then: eventtest.Events(event.New("status.incident.created", status.IncidentCreatedV1{
				IncidentID: incID, Title: "API errors", Message: "We are investigating elevated errors.", Severity: "critical",
				ComponentHost: ptr("api.platform.local"), ComponentName: ptr("API"),
				Status: "investigating", Revision: 1, OccurredAt: t0,
			})),
		},
		{name: "empty title", when: with(func(n *status.NewIncident) { n.Title = "" }), then: eventtest.Invalid("/title")},
		{name: "blank title", when: with(func(n *status.NewIncident) { n.Title = "  \t" }), then: eventtest.Invalid("/title")},
		{name: "empty message", when: with(func(n *status.NewIncident) { n.Message = "" }), then: eventtest.Invalid("/message")},
		{name: "blank message", when: with(func(n *status.NewIncident) { n.Message = " \n" }), then: eventtest.Invalid("/message")},
		{name: "unknown severity", when: with(func(n *status.NewIncident) { n.Severity = "catastrophic" }), then: eventtest.Invalid("/severity")},
		{name: "severity is case sensitive", when: with(func(n *status.NewIncident) { n.Severity = "Major" }), then: eventtest.Invalid("/severity")},
		{name: "missing severity", when: with(func(n *status.NewIncident) { n.Severity = "" }), then: eventtest.Invalid("/severity")},
		{
			name: "every invalid member is reported",
			when: status.NewIncident{ID: incID},
			then: eventtest.Invalid("/title", "/message", "/severity"),
		},
		// Bounds (domain/text): the HTTP schema refuses these first; the domain
		// does not rely on it.
		{name: "title too long", when: with(func(n *status.NewIncident) { n.Title = strings.Repeat("t", 201) }), then: eventtest.Invalid("/title")},
		{name: "title on two lines", when: with(func(n *status.NewIncident) { n.Title = "API\nerrors" }), then: eventtest.Invalid("/title")},
		{name: "title with NUL", when: with(func(n *status.NewIncident) { n.Title = "API\x00errors" }), then: eventtest.Invalid("/title")},
		{name: "message too long", when: with(func(n *status.NewIncident) { n.Message = strings.Repeat("m", 10001) }), then: eventtest.Invalid("/message")},
		{name: "message with an escape sequence", when: with(func(n *status.NewIncident) { n.Message = "ok\x1b[31m" }), then: eventtest.Invalid("/message")},
		{name: "component host too long", when: with(func(n *status.NewIncident) { n.ComponentHost = ptr(strings.Repeat("h", 254)) }), then: eventtest.Invalid("/componentHost")},
		{name: "component name with a control character", when: with(func(n *status.NewIncident) { n.ComponentName = ptr("API\r") }), then: eventtest.Invalid("/componentName")},
		{
			name: "longest title and multi-line message are accepted",
			when: with(func(n *status.NewIncident) {
				n.Title, n.Message = strings.Repeat("é", 200), "line one\r\n\tline two"+strings.Repeat("m", 10000-19)
			}),
			then: eventtest.Events(event.New("status.incident.created", status.IncidentCreatedV1{
				IncidentID: incID, Title: strings.Repeat("é", 200), Message: "line one\r\n\tline two" + strings.Repeat("m", 10000-19),
				Severity: "major", ComponentHost: ptr("api.platform.local"), ComponentName: ptr("API"),
				Status: "investigating", Revision: 1, OccurredAt: t0,
			})),
		},
		{
			name:  "create twice",
			given: eventtest.History(t, incCreated("API errors", "major")),
			when:  valid,
			then:  eventtest.Conflict("incident_exists"),
		},
		{
			name:  "create over an updated incident",
			given: eventtest.History(t, incCreated("API errors", "major"), incUpdated("identified", 2, "API errors", "major")),
			when:  valid,
			then:  eventtest.Conflict("incident_exists"),
		},
		{
			name:  "create over a resolved incident",
			given: eventtest.History(t, incCreated("API errors", "major"), incUpdated("resolved", 2, "API errors", "major")),
			when:  valid,
			then:  eventtest.Conflict("incident_exists"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eventtest.GivenHistory(t, status.LoadIncident, tt.given).
				When(func(inc *status.Incident) ([]event.Change, error) { return inc.Create(tt.when, t0) }).
				Then(tt.then)
		})
	}
}

func TestIncidentUpdate(t *testing.T) {
	const title, sev = "API errors", "major"
	// fromStatus is a history whose incident is open in the given status,
	// with its revision: investigating straight after creation (1), the
	// others after one update (2).
	fromStatus := map[string]struct {
		history  []event.Recorded
		revision int
	}{
		"investigating": {eventtest.History(t, incCreated(title, sev)), 1},
		"identified":    {eventtest.History(t, incCreated(title, sev), incUpdated("identified", 2, title, sev)), 2},
		"monitoring":    {eventtest.History(t, incCreated(title, sev), incUpdated("monitoring", 2, title, sev)), 2},
	}
	open := []string{"investigating", "identified", "monitoring"}

	type tc struct {
		name  string
		given []event.Recorded
		when  status.IncidentUpdate
		then  eventtest.Then
	}
	var tests []tc
	for _, from := range open {
		h := fromStatus[from]
		for _, to := range open {
			tests = append(tests, tc{
				name:  fmt.Sprintf("%s to %s", from, to),
				given: h.history,
				when:  status.IncidentUpdate{Status: to, Message: "new findings"},
				then:  eventtest.Events(wantUpdated("status.incident.updated", to, h.revision+1, "new findings", title, sev)),
			})
		}
		tests = append(tests, tc{
			name:  fmt.Sprintf("%s to resolved", from),
			given: h.history,
			when:  status.IncidentUpdate{Status: "resolved", Message: "fixed"},
			then:  eventtest.Events(wantUpdated("status.incident.resolved", "resolved", h.revision+1, "fixed", title, sev)),
		})
	}
	resolved := eventtest.History(t, incCreated(title, sev), incUpdated("identified", 2, title, sev), incUpdated("resolved", 3, title, sev))
	for _, to := range append(open, "resolved", "") {
		tests = append(tests, tc{
			name:  fmt.Sprintf("resolved to %q", to),
			given: resolved,
			when:  status.IncidentUpdate{Status: to, Message: "again"},
			then:  eventtest.Conflict("incident_resolved"),
		})
	}
	tests = append(tests, []tc{
		{
			name:  "resolved straight after creation is revision 2",
			given: eventtest.History(t, incCreated(title, sev)),
			when:  status.IncidentUpdate{Status: "resolved", Message: "false alarm"},
			then:  eventtest.Events(wantUpdated("status.incident.resolved", "resolved", 2, "false alarm", title, sev)),
		},
		{
			name:  "revision follows the last one after several updates",
			given: eventtest.History(t, incCreated(title, sev), incUpdated("identified", 2, title, sev), incUpdated("monitoring", 3, title, sev)),
			when:  status.IncidentUpdate{Status: "investigating", Message: "it is back"},
			then:  eventtest.Events(wantUpdated("status.incident.updated", "investigating", 4, "it is back", title, sev)),
		},
		{
			name:  "omitted status keeps the current one",
			given: fromStatus["identified"].history,
			when:  status.IncidentUpdate{Message: "still on it"},
			then:  eventtest.Events(wantUpdated("status.incident.updated", "identified", 3, "still on it", title, sev)),
		},
		{
			name:  "severity and title are carried over when omitted",
			given: eventtest.History(t, incCreated("Login failures", "critical")),
			when:  status.IncidentUpdate{Status: "identified", Message: "cause found"},
			then:  eventtest.Events(wantUpdated("status.incident.updated", "identified", 2, "cause found", "Login failures", "critical")),
		},
		{
			name:  "carried over values are the latest ones",
			given: eventtest.History(t, incCreated("Login failures", "minor"), incUpdated("identified", 2, "Login and signup failures", "critical")),
			when:  status.IncidentUpdate{Status: "monitoring", Message: "fix deployed"},
			then:  eventtest.Events(wantUpdated("status.incident.updated", "monitoring", 3, "fix deployed", "Login and signup failures", "critical")),
		},
		{
			name:  "resolution carries severity and title over",
			given: eventtest.History(t, incCreated("Login failures", "minor")),
			when:  status.IncidentUpdate{Status: "resolved", Message: "done"},
			then:  eventtest.Events(wantUpdated("status.incident.resolved", "resolved", 2, "done", "Login failures", "minor")),
		},
		{
			name:  "given severity and title replace the current ones",
			given: eventtest.History(t, incCreated(title, "minor")),
			when:  status.IncidentUpdate{Status: "identified", Message: "worse", Severity: "critical", Title: "API outage"},
			then:  eventtest.Events(wantUpdated("status.incident.updated", "identified", 2, "worse", "API outage", "critical")),
		},
		{
			name: "missing incident",
			when: status.IncidentUpdate{Status: "identified", Message: "m"},
			then: eventtest.NotFound(),
		},
		{
			name: "missing incident cannot be resolved",
			when: status.IncidentUpdate{Status: "resolved", Message: "m"},
			then: eventtest.NotFound(),
		},
		{
			name:  "empty message",
			given: eventtest.History(t, incCreated(title, sev)),
			when:  status.IncidentUpdate{Status: "identified"},
			then:  eventtest.Invalid("/message"),
		},
		{
			name:  "blank message",
			given: eventtest.History(t, incCreated(title, sev)),
			when:  status.IncidentUpdate{Status: "resolved", Message: "   "},
			then:  eventtest.Invalid("/message"),
		},
		{
			name:  "unknown status",
			given: eventtest.History(t, incCreated(title, sev)),
			when:  status.IncidentUpdate{Status: "closed", Message: "m"},
			then:  eventtest.Invalid("/status"),
		},
		{
			name:  "maintenance status is not an incident status",
			given: eventtest.History(t, incCreated(title, sev)),
			when:  status.IncidentUpdate{Status: "in_progress", Message: "m"},
			then:  eventtest.Invalid("/status"),
		},
		{
			name:  "unknown severity",
			given: eventtest.History(t, incCreated(title, sev)),
			when:  status.IncidentUpdate{Status: "identified", Message: "m", Severity: "huge"},
			then:  eventtest.Invalid("/severity"),
		},
		{
			name:  "every invalid member is reported",
			given: eventtest.History(t, incCreated(title, sev)),
			when:  status.IncidentUpdate{Status: "closed", Severity: "huge"},
			then:  eventtest.Invalid("/message", "/status", "/severity"),
		},
		{
			name:  "message too long",
			given: eventtest.History(t, incCreated(title, sev)),
			when:  status.IncidentUpdate{Status: "identified", Message: strings.Repeat("m", 10001)},
			then:  eventtest.Invalid("/message"),
		},
		{
			name:  "title too long",
			given: eventtest.History(t, incCreated(title, sev)),
			when:  status.IncidentUpdate{Status: "identified", Message: "m", Title: strings.Repeat("t", 201)},
			then:  eventtest.Invalid("/title"),
		},
		{
			name:  "title with a line break",
			given: eventtest.History(t, incCreated(title, sev)),
			when:  status.IncidentUpdate{Status: "identified", Message: "m", Title: "two\nlines"},
			then:  eventtest.Invalid("/title"),
		},
	}...)

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eventtest.GivenHistory(t, status.LoadIncident, tt.given).
				When(func(inc *status.Incident) ([]event.Change, error) { return inc.Update(tt.when, t0) }).
				Then(tt.then)
		})
	}
}

func TestLoadIncident(t *testing.T) {
	tests := []struct {
		name     string
		given    []event.Recorded
		exists   bool
		status   string
		revision int
		severity string
	}{
		{name: "no history", given: nil},
		{name: "created", given: eventtest.History(t, incCreated("t", "minor")), exists: true, status: "investigating", revision: 1, severity: "minor"},
		{
			name:   "updated",
			given:  eventtest.History(t, incCreated("t", "minor"), incUpdated("monitoring", 2, "t", "critical")),
			exists: true, status: "monitoring", revision: 2, severity: "critical",
		},
		{
			name:   "resolved",
			given:  eventtest.History(t, incCreated("t", "minor"), incUpdated("identified", 2, "t", "major"), incUpdated("resolved", 3, "t", "major")),
			exists: true, status: "resolved", revision: 3, severity: "major",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inc, err := status.LoadIncident(tt.given)
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			if inc.Exists() != tt.exists || inc.Status() != tt.status || inc.Revision() != tt.revision || inc.Severity() != tt.severity {
				t.Fatalf("want exists=%v status=%q revision=%d severity=%q, got exists=%v status=%q revision=%d severity=%q",
					tt.exists, tt.status, tt.revision, tt.severity,
					inc.Exists(), inc.Status(), inc.Revision(), inc.Severity())
			}
		})
	}
}

// TestIncidentRevisionsHaveNoGap is a property over a long life: each
// decision reads back everything decided before it, and 50 successive
// updates give revisions 2..51, then resolution 52, then nothing more.
func TestIncidentRevisionsHaveNoGap(t *testing.T) {
	created := eventtest.Given(t, status.LoadIncident).
		When(func(i *status.Incident) ([]event.Change, error) {
			return i.Create(status.NewIncident{ID: incID, Title: "T", Message: "M", Severity: "minor"}, t0)
		})
	history := created.History()

	open := []string{"investigating", "identified", "monitoring", ""}
	severities := []string{"", "major", "", "critical", "minor"}
	current, severity := status.Investigating, "minor" // what an empty member keeps
	for i := range 50 {
		u := status.IncidentUpdate{Status: open[i%len(open)], Message: fmt.Sprintf("update %d", i+1), Severity: severities[i%len(severities)]}
		current, severity = cmp.Or(u.Status, current), cmp.Or(u.Severity, severity)
		at := t0.Add(time.Duration(i) * time.Minute)
		history = eventtest.GivenHistory(t, status.LoadIncident, history).
			When(func(inc *status.Incident) ([]event.Change, error) { return inc.Update(u, at) }).
			Then(eventtest.Events(event.New(status.IncidentUpdated, status.IncidentUpdatedV1{IncidentID: incID, Title: "T",
				Status: current, Message: u.Message, Severity: severity, Revision: i + 2, OccurredAt: at}))).
			History()
	}

	resolved := eventtest.GivenHistory(t, status.LoadIncident, history).
		When(func(inc *status.Incident) ([]event.Change, error) {
			return inc.Update(status.IncidentUpdate{Status: "resolved", Message: "done"}, t0)
		}).
		Then(eventtest.Events(event.New(status.IncidentResolved, status.IncidentUpdatedV1{IncidentID: incID, Title: "T",
			Status: status.Resolved, Message: "done", Severity: severity, Revision: 52, OccurredAt: t0})))

	eventtest.GivenHistory(t, status.LoadIncident, resolved.History()).
		When(func(inc *status.Incident) ([]event.Change, error) {
			return inc.Update(status.IncidentUpdate{Status: "identified", Message: "again"}, t0)
		}).
		Then(eventtest.Conflict("incident_resolved"))
}

func TestIncidentState(t *testing.T) {
	withComponent := event.New(status.IncidentCreated, status.IncidentCreatedV1{
		IncidentID: incID, Title: "API errors", Message: "Looking into it.", Severity: "major",
		ComponentHost: ptr("api.platform.local"), ComponentName: ptr("API"),
		Status: status.Investigating, Revision: 1, OccurredAt: t0.Add(-time.Hour),
	})
	tests := []struct {
		name  string
		given []event.Recorded
		then  status.IncidentState
	}{
		{name: "no history", then: status.IncidentState{}},
		{
			name:  "created",
			given: eventtest.History(t, withComponent),
			then: status.IncidentState{
				IncidentID: incID, Title: "API errors", Message: "Looking into it.", Severity: "major", Status: "investigating", Revision: 1,
				ComponentHost: ptr("api.platform.local"), ComponentName: ptr("API"), CreatedAt: t0.Add(-time.Hour), UpdatedAt: t0.Add(-time.Hour),
			},
		},
		{
			name:  "updates replace status, message, severity, title and update time but keep the rest",
			given: eventtest.History(t, withComponent, incUpdated("identified", 2, "API outage", "critical"), incUpdated("monitoring", 3, "API outage", "critical")),
			then: status.IncidentState{
				IncidentID: incID, Title: "API outage", Message: "progress", Severity: "critical", Status: "monitoring", Revision: 3,
				ComponentHost: ptr("api.platform.local"), ComponentName: ptr("API"), CreatedAt: t0.Add(-time.Hour), UpdatedAt: t0.Add(-57 * time.Minute),
			},
		},
		{
			name:  "resolved",
			given: eventtest.History(t, incCreated("T", "minor"), incUpdated("resolved", 2, "T", "minor")),
			then: status.IncidentState{
				IncidentID: incID, Title: "T", Message: "progress", Severity: "minor", Status: "resolved", Revision: 2,
				CreatedAt: t0.Add(-time.Hour), UpdatedAt: t0.Add(-58 * time.Minute),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inc, err := status.LoadIncident(tt.given)
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			if got := inc.State(); !reflect.DeepEqual(got, tt.then) {
				t.Fatalf("state:\nwant %+v\ngot  %+v", tt.then, got)
			}
		})
	}
}
