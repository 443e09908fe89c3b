package status_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/event/eventtest"
	"github.com/platform/backend/domain/status"
)

const cmpID = "cmp_api"

func cmpDef() status.ComponentDefinedV1 {
	return status.ComponentDefinedV1{
		ComponentID: cmpID, Host: "api.platform.local", Name: "API", Group: ptr("Core"),
		CheckURL: "https://api.platform.local/healthz",
	}
}

func cmpRegistered() event.Change { return event.New(status.ComponentRegistered, cmpDef()) }

// cmpChecked is a stored check outcome of the component.
func cmpChecked(typ string, httpStatus, fails int) event.Change {
	return event.New(typ, status.ComponentCheckedV1{
		ComponentID: cmpID, Host: "api.platform.local", Name: "API", Group: ptr("Core"), HTTPStatus: httpStatus, ConsecutiveFails: fails, CheckedAt: t0.Add(-time.Minute),
	})
}

func failed(n int) event.Change { return cmpChecked(status.ComponentCheckFailed, 503, n) }

func degraded(n int) event.Change { return cmpChecked(status.ComponentDegraded, 503, n) }

func recovered() event.Change { return cmpChecked(status.ComponentRecovered, 200, 0) }

func succeeded() event.Change { return cmpChecked(status.ComponentCheckSucceeded, 200, 0) }

func wantChecked(typ string, httpStatus, fails int, checkErr string) event.Change {
	// A check outcome carries the component's definition, so notifications
	// need nothing else to name the component.
	return event.New(typ, status.ComponentCheckedV1{
		ComponentID: cmpID, Host: "api.platform.local", Name: "API", Group: ptr("Core"), HTTPStatus: httpStatus, ConsecutiveFails: fails, Error: checkErr, CheckedAt: t0,
	})
}

func TestComponentDefine(t *testing.T) {
	with := func(f func(*status.ComponentDefinedV1)) status.ComponentDefinedV1 {
		d := cmpDef()
		f(&d)
		return d
	}
	registered := eventtest.History(t, cmpRegistered())
	tests := []struct {
		name  string
		given []event.Recorded
		when  status.ComponentDefinedV1
		then  eventtest.Then
	}{
		{name: "new component is registered", when: cmpDef(), then: eventtest.Events(event.New("status.component.registered", cmpDef()))},
		{
			name: "group is optional",
			when: with(func(d *status.ComponentDefinedV1) { d.Group = nil }),
			then: eventtest.Events(event.New("status.component.registered", with(func(d *status.ComponentDefinedV1) { d.Group = nil }))),
		},
		{
			name: "plain http check url",
			when: with(func(d *status.ComponentDefinedV1) { d.CheckURL = "http://10.0.0.5:8080/health" }),
			then: eventtest.Events(event.New("status.component.registered", with(func(d *status.ComponentDefinedV1) { d.CheckURL = "http://10.0.0.5:8080/health" }))),
		},
		{name: "same definition again", given: registered, when: cmpDef(), then: eventtest.NoEvents()},
		{
			name:  "same definition again without group",
			given: eventtest.History(t, event.New(status.ComponentRegistered, with(func(d *status.ComponentDefinedV1) { d.Group = nil }))),
			when:  with(func(d *status.ComponentDefinedV1) { d.Group = nil }),
			then:  eventtest.NoEvents(),
		},
		{name: "same definition while degraded", given: eventtest.History(t, cmpRegistered(), failed(1), failed(2), failed(3), degraded(3)), when: cmpDef(), then: eventtest.NoEvents()},
		{
			name:  "same definition as the last change",
			given: eventtest.History(t, cmpRegistered(), event.New(status.ComponentChanged, with(func(d *status.ComponentDefinedV1) { d.Name = "Public API" }))),
			when:  with(func(d *status.ComponentDefinedV1) { d.Name = "Public API" }),
			then:  eventtest.NoEvents(),
		},
		{
			name:  "changed name",
			given: registered,
			when:  with(func(d *status.ComponentDefinedV1) { d.Name = "Public API" }),
			then:  eventtest.Events(event.New("status.component.changed", with(func(d *status.ComponentDefinedV1) { d.Name = "Public API" }))),
		},
		{
			name:  "changed host",
			given: registered,
			when:  with(func(d *status.ComponentDefinedV1) { d.Host = "api2.platform.local" }),
			then:  eventtest.Events(event.New("status.component.changed", with(func(d *status.ComponentDefinedV1) { d.Host = "api2.platform.local" }))),
		},
		{
			name:  "changed check url",
			given: registered,
			when:  with(func(d *status.ComponentDefinedV1) { d.CheckURL = "https://api.platform.local/readyz" }),
			then:  eventtest.Events(event.New("status.component.changed", with(func(d *status.ComponentDefinedV1) { d.CheckURL = "https://api.platform.local/readyz" }))),
		},
		{
			name:  "changed group",
			given: registered,
			when:  with(func(d *status.ComponentDefinedV1) { d.Group = ptr("Edge") }),
			then:  eventtest.Events(event.New("status.component.changed", with(func(d *status.ComponentDefinedV1) { d.Group = ptr("Edge") }))),
		},
		{
			name:  "group removed",
			given: registered,
			when:  with(func(d *status.ComponentDefinedV1) { d.Group = nil }),
			then:  eventtest.Events(event.New("status.component.changed", with(func(d *status.ComponentDefinedV1) { d.Group = nil }))),
		},
		{
			name:  "group added",
			given: eventtest.History(t, event.New(status.ComponentRegistered, with(func(d *status.ComponentDefinedV1) { d.Group = nil }))),
			when:  cmpDef(),
			then:  eventtest.Events(event.New("status.component.changed", cmpDef())),
		},
		{
			name:  "group removed by a change is read back as no group",
			given: eventtest.History(t, cmpRegistered(), event.New(status.ComponentChanged, with(func(d *status.ComponentDefinedV1) { d.Group = nil }))),
			when:  with(func(d *status.ComponentDefinedV1) { d.Group = nil }),
			then:  eventtest.NoEvents(),
		},
		{name: "relative check url", when: with(func(d *status.ComponentDefinedV1) { d.CheckURL = "/healthz" }), then: eventtest.Invalid("/checkUrl")},
		{name: "ftp check url", when: with(func(d *status.ComponentDefinedV1) { d.CheckURL = "ftp://files.platform.local/health" }), then: eventtest.Invalid("/checkUrl")},
		{name: "check url without scheme", when: with(func(d *status.ComponentDefinedV1) { d.CheckURL = "api.platform.local/healthz" }), then: eventtest.Invalid("/checkUrl")},
		{name: "check url without host", when: with(func(d *status.ComponentDefinedV1) { d.CheckURL = "https:///healthz" }), then: eventtest.Invalid("/checkUrl")},
		{name: "unparsable check url", when: with(func(d *status.ComponentDefinedV1) { d.CheckURL = "http://api platform/%zz" }), then: eventtest.Invalid("/checkUrl")},
		{name: "empty check url", when: with(func(d *status.ComponentDefinedV1) { d.CheckURL = "" }), then: eventtest.Invalid("/checkUrl")},
		{name: "relative check url on change", given: registered, when: with(func(d *status.ComponentDefinedV1) { d.CheckURL = "healthz" }), then: eventtest.Invalid("/checkUrl")},
		{name: "empty host", when: with(func(d *status.ComponentDefinedV1) { d.Host = " " }), then: eventtest.Invalid("/componentHost")},
		{name: "empty name", when: with(func(d *status.ComponentDefinedV1) { d.Name = "" }), then: eventtest.Invalid("/componentName")},
		{
			name: "every invalid member is reported",
			when: status.ComponentDefinedV1{ComponentID: cmpID, CheckURL: "ftp://x"},
			then: eventtest.Invalid("/componentHost", "/componentName", "/checkUrl"),
		},
		// Bounds (domain/text): the HTTP schema refuses these first; the domain
		// does not rely on it.
		{name: "host too long", when: with(func(d *status.ComponentDefinedV1) { d.Host = strings.Repeat("h", 254) }), then: eventtest.Invalid("/componentHost")},
		{name: "host with a control character", when: with(func(d *status.ComponentDefinedV1) { d.Host = "api\x00.local" }), then: eventtest.Invalid("/componentHost")},
		{name: "name too long", when: with(func(d *status.ComponentDefinedV1) { d.Name = strings.Repeat("n", 201) }), then: eventtest.Invalid("/componentName")},
		{name: "name on two lines", when: with(func(d *status.ComponentDefinedV1) { d.Name = "API\nstatus" }), then: eventtest.Invalid("/componentName")},
		{name: "group too long", when: with(func(d *status.ComponentDefinedV1) { d.Group = ptr(strings.Repeat("g", 201)) }), then: eventtest.Invalid("/componentGroup")},
		{name: "group with an escape sequence", when: with(func(d *status.ComponentDefinedV1) { d.Group = ptr("\x1b[2J") }), then: eventtest.Invalid("/componentGroup")},
		{name: "check url too long", when: with(func(d *status.ComponentDefinedV1) { d.CheckURL = "https://a.local/" + strings.Repeat("p", 2048) }), then: eventtest.Invalid("/checkUrl")},
		{
			name: "longest accepted members",
			when: with(func(d *status.ComponentDefinedV1) {
				d.Host, d.Name, d.Group = strings.Repeat("h", 253), strings.Repeat("é", 200), ptr(strings.Repeat("g", 200))
			}),
			then: eventtest.Events(event.New("status.component.registered", with(func(d *status.ComponentDefinedV1) {
				d.Host, d.Name, d.Group = strings.Repeat("h", 253), strings.Repeat("é", 200), ptr(strings.Repeat("g", 200))
			}))),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := status.LoadComponent(tt.given)
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			got, err := c.Define(tt.when)
			eventtest.Check(t, got, err, tt.then)
		})
	}
}

func TestComponentRecordCheck(t *testing.T) {
	type when struct {
		httpStatus int
		err        string
	}
	operational := eventtest.History(t, cmpRegistered())
	isDegraded := eventtest.History(t, cmpRegistered(), failed(1), failed(2), failed(3), degraded(3))
	tests := []struct {
		name  string
		given []event.Recorded
		when  when
		then  eventtest.Then
	}{
		{name: "1st failure", given: operational, when: when{503, ""}, then: eventtest.Events(wantChecked("status.component.check_failed", 503, 1, ""))},
		{name: "2nd failure", given: eventtest.History(t, cmpRegistered(), failed(1)), when: when{503, ""}, then: eventtest.Events(wantChecked("status.component.check_failed", 503, 2, ""))},
		{
			name: "3rd failure degrades", given: eventtest.History(t, cmpRegistered(), failed(1), failed(2)), when: when{503, ""},
			then: eventtest.Events(wantChecked("status.component.check_failed", 503, 3, ""), wantChecked("status.component.degraded", 503, 3, "")),
		},
		{name: "4th failure only counts", given: isDegraded, when: when{503, ""}, then: eventtest.Events(wantChecked("status.component.check_failed", 503, 4, ""))},
		{
			name: "5th failure only counts", given: eventtest.History(t, cmpRegistered(), failed(1), failed(2), failed(3), degraded(3), failed(4)), when: when{500, ""},
			then: eventtest.Events(wantChecked("status.component.check_failed", 500, 5, "")),
		},
		{name: "200 while degraded recovers", given: isDegraded, when: when{200, ""}, then: eventtest.Events(wantChecked("status.component.recovered", 200, 0, ""))},
		{name: "399 while degraded recovers", given: isDegraded, when: when{399, ""}, then: eventtest.Events(wantChecked("status.component.recovered", 399, 0, ""))},
		{
			name: "success after more failures while degraded recovers", given: eventtest.History(t, cmpRegistered(), failed(1), failed(2), failed(3), degraded(3), failed(4)),
			when: when{204, ""}, then: eventtest.Events(wantChecked("status.component.recovered", 204, 0, "")),
		},
		{name: "400 while degraded only counts", given: isDegraded, when: when{400, ""}, then: eventtest.Events(wantChecked("status.component.check_failed", 400, 4, ""))},
		{name: "success after one failure", given: eventtest.History(t, cmpRegistered(), failed(1)), when: when{200, ""}, then: eventtest.Events(wantChecked("status.component.check_succeeded", 200, 0, ""))},
		{name: "success after two failures", given: eventtest.History(t, cmpRegistered(), failed(1), failed(2)), when: when{301, ""}, then: eventtest.Events(wantChecked("status.component.check_succeeded", 301, 0, ""))},
		{name: "success with no failures records nothing", given: operational, when: when{200, ""}, then: eventtest.NoEvents()},
		{name: "399 with no failures records nothing", given: operational, when: when{399, ""}, then: eventtest.NoEvents()},
		{name: "success after a success records nothing", given: eventtest.History(t, cmpRegistered(), failed(1), succeeded()), when: when{200, ""}, then: eventtest.NoEvents()},
		{name: "success after recovery records nothing", given: eventtest.History(t, cmpRegistered(), failed(1), failed(2), failed(3), degraded(3), recovered()), when: when{200, ""}, then: eventtest.NoEvents()},
		{
			name: "an error fails the check whatever the status", given: operational, when: when{200, "body read: timeout"},
			then: eventtest.Events(wantChecked("status.component.check_failed", 200, 1, "body read: timeout")),
		},
		{name: "400 is a failure", given: operational, when: when{400, ""}, then: eventtest.Events(wantChecked("status.component.check_failed", 400, 1, ""))},
		{name: "500 is a failure", given: operational, when: when{500, ""}, then: eventtest.Events(wantChecked("status.component.check_failed", 500, 1, ""))},
		{name: "199 is a failure", given: operational, when: when{199, ""}, then: eventtest.Events(wantChecked("status.component.check_failed", 199, 1, ""))},
		{
			name: "no response with an error is a failure", given: operational, when: when{0, "dial tcp: connection refused"},
			then: eventtest.Events(wantChecked("status.component.check_failed", 0, 1, "dial tcp: connection refused")),
		},
		{
			name: "no response counts towards degradation", given: eventtest.History(t, cmpRegistered(), failed(1), failed(2)), when: when{0, "timeout"},
			then: eventtest.Events(wantChecked("status.component.check_failed", 0, 3, "timeout"), wantChecked("status.component.degraded", 0, 3, "timeout")),
		},
		{
			name: "failure after recovery counts from 1", given: eventtest.History(t, cmpRegistered(), failed(1), failed(2), failed(3), degraded(3), recovered()),
			when: when{503, ""}, then: eventtest.Events(wantChecked("status.component.check_failed", 503, 1, "")),
		},
		{
			name: "failure after a success counts from 1", given: eventtest.History(t, cmpRegistered(), failed(1), failed(2), succeeded()),
			when: when{503, ""}, then: eventtest.Events(wantChecked("status.component.check_failed", 503, 1, "")),
		},
		{
			name:  "3rd failure after recovery degrades again",
			given: eventtest.History(t, cmpRegistered(), failed(1), failed(2), failed(3), degraded(3), recovered(), failed(1), failed(2)),
			when:  when{503, ""},
			then:  eventtest.Events(wantChecked("status.component.check_failed", 503, 3, ""), wantChecked("status.component.degraded", 503, 3, "")),
		},
		{
			name: "a definition change keeps the degraded state",
			given: eventtest.History(t, cmpRegistered(), failed(1), failed(2), failed(3), degraded(3),
				event.New(status.ComponentChanged, status.ComponentDefinedV1{ComponentID: cmpID, Host: "api.platform.local", Name: "Public API", CheckURL: "https://api.platform.local/healthz"})),
			when: when{200, ""},
			then: eventtest.Events(event.New("status.component.recovered", status.ComponentCheckedV1{ComponentID: cmpID, Host: "api.platform.local",
				Name: "Public API", HTTPStatus: 200, CheckedAt: t0})),
		},
		{name: "check of a missing component", when: when{200, ""}, then: eventtest.NotFound()},
		{name: "failed check of a missing component", when: when{0, "refused"}, then: eventtest.NotFound()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := status.LoadComponent(tt.given)
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			got, err := c.RecordCheck(tt.when.httpStatus, tt.when.err, t0)
			eventtest.Check(t, got, err, tt.then)
		})
	}
}

// TestComponentCheckBoundary pins the success range 200..399 on a component
// with one earlier failure: a success records check_succeeded, a failure
// counts to 2.
func TestComponentCheckBoundary(t *testing.T) {
	for _, tt := range []struct {
		httpStatus int
		success    bool
	}{
		{0, false}, {100, false}, {199, false}, {200, true}, {204, true}, {302, true},
		{399, true}, {400, false}, {404, false}, {429, false}, {500, false}, {503, false}, {599, false},
	} {
		t.Run(fmt.Sprint(tt.httpStatus), func(t *testing.T) {
			c, err := status.LoadComponent(eventtest.History(t, cmpRegistered(), failed(1)))
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.RecordCheck(tt.httpStatus, "", t0)
			want := eventtest.Events(wantChecked("status.component.check_failed", tt.httpStatus, 2, ""))
			if tt.success {
				want = eventtest.Events(wantChecked("status.component.check_succeeded", tt.httpStatus, 0, ""))
			}
			eventtest.Check(t, got, err, want)
		})
	}
}

// TestComponentLifecycle drives checks through decisions read back from
// their own events and follows status and consecutive failures.
func TestComponentLifecycle(t *testing.T) {
	c, err := status.LoadComponent(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Exists() {
		t.Fatal("empty history must not exist")
	}
	changes, err := c.Define(cmpDef())
	if err != nil {
		t.Fatal(err)
	}
	history := eventtest.Append(t, nil, changes)
	steps := []struct {
		httpStatus int
		types      []string
		status     string
		fails      int
	}{
		{200, nil, "operational", 0},
		{500, []string{"status.component.check_failed"}, "operational", 1},
		{200, []string{"status.component.check_succeeded"}, "operational", 0},
		{500, []string{"status.component.check_failed"}, "operational", 1},
		{0, []string{"status.component.check_failed"}, "operational", 2},
		{502, []string{"status.component.check_failed", "status.component.degraded"}, "degraded", 3},
		{502, []string{"status.component.check_failed"}, "degraded", 4},
		{399, []string{"status.component.recovered"}, "operational", 0},
		{399, nil, "operational", 0},
		{400, []string{"status.component.check_failed"}, "operational", 1},
	}
	for i, s := range steps {
		c, err := status.LoadComponent(history)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.RecordCheck(s.httpStatus, "", t0.Add(time.Duration(i)*time.Minute))
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		var types []string
		for _, ch := range got {
			types = append(types, ch.Type)
		}
		if fmt.Sprint(types) != fmt.Sprint(s.types) {
			t.Fatalf("step %d (http %d): want %v, got %v", i, s.httpStatus, s.types, types)
		}
		history = eventtest.Append(t, history, got)
		c, err = status.LoadComponent(history)
		if err != nil {
			t.Fatal(err)
		}
		if c.Status() != s.status || c.ConsecutiveFails() != s.fails {
			t.Fatalf("step %d (http %d): want %s with %d fails, got %s with %d", i, s.httpStatus, s.status, s.fails, c.Status(), c.ConsecutiveFails())
		}
	}
	c, err = status.LoadComponent(history)
	if err != nil {
		t.Fatal(err)
	}
	want := status.ComponentState{ComponentDefinedV1: cmpDef(), Status: "operational", ConsecutiveFails: 1}
	if got := c.State(); !reflect.DeepEqual(got, want) {
		t.Fatalf("state: want %+v, got %+v", want, got)
	}
	if !reflect.DeepEqual(c.Definition(), cmpDef()) {
		t.Fatalf("definition: want %+v, got %+v", cmpDef(), c.Definition())
	}
}

// TestComponentAutoIncidentTurnsOff: a change turning autoIncident off (the
// member is omitted from the payload when false) turns it off in the
// rebuilt model, so defining it off again changes nothing. Each definition
// replaces the last; decoding one into the previous kept the flag on.
func TestComponentAutoIncidentTurnsOff(t *testing.T) {
	on, off := cmpDef(), cmpDef()
	on.AutoIncident = true
	given := []event.Change{event.New(status.ComponentRegistered, on), event.New(status.ComponentChanged, off)}
	if c := eventtest.Given(t, status.LoadComponent, given...).Model(); c.Definition().AutoIncident {
		t.Fatal("autoIncident stayed on after a change turned it off")
	}
	eventtest.Given(t, status.LoadComponent, given...).
		When(func(c *status.Component) ([]event.Change, error) { return c.Define(off) }).
		Then(eventtest.NoEvents())
}
