package status_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/status"
)

const incID = "inc_01"

// incCreated is the stored status.incident.created of incident incID.
func incCreated(title, severity string) event.Recorded {
	return rec(status.IncidentCreated, status.IncidentCreatedV1{
		IncidentID: incID, Title: title, Message: "We are looking into it.", Severity: severity,
		Status: status.Investigating, Revision: 1, OccurredAt: t0.Add(-time.Hour),
	})
}

// incUpdated is a stored status.incident.updated (or resolved when st is resolved).
func incUpdated(st string, revision int, title, severity string) event.Recorded {
	typ := status.IncidentUpdated
	if st == status.Resolved {
		typ = status.IncidentResolved
	}
	return rec(typ, status.IncidentUpdatedV1{
		IncidentID: incID, Status: st, Message: "progress", Severity: severity, Title: title,
		Revision: revision, OccurredAt: t0.Add(-time.Duration(60-revision) * time.Minute),
	})
}

func wantUpdated(typ, st string, revision int, message, title, severity string) event.Change {
	return v1(typ, status.IncidentUpdatedV1{
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
		then  then
	}{
		{
			name: "new incident is investigating at revision 1",
			when: valid,
			then: ok(v1("status.incident.created", status.IncidentCreatedV1{
				IncidentID: incID, Title: "API errors", Message: "We are investigating elevated errors.", Severity: "major",
				ComponentHost: ptr("api.platform.local"), ComponentName: ptr("API"),
				Status: "investigating", Revision: 1, OccurredAt: t0,
			})),
		},
		{
			name: "component host and name are optional",
			when: with(func(n *status.NewIncident) { n.ComponentHost, n.ComponentName, n.Severity = nil, nil, "minor" }),
			then: ok(v1("status.incident.created", status.IncidentCreatedV1{
				IncidentID: incID, Title: "API errors", Message: "We are investigating elevated errors.", Severity: "minor",
				Status: "investigating", Revision: 1, OccurredAt: t0,
			})),
		},
		{
			name: "critical severity is accepted",
			when: with(func(n *status.NewIncident) { n.Severity = "critical" }),
			then: ok(v1("status.incident.created", status.IncidentCreatedV1{
				IncidentID: incID, Title: "API errors", Message: "We are investigating elevated errors.", Severity: "critical",
				ComponentHost: ptr("api.platform.local"), ComponentName: ptr("API"),
				Status: "investigating", Revision: 1, OccurredAt: t0,
			})),
		},
		{name: "empty title", when: with(func(n *status.NewIncident) { n.Title = "" }), then: invalid("/title")},
		{name: "blank title", when: with(func(n *status.NewIncident) { n.Title = "  \t" }), then: invalid("/title")},
		{name: "empty message", when: with(func(n *status.NewIncident) { n.Message = "" }), then: invalid("/message")},
		{name: "blank message", when: with(func(n *status.NewIncident) { n.Message = " \n" }), then: invalid("/message")},
		{name: "unknown severity", when: with(func(n *status.NewIncident) { n.Severity = "catastrophic" }), then: invalid("/severity")},
		{name: "severity is case sensitive", when: with(func(n *status.NewIncident) { n.Severity = "Major" }), then: invalid("/severity")},
		{name: "missing severity", when: with(func(n *status.NewIncident) { n.Severity = "" }), then: invalid("/severity")},
		{
			name: "every invalid member is reported",
			when: status.NewIncident{ID: incID},
			then: invalid("/title", "/message", "/severity"),
		},
		// Bounds (domain/text): the HTTP schema refuses these first; the domain
		// does not rely on it.
		{name: "title too long", when: with(func(n *status.NewIncident) { n.Title = strings.Repeat("t", 201) }), then: invalid("/title")},
		{name: "title on two lines", when: with(func(n *status.NewIncident) { n.Title = "API\nerrors" }), then: invalid("/title")},
		{name: "title with NUL", when: with(func(n *status.NewIncident) { n.Title = "API\x00errors" }), then: invalid("/title")},
		{name: "message too long", when: with(func(n *status.NewIncident) { n.Message = strings.Repeat("m", 10001) }), then: invalid("/message")},
		{name: "message with an escape sequence", when: with(func(n *status.NewIncident) { n.Message = "ok\x1b[31m" }), then: invalid("/message")},
		{name: "component host too long", when: with(func(n *status.NewIncident) { n.ComponentHost = ptr(strings.Repeat("h", 254)) }), then: invalid("/componentHost")},
		{name: "component name with a control character", when: with(func(n *status.NewIncident) { n.ComponentName = ptr("API\r") }), then: invalid("/componentName")},
		{
			name: "longest title and multi-line message are accepted",
			when: with(func(n *status.NewIncident) {
				n.Title, n.Message = strings.Repeat("é", 200), "line one\r\n\tline two"+strings.Repeat("m", 10000-19)
			}),
			then: ok(v1("status.incident.created", status.IncidentCreatedV1{
				IncidentID: incID, Title: strings.Repeat("é", 200), Message: "line one\r\n\tline two" + strings.Repeat("m", 10000-19),
				Severity: "major", ComponentHost: ptr("api.platform.local"), ComponentName: ptr("API"),
				Status: "investigating", Revision: 1, OccurredAt: t0,
			})),
		},
		{
			name:  "create twice",
			given: given(incCreated("API errors", "major")),
			when:  valid,
			then:  conflict("incident_exists"),
		},
		{
			name:  "create over an updated incident",
			given: given(incCreated("API errors", "major"), incUpdated("identified", 2, "API errors", "major")),
			when:  valid,
			then:  conflict("incident_exists"),
		},
		{
			name:  "create over a resolved incident",
			given: given(incCreated("API errors", "major"), incUpdated("resolved", 2, "API errors", "major")),
			when:  valid,
			then:  conflict("incident_exists"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inc, err := status.LoadIncident(tt.given)
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			got, err := inc.Create(tt.when, t0)
			check(t, got, err, tt.then)
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
		"investigating": {given(incCreated(title, sev)), 1},
		"identified":    {given(incCreated(title, sev), incUpdated("identified", 2, title, sev)), 2},
		"monitoring":    {given(incCreated(title, sev), incUpdated("monitoring", 2, title, sev)), 2},
	}
	open := []string{"investigating", "identified", "monitoring"}

	type tc struct {
		name  string
		given []event.Recorded
		when  status.IncidentUpdate
		then  then
	}
	var tests []tc
	for _, from := range open {
		h := fromStatus[from]
		for _, to := range open {
			tests = append(tests, tc{
				name:  fmt.Sprintf("%s to %s", from, to),
				given: h.history,
				when:  status.IncidentUpdate{Status: to, Message: "new findings"},
				then:  ok(wantUpdated("status.incident.updated", to, h.revision+1, "new findings", title, sev)),
			})
		}
		tests = append(tests, tc{
			name:  fmt.Sprintf("%s to resolved", from),
			given: h.history,
			when:  status.IncidentUpdate{Status: "resolved", Message: "fixed"},
			then:  ok(wantUpdated("status.incident.resolved", "resolved", h.revision+1, "fixed", title, sev)),
		})
	}
	resolved := given(incCreated(title, sev), incUpdated("identified", 2, title, sev), incUpdated("resolved", 3, title, sev))
	for _, to := range append(open, "resolved", "") {
		tests = append(tests, tc{
			name:  fmt.Sprintf("resolved to %q", to),
			given: resolved,
			when:  status.IncidentUpdate{Status: to, Message: "again"},
			then:  conflict("incident_resolved"),
		})
	}
	tests = append(tests, []tc{
		{
			name:  "resolved straight after creation is revision 2",
			given: given(incCreated(title, sev)),
			when:  status.IncidentUpdate{Status: "resolved", Message: "false alarm"},
			then:  ok(wantUpdated("status.incident.resolved", "resolved", 2, "false alarm", title, sev)),
		},
		{
			name:  "revision follows the last one after several updates",
			given: given(incCreated(title, sev), incUpdated("identified", 2, title, sev), incUpdated("monitoring", 3, title, sev)),
			when:  status.IncidentUpdate{Status: "investigating", Message: "it is back"},
			then:  ok(wantUpdated("status.incident.updated", "investigating", 4, "it is back", title, sev)),
		},
		{
			name:  "omitted status keeps the current one",
			given: fromStatus["identified"].history,
			when:  status.IncidentUpdate{Message: "still on it"},
			then:  ok(wantUpdated("status.incident.updated", "identified", 3, "still on it", title, sev)),
		},
		{
			name:  "severity and title are carried over when omitted",
			given: given(incCreated("Login failures", "critical")),
			when:  status.IncidentUpdate{Status: "identified", Message: "cause found"},
			then:  ok(wantUpdated("status.incident.updated", "identified", 2, "cause found", "Login failures", "critical")),
		},
		{
			name:  "carried over values are the latest ones",
			given: given(incCreated("Login failures", "minor"), incUpdated("identified", 2, "Login and signup failures", "critical")),
			when:  status.IncidentUpdate{Status: "monitoring", Message: "fix deployed"},
			then:  ok(wantUpdated("status.incident.updated", "monitoring", 3, "fix deployed", "Login and signup failures", "critical")),
		},
		{
			name:  "resolution carries severity and title over",
			given: given(incCreated("Login failures", "minor")),
			when:  status.IncidentUpdate{Status: "resolved", Message: "done"},
			then:  ok(wantUpdated("status.incident.resolved", "resolved", 2, "done", "Login failures", "minor")),
		},
		{
			name:  "given severity and title replace the current ones",
			given: given(incCreated(title, "minor")),
			when:  status.IncidentUpdate{Status: "identified", Message: "worse", Severity: "critical", Title: "API outage"},
			then:  ok(wantUpdated("status.incident.updated", "identified", 2, "worse", "API outage", "critical")),
		},
		{
			name: "missing incident",
			when: status.IncidentUpdate{Status: "identified", Message: "m"},
			then: notFound(),
		},
		{
			name: "missing incident cannot be resolved",
			when: status.IncidentUpdate{Status: "resolved", Message: "m"},
			then: notFound(),
		},
		{
			name:  "empty message",
			given: given(incCreated(title, sev)),
			when:  status.IncidentUpdate{Status: "identified"},
			then:  invalid("/message"),
		},
		{
			name:  "blank message",
			given: given(incCreated(title, sev)),
			when:  status.IncidentUpdate{Status: "resolved", Message: "   "},
			then:  invalid("/message"),
		},
		{
			name:  "unknown status",
			given: given(incCreated(title, sev)),
			when:  status.IncidentUpdate{Status: "closed", Message: "m"},
			then:  invalid("/status"),
		},
		{
			name:  "maintenance status is not an incident status",
			given: given(incCreated(title, sev)),
			when:  status.IncidentUpdate{Status: "in_progress", Message: "m"},
			then:  invalid("/status"),
		},
		{
			name:  "unknown severity",
			given: given(incCreated(title, sev)),
			when:  status.IncidentUpdate{Status: "identified", Message: "m", Severity: "huge"},
			then:  invalid("/severity"),
		},
		{
			name:  "every invalid member is reported",
			given: given(incCreated(title, sev)),
			when:  status.IncidentUpdate{Status: "closed", Severity: "huge"},
			then:  invalid("/message", "/status", "/severity"),
		},
		{
			name:  "message too long",
			given: given(incCreated(title, sev)),
			when:  status.IncidentUpdate{Status: "identified", Message: strings.Repeat("m", 10001)},
			then:  invalid("/message"),
		},
		{
			name:  "title too long",
			given: given(incCreated(title, sev)),
			when:  status.IncidentUpdate{Status: "identified", Message: "m", Title: strings.Repeat("t", 201)},
			then:  invalid("/title"),
		},
		{
			name:  "title with a line break",
			given: given(incCreated(title, sev)),
			when:  status.IncidentUpdate{Status: "identified", Message: "m", Title: "two\nlines"},
			then:  invalid("/title"),
		},
	}...)

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inc, err := status.LoadIncident(tt.given)
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			got, err := inc.Update(tt.when, t0)
			check(t, got, err, tt.then)
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
		{name: "created", given: given(incCreated("t", "minor")), exists: true, status: "investigating", revision: 1, severity: "minor"},
		{
			name:   "updated",
			given:  given(incCreated("t", "minor"), incUpdated("monitoring", 2, "t", "critical")),
			exists: true, status: "monitoring", revision: 2, severity: "critical",
		},
		{
			name:   "resolved",
			given:  given(incCreated("t", "minor"), incUpdated("identified", 2, "t", "major"), incUpdated("resolved", 3, "t", "major")),
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
	inc, err := status.LoadIncident(nil)
	if err != nil {
		t.Fatal(err)
	}
	changes, err := inc.Create(status.NewIncident{ID: incID, Title: "T", Message: "M", Severity: "minor"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	history := appendChanges(t, nil, changes)

	open := []string{"investigating", "identified", "monitoring", ""}
	severities := []string{"", "major", "", "critical", "minor"}
	for i := 0; i < 50; i++ {
		want := i + 2
		inc, err := status.LoadIncident(history)
		if err != nil {
			t.Fatalf("update %d: load: %v", i+1, err)
		}
		if inc.Revision() != want-1 {
			t.Fatalf("update %d: loaded revision %d, want %d", i+1, inc.Revision(), want-1)
		}
		u := status.IncidentUpdate{Status: open[i%len(open)], Message: fmt.Sprintf("update %d", i+1), Severity: severities[i%len(severities)]}
		changes, err := inc.Update(u, t0.Add(time.Duration(i)*time.Minute))
		if err != nil {
			t.Fatalf("update %d: %v", i+1, err)
		}
		if len(changes) != 1 || changes[0].Type != "status.incident.updated" {
			t.Fatalf("update %d: want one status.incident.updated, got %s", i+1, dump(changes))
		}
		p := changes[0].Payload.(status.IncidentUpdatedV1)
		if p.Revision != want {
			t.Fatalf("update %d: revision %d, want %d", i+1, p.Revision, want)
		}
		if p.IncidentID != incID || p.Title != "T" {
			t.Fatalf("update %d: incident id %q title %q lost", i+1, p.IncidentID, p.Title)
		}
		history = appendChanges(t, history, changes)
	}

	inc, err = status.LoadIncident(history)
	if err != nil {
		t.Fatal(err)
	}
	changes, err = inc.Update(status.IncidentUpdate{Status: "resolved", Message: "done"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].Type != "status.incident.resolved" || changes[0].Payload.(status.IncidentUpdatedV1).Revision != 52 {
		t.Fatalf("resolution: want status.incident.resolved at revision 52, got %s", dump(changes))
	}
	history = appendChanges(t, history, changes)

	inc, err = status.LoadIncident(history)
	if err != nil {
		t.Fatal(err)
	}
	got, err := inc.Update(status.IncidentUpdate{Status: "identified", Message: "again"}, t0)
	check(t, got, err, conflict("incident_resolved"))
}

func TestIncidentState(t *testing.T) {
	withComponent := rec(status.IncidentCreated, status.IncidentCreatedV1{
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
			given: given(withComponent),
			then: status.IncidentState{
				IncidentID: incID, Title: "API errors", Message: "Looking into it.", Severity: "major", Status: "investigating", Revision: 1,
				ComponentHost: ptr("api.platform.local"), ComponentName: ptr("API"), CreatedAt: t0.Add(-time.Hour), UpdatedAt: t0.Add(-time.Hour),
			},
		},
		{
			name:  "updates replace status, message, severity, title and update time but keep the rest",
			given: given(withComponent, incUpdated("identified", 2, "API outage", "critical"), incUpdated("monitoring", 3, "API outage", "critical")),
			then: status.IncidentState{
				IncidentID: incID, Title: "API outage", Message: "progress", Severity: "critical", Status: "monitoring", Revision: 3,
				ComponentHost: ptr("api.platform.local"), ComponentName: ptr("API"), CreatedAt: t0.Add(-time.Hour), UpdatedAt: t0.Add(-57 * time.Minute),
			},
		},
		{
			name:  "resolved",
			given: given(incCreated("T", "minor"), incUpdated("resolved", 2, "T", "minor")),
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
