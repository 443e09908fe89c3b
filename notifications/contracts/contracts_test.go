package contracts

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// seedContracts is the descriptor of every contract as the seed documents state it.
var seedContracts = []struct {
	typ        string
	recipients string
	pattern    string
	sensitive  []string
	compat     string
}{
	{"design.export.ready", "workspace_member", "^design:export:ready:", nil, "2026-05-05"},

	{"gateway.credential.invalid", "organization_member", "^gateway:credential-invalid:", nil, "2026-04-18"},
	{"gateway.delivery.failed", "organization_member", "^gateway:delivery-failed:", []string{"error"}, "2026-04-18"},
	{"gateway.provider.connection_expiring", "organization_member", "^gateway:connection-expiring:", nil, "2026-04-18"},
	{"gateway.provider.degraded", "organization_member", "^gateway:provider-health:", []string{"error"}, "2026-04-18"},
	{"gateway.provider.disconnected", "organization_member", "^gateway:provider-disconnected:", nil, "2026-04-18"},
	{"gateway.provider.recovered", "organization_member", "^gateway:provider-health:", nil, "2026-04-18"},
	{"gateway.usage.threshold_reached", "organization_member", "^gateway:usage-threshold:", nil, "2026-04-18"},
	{"gateway.webhook.failed", "organization_member", "^gateway:webhook-failed:", []string{"error"}, "2026-04-18"},

	{"studio.approval.requested", "organization_member", "^studio:approval:.*:requested$", nil, "2026-04-10"},
	{"studio.asset.ready", "organization_member", "^studio:asset:.*:ready$", nil, "2026-04-10"},
	{"studio.generation.completed", "organization_member", "^studio:generation:.*:completed$", nil, "2026-04-10"},
	{"studio.generation.failed", "organization_member", "^studio:generation:.*:failed$", nil, "2026-04-10"},
	{"studio.plan.ready", "organization_member", "^studio:plan:.*:ready:", nil, "2026-04-10"},
	{"studio.quota.warning", "organization_member", "^studio:quota-warning:", nil, "2026-04-10"},

	{"status.component.degraded", "organization_member", "^status:component:", nil, "2026-05-02"},
	{"status.component.recovered", "organization_member", "^status:component:", nil, "2026-05-02"},
	{"status.incident.created", "organization_member", "^status:incident:", nil, "2026-05-02"},
	{"status.incident.updated", "organization_member", "^status:incident:", nil, "2026-05-02"},
	{"status.incident.resolved", "organization_member", "^status:incident:", nil, "2026-05-02"},
	{"status.maintenance.scheduled", "organization_member", "^status:maintenance:", nil, "2026-05-02"},
	{"status.maintenance.started", "organization_member", "^status:maintenance:", nil, "2026-05-02"},
	{"status.maintenance.completed", "organization_member", "^status:maintenance:", nil, "2026-05-02"},
}

func load(t *testing.T) *Registry {
	t.Helper()
	r, err := Load()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return r
}

type example struct {
	Key     string         `json:"key"`
	Payload map[string]any `json:"payload"`
}

func readExample(t *testing.T, typ string) example {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "valid", typ+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var ex example
	if err := json.Unmarshal(raw, &ex); err != nil {
		t.Fatalf("%s: %v", typ, err)
	}
	return ex
}

func TestLoadHasExactlyTheSeedContracts(t *testing.T) {
	r := load(t)
	var want []string
	for _, s := range seedContracts {
		want = append(want, s.typ)
	}
	got := r.Types()
	if len(got) != 23 || len(want) != 23 {
		t.Fatalf("got %d types, seed table has %d, want 23", len(got), len(want))
	}
	wantSorted := append([]string{}, want...)
	sort.Strings(wantSorted)
	if !reflect.DeepEqual(got, wantSorted) {
		t.Fatalf("Types() = %v\nwant %v", got, wantSorted)
	}

	for _, s := range seedContracts {
		t.Run(s.typ, func(t *testing.T) {
			c, ok := r.Get(s.typ)
			if !ok {
				t.Fatal("missing")
			}
			if c.Type != s.typ || c.Version != 1 || c.Status != "published" ||
				c.RecipientsMode != s.recipients || c.ExternalAddresses != "forbidden" ||
				c.DataClassification != "internal" || c.Idempotency != "required" ||
				c.IdempotencyKeyPattern.String() != s.pattern || c.CompatibilityDate != s.compat {
				t.Errorf("descriptor %+v does not match the seed %+v", c, s)
			}
			if len(c.SensitiveFields) != len(s.sensitive) ||
				(len(s.sensitive) > 0 && !reflect.DeepEqual(c.SensitiveFields, s.sensitive)) {
				t.Errorf("sensitive fields %v, want %v", c.SensitiveFields, s.sensitive)
			}

			raw, ok := r.RawSchema(s.typ)
			if !ok {
				t.Fatal("no raw schema")
			}
			var doc struct {
				Schema string `json:"$schema"`
				ID     string `json:"$id"`
				Desc   string `json:"description"`
			}
			if err := json.Unmarshal(raw, &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Schema != "https://json-schema.org/draft/2020-12/schema" ||
				doc.ID != "https://platform.local/contracts/"+s.typ+"/v1.json" || doc.Desc == "" {
				t.Errorf("schema header: %+v", doc)
			}
		})
	}

	if _, ok := r.Get("status.incident.deleted"); ok {
		t.Error("Get of an unknown type succeeded")
	}
	if _, ok := r.RawSchema("status.incident.deleted"); ok {
		t.Error("RawSchema of an unknown type succeeded")
	}
}

func TestEveryContractAcceptsItsExample(t *testing.T) {
	r := load(t)
	for _, s := range seedContracts {
		t.Run(s.typ, func(t *testing.T) {
			ex := readExample(t, s.typ)
			c, _ := r.Get(s.typ)
			if !c.IdempotencyKeyPattern.MatchString(ex.Key) {
				t.Errorf("example key %q does not match %s", ex.Key, c.IdempotencyKeyPattern)
			}
			payload, _ := json.Marshal(ex.Payload)
			if err := r.Validate(s.typ, ex.Key, payload); err != nil {
				t.Errorf("valid example rejected: %v", err)
			}
		})
	}
}

// mutation changes a valid example and expects exactly one problem, or none when ok is set.
type mutation struct {
	name  string
	typ   string
	key   string         // replaces the example key when not empty
	noKey bool           // sends an empty key
	set   map[string]any // JSON pointer -> new value
	del   []string       // JSON pointers to remove
	ok    bool           // the mutated example must still be valid
	want  string         // pointer of the expected problem ("" for the key or the root)
	msg   string         // substring of the expected problem's message
}

func TestMutations(t *testing.T) {
	r := load(t)
	const badTime = "2026-05-02 10:15"
	cases := []mutation{
		// status.component.degraded
		{name: "missing host", typ: "status.component.degraded", del: []string{"/component_host"}, want: "/component_host", msg: "required"},
		{name: "missing severity", typ: "status.component.degraded", del: []string{"/severity"}, want: "/severity", msg: "required"},
		{name: "extra member", typ: "status.component.degraded", set: map[string]any{"/region": "eu"}, want: "/region", msg: "not allowed"},
		{name: "severity const", typ: "status.component.degraded", set: map[string]any{"/severity": "warning"}, want: "/severity"},
		{name: "object_type const", typ: "status.component.degraded", set: map[string]any{"/object_type": "status_incident"}, want: "/object_type"},
		{name: "category const", typ: "status.component.degraded", set: map[string]any{"/category": "ops"}, want: "/category"},
		{name: "two fails", typ: "status.component.degraded", set: map[string]any{"/consecutive_fails": 2}, want: "/consecutive_fails", msg: "minimum"},
		{name: "negative http status", typ: "status.component.degraded", set: map[string]any{"/http_status": -1}, want: "/http_status"},
		{name: "group not string", typ: "status.component.degraded", set: map[string]any{"/component_group": 7}, want: "/component_group"},
		{name: "bad date-time", typ: "status.component.degraded", set: map[string]any{"/occurred_at": badTime}, want: "/occurred_at", msg: "date-time"},
		{name: "bad key", typ: "status.component.degraded", key: "status:incident:api", want: "", msg: "idempotency key"},
		{name: "no group", typ: "status.component.degraded", del: []string{"/component_group", "/category"}, ok: true},

		// status.component.recovered
		{name: "one fail", typ: "status.component.recovered", set: map[string]any{"/consecutive_fails": 1}, want: "/consecutive_fails"},
		{name: "http 500", typ: "status.component.recovered", set: map[string]any{"/http_status": 500}, want: "/http_status", msg: "399"},
		{name: "http 199", typ: "status.component.recovered", set: map[string]any{"/http_status": 199}, want: "/http_status", msg: "200"},
		{name: "http 399", typ: "status.component.recovered", set: map[string]any{"/http_status": 399}, ok: true},
		{name: "http status as string", typ: "status.component.recovered", set: map[string]any{"/http_status": "200"}, want: "/http_status"},
		{name: "missing name", typ: "status.component.recovered", del: []string{"/component_name"}, want: "/component_name"},
		{name: "extra member", typ: "status.component.recovered", set: map[string]any{"/latency_ms": 3}, want: "/latency_ms"},
		{name: "severity const", typ: "status.component.recovered", set: map[string]any{"/severity": "info"}, want: "/severity"},
		{name: "bad date-time", typ: "status.component.recovered", set: map[string]any{"/occurred_at": "yesterday"}, want: "/occurred_at"},
		{name: "bad key", typ: "status.component.recovered", key: "component:api", want: ""},

		// status.incident.created
		{name: "revision 2", typ: "status.incident.created", set: map[string]any{"/revision": 2}, want: "/revision"},
		{name: "status identified", typ: "status.incident.created", set: map[string]any{"/incident_status": "identified"}, want: "/incident_status"},
		{name: "severity success", typ: "status.incident.created", set: map[string]any{"/severity": "success"}, want: "/severity"},
		{name: "missing incident_id", typ: "status.incident.created", del: []string{"/incident_id"}, want: "/incident_id", msg: "required"},
		{name: "empty title", typ: "status.incident.created", set: map[string]any{"/title": ""}, want: "/title"},
		{name: "extra member", typ: "status.incident.created", set: map[string]any{"/message": "x"}, want: "/message"},
		{name: "component name number", typ: "status.incident.created", set: map[string]any{"/component_name": 3}, want: "/component_name"},
		{name: "null components", typ: "status.incident.created", set: map[string]any{"/component_host": nil, "/component_name": nil}, ok: true},
		{name: "bad date-time", typ: "status.incident.created", set: map[string]any{"/occurred_at": badTime}, want: "/occurred_at"},
		{name: "bad key", typ: "status.incident.created", key: "status:maintenance:inc_1:rev:1", want: ""},

		// status.incident.updated
		{name: "revision 1", typ: "status.incident.updated", set: map[string]any{"/revision": 1}, want: "/revision"},
		{name: "revision not integer", typ: "status.incident.updated", set: map[string]any{"/revision": 2.5}, want: "/revision"},
		{name: "status resolved", typ: "status.incident.updated", set: map[string]any{"/incident_status": "resolved"}, want: "/incident_status"},
		{name: "missing incident_id", typ: "status.incident.updated", del: []string{"/incident_id"}, want: "/incident_id"},
		{name: "empty incident_id", typ: "status.incident.updated", set: map[string]any{"/incident_id": ""}, want: "/incident_id"},
		{name: "extra member", typ: "status.incident.updated", set: map[string]any{"/cta_url": "https://status.local"}, want: "/cta_url"},
		{name: "bad date-time", typ: "status.incident.updated", set: map[string]any{"/occurred_at": "2026-13-01T00:00:00Z"}, want: "/occurred_at"},
		{name: "bad key", typ: "status.incident.updated", key: "Status:incident:inc_1", want: ""},
		{name: "revision 51", typ: "status.incident.updated", set: map[string]any{"/revision": 51}, ok: true},

		// status.incident.resolved
		{name: "status monitoring", typ: "status.incident.resolved", set: map[string]any{"/incident_status": "monitoring"}, want: "/incident_status"},
		{name: "severity major", typ: "status.incident.resolved", set: map[string]any{"/severity": "major"}, want: "/severity"},
		{name: "revision 1", typ: "status.incident.resolved", set: map[string]any{"/revision": 1}, want: "/revision"},
		{name: "missing revision", typ: "status.incident.resolved", del: []string{"/revision"}, want: "/revision"},
		{name: "extra member", typ: "status.incident.resolved", set: map[string]any{"/resolved_by": "u1"}, want: "/resolved_by"},
		{name: "bad date-time", typ: "status.incident.resolved", set: map[string]any{"/occurred_at": 1777716900}, want: "/occurred_at"},
		{name: "empty key", typ: "status.incident.resolved", noKey: true, want: "", msg: "idempotency key"},

		// status.maintenance.scheduled
		{name: "revision 2", typ: "status.maintenance.scheduled", set: map[string]any{"/revision": 2}, want: "/revision"},
		{name: "status in_progress", typ: "status.maintenance.scheduled", set: map[string]any{"/maintenance_status": "in_progress"}, want: "/maintenance_status"},
		{name: "missing start", typ: "status.maintenance.scheduled", del: []string{"/scheduled_start"}, want: "/scheduled_start"},
		{name: "date only end", typ: "status.maintenance.scheduled", set: map[string]any{"/scheduled_end": "2026-05-10"}, want: "/scheduled_end", msg: "date-time"},
		{name: "severity warning", typ: "status.maintenance.scheduled", set: map[string]any{"/severity": "warning"}, want: "/severity"},
		{name: "extra member", typ: "status.maintenance.scheduled", set: map[string]any{"/component_host": "db"}, want: "/component_host"},
		{name: "bad key", typ: "status.maintenance.scheduled", key: "maintenance:mnt_1", want: ""},

		// status.maintenance.started
		{name: "revision 1", typ: "status.maintenance.started", set: map[string]any{"/revision": 1}, want: "/revision"},
		{name: "missing maintenance_id", typ: "status.maintenance.started", del: []string{"/maintenance_id"}, want: "/maintenance_id"},
		{name: "missing end", typ: "status.maintenance.started", del: []string{"/scheduled_end"}, want: "/scheduled_end"},
		{name: "status completed", typ: "status.maintenance.started", set: map[string]any{"/maintenance_status": "completed"}, want: "/maintenance_status"},
		{name: "object_type const", typ: "status.maintenance.started", set: map[string]any{"/object_type": "status_component"}, want: "/object_type"},
		{name: "extra member", typ: "status.maintenance.started", set: map[string]any{"/started_by": "u1"}, want: "/started_by"},
		{name: "bad date-time", typ: "status.maintenance.started", set: map[string]any{"/scheduled_start": "soon"}, want: "/scheduled_start"},
		{name: "bad key", typ: "status.maintenance.started", key: "status:incident:mnt_1:rev:2", want: ""},

		// status.maintenance.completed
		{name: "revision 2", typ: "status.maintenance.completed", set: map[string]any{"/revision": 2}, want: "/revision", msg: "minimum"},
		{name: "status scheduled", typ: "status.maintenance.completed", set: map[string]any{"/maintenance_status": "scheduled"}, want: "/maintenance_status"},
		{name: "severity info", typ: "status.maintenance.completed", set: map[string]any{"/severity": "info"}, want: "/severity"},
		{name: "missing body", typ: "status.maintenance.completed", del: []string{"/body"}, want: "/body"},
		{name: "extra member", typ: "status.maintenance.completed", set: map[string]any{"/payload": map[string]any{}}, want: "/payload"},
		{name: "bad date-time", typ: "status.maintenance.completed", set: map[string]any{"/occurred_at": "2026-05-10T03:40:00"}, want: "/occurred_at"},
		{name: "bad key", typ: "status.maintenance.completed", key: " status:maintenance:mnt_1:rev:3", want: ""},

		// gateway
		{name: "missing cta_url", typ: "gateway.delivery.failed", del: []string{"/cta_url"}, want: "/cta_url", msg: "required"},
		{name: "relative cta_url", typ: "gateway.delivery.failed", set: map[string]any{"/cta_url": "/usage/events"}, want: "/cta_url"},
		{name: "bad uri", typ: "gateway.webhook.failed", set: map[string]any{"/cta_url": "http://[::1"}, want: "/cta_url"},
		{name: "empty error", typ: "gateway.delivery.failed", set: map[string]any{"/error": ""}, want: "/error"},
		{name: "extra member", typ: "gateway.credential.invalid", set: map[string]any{"/severity": "critical"}, want: "/severity"},
		{name: "degraded status const", typ: "gateway.provider.degraded", set: map[string]any{"/status": "healthy"}, want: "/status"},
		{name: "negative latency", typ: "gateway.provider.recovered", set: map[string]any{"/latency_ms": -1}, want: "/latency_ms"},
		{name: "disconnected status enum", typ: "gateway.provider.disconnected", set: map[string]any{"/status": "paused"}, want: "/status"},
		{name: "expires_at date-time", typ: "gateway.provider.connection_expiring", set: map[string]any{"/expires_at": "next week"}, want: "/expires_at"},
		{name: "included units 0", typ: "gateway.usage.threshold_reached", set: map[string]any{"/included_units": 0}, want: "/included_units"},
		{name: "missing period_start", typ: "gateway.usage.threshold_reached", del: []string{"/period_start"}, want: "/period_start"},
		{name: "bad key", typ: "gateway.provider.recovered", key: "gateway:provider-recovered:x", want: ""},

		// studio
		{name: "payload missing project_id", typ: "studio.asset.ready", del: []string{"/payload/project_id"}, want: "/payload/project_id", msg: "required"},
		{name: "extra top-level member", typ: "studio.asset.ready", set: map[string]any{"/asset_id": "ast_8"}, want: "/asset_id", msg: "not allowed"},
		{name: "extra payload member allowed", typ: "studio.asset.ready", set: map[string]any{"/payload/width": 1080}, ok: true},
		{name: "payload not object", typ: "studio.asset.ready", set: map[string]any{"/payload": "ast_8"}, want: "/payload"},
		{name: "missing payload", typ: "studio.plan.ready", del: []string{"/payload"}, want: "/payload"},
		{name: "null plan_id", typ: "studio.plan.ready", set: map[string]any{"/payload/plan_id": nil}, ok: true},
		{name: "missing plan_id", typ: "studio.plan.ready", del: []string{"/payload/plan_id"}, want: "/payload/plan_id"},
		{name: "negative scene_count", typ: "studio.plan.ready", set: map[string]any{"/payload/scene_count": -1}, want: "/payload/scene_count"},
		{name: "note omitted", typ: "studio.approval.requested", del: []string{"/payload/note"}, ok: true},
		{name: "note not string", typ: "studio.approval.requested", set: map[string]any{"/payload/note": false}, want: "/payload/note"},
		{name: "key without end", typ: "studio.approval.requested", key: "studio:approval:apr_5:requested:1", want: ""},
		{name: "asset_count string", typ: "studio.generation.completed", set: map[string]any{"/payload/asset_count": "2"}, want: "/payload/asset_count"},
		{name: "severity outside enum", typ: "studio.generation.failed", set: map[string]any{"/severity": "minor"}, want: "/severity"},
		{name: "bad cta_url", typ: "studio.quota.warning", set: map[string]any{"/cta_url": "studio quota"}, want: "/cta_url"},

		// design
		{name: "format not in enum", typ: "design.export.ready", set: map[string]any{"/format": "gif"}, want: "/format"},
		{name: "missing export_id", typ: "design.export.ready", del: []string{"/export_id"}, want: "/export_id"},
		{name: "extra member", typ: "design.export.ready", set: map[string]any{"/payload": map[string]any{}}, want: "/payload"},
		{name: "priority outside enum", typ: "design.export.ready", set: map[string]any{"/priority": "critical"}, want: "/priority"},
		{name: "only required members", typ: "design.export.ready", del: []string{"/surface", "/priority", "/severity", "/category", "/object_type", "/cta_url", "/cta_label"}, ok: true},
		{name: "bad key", typ: "design.export.ready", key: "design:export:exp_42", want: ""},
	}

	for _, tc := range cases {
		t.Run(tc.typ+"/"+tc.name, func(t *testing.T) {
			ex := readExample(t, tc.typ)
			key := ex.Key
			if tc.key != "" || tc.noKey {
				key = tc.key
			}
			for ptr, v := range tc.set {
				setPointer(t, ex.Payload, ptr, v, false)
			}
			for _, ptr := range tc.del {
				setPointer(t, ex.Payload, ptr, nil, true)
			}
			payload, err := json.Marshal(ex.Payload)
			if err != nil {
				t.Fatal(err)
			}
			err = r.Validate(tc.typ, key, payload)
			// The payload as a value (how the projection checks it) gets
			// exactly the verdict of its encoding.
			if verr := r.ValidateValue(tc.typ, key, ex.Payload); fmt.Sprint(verr) != fmt.Sprint(err) {
				t.Errorf("ValidateValue: %v\nValidate: %v", verr, err)
			}
			if tc.ok {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("want *ValidationError, got %T %v", err, err)
			}
			if ve.Type != tc.typ {
				t.Errorf("Type = %q", ve.Type)
			}
			if !hasProblem(ve, tc.want, tc.msg) {
				t.Errorf("no problem at %q containing %q in %v", tc.want, tc.msg, ve.Problems)
			}
			if len(ve.Problems) != 1 {
				t.Errorf("want exactly one problem, got %v", ve.Problems)
			}
		})
	}
}

func hasProblem(ve *ValidationError, pointer, msg string) bool {
	for _, p := range ve.Problems {
		if p.Pointer == pointer && strings.Contains(p.Message, msg) {
			return true
		}
	}
	return false
}

// setPointer sets or deletes the member at a JSON pointer below doc (object members only).
func setPointer(t *testing.T, doc map[string]any, ptr string, v any, del bool) {
	t.Helper()
	toks := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	obj := doc
	for _, tok := range toks[:len(toks)-1] {
		next, ok := obj[tok].(map[string]any)
		if !ok {
			t.Fatalf("pointer %s: %q is not an object", ptr, tok)
		}
		obj = next
	}
	last := toks[len(toks)-1]
	if del {
		if _, ok := obj[last]; !ok {
			t.Fatalf("pointer %s: nothing to delete", ptr)
		}
		delete(obj, last)
		return
	}
	obj[last] = v
}

func TestValidateReportsEveryProblemAtOnce(t *testing.T) {
	r := load(t)
	ex := readExample(t, "status.incident.created")
	ex.Payload["revision"] = 2
	ex.Payload["extra"] = true
	delete(ex.Payload, "title")
	payload, _ := json.Marshal(ex.Payload)

	err := r.Validate("status.incident.created", "incident:1", payload)
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("got %v", err)
	}
	for _, want := range []string{"", "/extra", "/revision", "/title"} {
		if !hasProblem(ve, want, "") {
			t.Errorf("no problem at %q in %v", want, ve.Problems)
		}
	}
	if len(ve.Problems) != 4 {
		t.Errorf("want 4 problems, got %v", ve.Problems)
	}
	for _, s := range []string{"status.incident.created", "/extra", "/revision", "/title", "idempotency key"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("Error() %q lacks %q", err.Error(), s)
		}
	}
}

func TestValidateRejectsUnknownTypeAndBadJSON(t *testing.T) {
	r := load(t)
	for name, tc := range map[string]struct{ typ, payload string }{
		"unknown type":   {"status.incident.deleted", `{}`},
		"not json":       {"status.incident.created", `{"title":`},
		"trailing data":  {"status.incident.created", readRawPayload(t, "status.incident.created") + `{}`},
		"array root":     {"status.incident.created", `[]`},
		"empty document": {"design.export.ready", ``},
	} {
		t.Run(name, func(t *testing.T) {
			err := r.Validate(tc.typ, "status:incident:inc_1:rev:1", []byte(tc.payload))
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("want *ValidationError, got %T %v", err, err)
			}
			if ve.Type != tc.typ || len(ve.Problems) == 0 {
				t.Errorf("got %+v", ve)
			}
		})
	}
}

func readRawPayload(t *testing.T, typ string) string {
	ex := readExample(t, typ)
	b, _ := json.Marshal(ex.Payload)
	return string(b)
}

func TestGetAndRawSchemaReturnCopies(t *testing.T) {
	r := load(t)
	c, _ := r.Get("gateway.delivery.failed")
	c.SensitiveFields[0] = "changed"
	raw, _ := r.RawSchema("gateway.delivery.failed")
	raw[0] = 'X'

	c, _ = r.Get("gateway.delivery.failed")
	if c.SensitiveFields[0] != "error" {
		t.Error("Get exposes the registry's sensitive fields")
	}
	raw, _ = r.RawSchema("gateway.delivery.failed")
	if raw[0] != '{' {
		t.Error("RawSchema exposes the registry's bytes")
	}
}

func TestProblemPointerEscapesMemberNames(t *testing.T) {
	r := load(t)
	ex := readExample(t, "design.export.ready")
	ex.Payload["a/b~c"] = 1
	payload, _ := json.Marshal(ex.Payload)
	err := r.Validate("design.export.ready", ex.Key, payload)
	var ve *ValidationError
	if !errors.As(err, &ve) || !hasProblem(ve, "/a~1b~0c", "") {
		t.Fatalf("got %v", err)
	}
}

// A mapper's payload holds Go values (ints, string pointers, slices): the
// projection checks it as a value (ValidateValue), without encoding and
// parsing it again. Each verdict, valid or not, is the one its encoding
// gets, so an invalid payload is still caught; values whose encoding
// schema.JSONValue does not know (a struct, a string that is not UTF-8,
// a channel) take the encoding path.
func TestValidateValueAgreesWithTheEncoding(t *testing.T) {
	r := load(t)
	const typ, key = "status.incident.updated", "status:incident:inc_1:rev:2"
	host, empty := "api.example.com", ""
	base := func() map[string]any {
		return map[string]any{
			"title": "Elevated API errors", "body": "The cause has been identified.", "object_id": "inc_1",
			"occurred_at": "2026-05-02T10:15:00Z", "severity": "major", "object_type": "status_incident",
			"incident_id": "inc_1", "incident_status": "identified", "revision": 2, "component_host": (*string)(nil),
		}
	}
	cases := []struct {
		name  string
		set   map[string]any
		del   string
		valid bool
	}{
		{name: "valid, Go types", valid: true},
		{name: "host pointer", set: map[string]any{"component_host": &host}, valid: true},
		{name: "revision int64", set: map[string]any{"revision": int64(3)}, valid: true},
		{name: "revision zero", set: map[string]any{"revision": 0}},
		{name: "revision as float", set: map[string]any{"revision": 2.5}},
		{name: "revision as text", set: map[string]any{"revision": "2"}},
		{name: "empty title pointer", set: map[string]any{"title": &empty}},
		{name: "title missing", del: "title"},
		{name: "extra member", set: map[string]any{"extra": []string{"a"}}},
		{name: "bad date-time", set: map[string]any{"occurred_at": "yesterday"}},
		{name: "severity outside enum", set: map[string]any{"severity": "catastrophic"}},
		{name: "title not UTF-8", set: map[string]any{"title": "bad \xff byte"}, valid: true},
		{name: "struct member", set: map[string]any{"extra": struct{ A int }{1}}},
		{name: "unencodable", set: map[string]any{"extra": make(chan int)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := base()
			for k, v := range tc.set {
				p[k] = v
			}
			delete(p, tc.del)
			got := r.ValidateValue(typ, key, p)
			if (got == nil) != tc.valid {
				t.Fatalf("ValidateValue = %v, want valid %v", got, tc.valid)
			}
			raw, err := json.Marshal(p)
			if err != nil {
				if !strings.Contains(fmt.Sprint(got), "does not encode") {
					t.Fatalf("an unencodable payload: %v", got)
				}
				return
			}
			if want := r.Validate(typ, key, raw); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("ValidateValue: %v\nValidate of the encoding: %v", got, want)
			}
		})
	}
}
