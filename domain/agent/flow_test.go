package agent_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/domain/agent"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event/eventtest"
)

func pointers(fields []errs.Field) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.Pointer
	}
	return out
}

// TestTemplates: references point into the trigger or earlier steps,
// nothing else is interpreted, and a resolved template takes the values
// as they are (numbers, objects), or the default.
func TestTemplates(t *testing.T) {
	bad := map[string]string{
		`{"a":{"$from":"/steps/1/output"}}`:       "/i/a/$from",
		`{"a":{"$from":"/steps/x"}}`:              "/i/a/$from",
		`{"a":{"$from":"/secrets"}}`:              "/i/a/$from",
		`{"a":{"$from":"no-slash"}}`:              "/i/a/$from",
		`{"a":{"$from":"/trigger","eval":"1+1"}}`: "/i/a",
		`{"a":{"$literal":1,"b":2}}`:              "/i/a",
		`[1]`:                                     "/i",
		`{"a":[{"$from":3}]}`:                     "/i/a/0/$from",
	}
	for tpl, want := range bad {
		got := pointers(agent.CheckTemplate("/i", json.RawMessage(tpl), 1))
		if len(got) != 1 || got[0] != want {
			t.Errorf("%s: problems at %v, want %s", tpl, got, want)
		}
	}
	if f := agent.CheckTemplate("/i", json.RawMessage(`{"a":{"$from":"/steps/0/output/x~1y"},"b":{"$literal":{"$from":"/z"}},"c":[1,{"d":{"$from":"/trigger/data","default":null}}]}`), 1); len(f) != 0 {
		t.Fatalf("a good template: %v", f)
	}
	doc := agent.Decoded(json.RawMessage(`{"trigger":{"data":{"n":12345678901234567890,"o":{"k":[1,2]}}},"steps":[{"output":{"x/y":"slash"}}]}`))
	out, err := agent.Resolve(json.RawMessage(`{"n":{"$from":"/trigger/data/n"},"o":{"$from":"/trigger/data/o"},"s":{"$from":"/steps/0/output/x~1y"},"l":{"$literal":{"$from":"/z"}},"d":{"$from":"/steps/0/output/none","default":"dflt"},"i":{"$from":"/trigger/data/o/k/1"}}`), doc)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"d":"dflt","i":2,"l":{"$from":"/z"},"n":12345678901234567890,"o":{"k":[1,2]},"s":"slash"}` {
		t.Fatalf("resolved %s", out)
	}
	if _, err := agent.Resolve(json.RawMessage(`{"a":{"$from":"/trigger/data/missing"}}`), doc); err == nil || !strings.Contains(err.Error(), "/a") {
		t.Fatalf("missing reference: %v", err)
	}
}

// TestDefinitionCheck: every problem of a definition at its pointer.
func TestDefinitionCheck(t *testing.T) {
	d := agent.Definition{Name: "", Trigger: agent.Trigger{Type: agent.TriggerEvent, EventType: "agent.run.started"},
		Steps: []agent.Step{{Kind: agent.KindAction}, {Kind: agent.KindTask, Service: "status"}, {Kind: "script"}}}
	d.Normalize()
	got := pointers(d.Check(func(string) bool { return true }))
	want := []string{"/name", "/trigger/eventType", "/steps/0/action", "/steps/1/instructions", "/steps/1/action", "/steps/2/kind"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("problems %v, want %v", got, want)
	}
	d = agent.Definition{Name: "x", Trigger: agent.Trigger{Type: agent.TriggerSchedule, EveryMinutes: 1}, Steps: []agent.Step{{Kind: agent.KindTask, Instructions: "go"}}}
	if got := pointers(d.Check(func(string) bool { return false })); len(got) != 1 || got[0] != "/trigger/everyMinutes" {
		t.Fatalf("schedule problems %v", got)
	}
	d = agent.Definition{Name: "x", Trigger: agent.Trigger{Type: agent.TriggerEvent, EventType: "status.incident.created"}, Steps: []agent.Step{{Kind: agent.KindTask, Instructions: "go"}}}
	if got := pointers(d.Check(func(string) bool { return false })); len(got) != 1 || got[0] != "/trigger/eventType" {
		t.Fatalf("unknown event type: %v", got)
	}
	d.Steps[0].OrganizationID = "other"
	if got := d.ForeignSteps("mine"); len(got) != 1 || got[0] != 0 {
		t.Fatalf("foreign steps %v", got)
	}
}

// TestSchedule: a schedule fires once per slot, late after downtime
// rather than once per missed slot, and not after a pause or a change of
// schedule.
func TestSchedule(t *testing.T) {
	def := agent.Definition{Name: "x", Trigger: agent.Trigger{Type: agent.TriggerSchedule, EveryMinutes: 10}, Steps: []agent.Step{{Kind: agent.KindTask, Instructions: "go"}}}
	f := &agent.Flow{}
	created, err := f.Create("f1", def, agent.Owner{ID: "u"}, t0)
	if err != nil || created[0].Timers[0].At != t0.Add(10*time.Minute) {
		t.Fatalf("create: %v %+v", err, created)
	}
	h := eventtest.History(t, created...)
	f, _ = agent.LoadFlow(h)
	due := t0.Add(10 * time.Minute)
	if got := f.Fire(due.Add(time.Second), due.Add(time.Second)); len(got) != 0 {
		t.Fatal("a timer of another slot fired")
	}
	fired := f.Fire(due, due.Add(35*time.Minute)) // 35 minutes late: the next slot is after now
	var p agent.FlowTriggeredV1
	b, _ := json.Marshal(fired[0].Payload)
	_ = json.Unmarshal(b, &p)
	if p.RunID != agent.ScheduledRunID("f1", due) || !p.NextRunAt.Equal(t0.Add(50*time.Minute)) {
		t.Fatalf("fired %+v", p)
	}
	h = eventtest.Append(t, h, fired)
	f, _ = agent.LoadFlow(h)
	if got := f.Fire(due, due.Add(36*time.Minute)); len(got) != 0 {
		t.Fatal("a slot fired twice")
	}
	paused, _ := f.Pause(t0)
	h = eventtest.Append(t, h, paused)
	f, _ = agent.LoadFlow(h)
	if got := f.Fire(t0.Add(50*time.Minute), t0.Add(50*time.Minute)); len(got) != 0 || f.CanStart() == nil {
		t.Fatal("a paused flow fired")
	}
}

// TestStyle: the metrics say what the text does.
func TestStyle(t *testing.T) {
	m := agent.Measure([]string{"We ship fast! We don't wait. Do you? Shipping matters, shipping wins.", "We ship again tomorrow 🚀."})
	if m.Sentences != 5 || m.QuestionShare != 0.2 || m.ExclamationShare != 0.2 || m.ContractionShare == 0 || m.EmojiPerHundredWords == 0 {
		t.Fatalf("metrics %+v", m)
	}
	if len(m.TopWords) == 0 || m.TopWords[0] != "ship" {
		t.Fatalf("top words %v", m.TopWords)
	}
	if s := m.Summary(); !strings.Contains(s, "casual") || !strings.Contains(s, "ship") {
		t.Fatalf("summary %q", s)
	}
}
