package studio_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	domjobs "github.com/platform/backend/domain/jobs"
	domain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/notifications/contracts"
	studiomap "github.com/platform/backend/notifications/studio"
)

func ev(t *testing.T, typ string, payload any) eventstore.Event {
	t.Helper()
	raw, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	return eventstore.Event{ID: uuid.Must(uuid.NewV7()), Type: typ, SchemaVersion: 1, StreamType: "studio.x", StreamID: "s",
		StreamVersion: 1, OrganizationID: "org-1", RecordedAt: time.Now(), Payload: raw}
}

func ptr(s string) *string { return &s }

// TestStudioMappingValidates: every studio event the seed's table says
// notifies maps to a payload its contract accepts, under a key matching the
// contract's pattern, the same on every mapping of the event.
func TestStudioMappingValidates(t *testing.T) {
	reg, err := contracts.Load()
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 4, 10, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		event eventstore.Event
		typ   string
		key   string
	}{
		{ev(t, domain.PlanReady, domain.PlanV1{ProjectID: "p1", WorkspaceID: "w1", PlanID: "plan-1", At: at,
			Scenes: []domain.Scene{{SceneID: "s1", Position: 1, Title: "Hook", DurationMs: 3000}}}),
			"studio.plan.ready", "studio:plan:p1:ready:plan-1"},
		{ev(t, domain.ApprovalRequested, domain.ApprovalV1{ProjectID: "p1", WorkspaceID: "w1", Approval: domain.Approval{
			ApprovalRequestID: "a1", ProjectID: "p1", Status: "requested", ReviewerUserID: "u2", RequestedByUserID: "u1", RequestedAt: at}}),
			"studio.approval.requested", "studio:approval:a1:requested"},
		{ev(t, domain.ApprovalRequested, domain.ApprovalV1{ProjectID: "p1", WorkspaceID: "w1", Approval: domain.Approval{
			ApprovalRequestID: "a2", ProjectID: "p1", Status: "requested", ReviewerUserID: "u2", RequestedByUserID: "u1", Note: ptr("Please"),
			RequestedAt: at}}), "studio.approval.requested", "studio:approval:a2:requested"},
		{ev(t, domain.QuotaWarningClaimed, domain.QuotaWarningV1{WarningID: "q1", WorkspaceID: "w1", Action: domain.QuotaRenders,
			PeriodKey: "2026-04", Used: 80, Limit: 100, Warning: "80 of 100", At: at}),
			"studio.quota.warning", "studio:quota-warning:w1:projects.render_jobs.create:2026-04"},
		{ev(t, domain.AssetStored, domain.AssetV1{ObjectKey: "k", Asset: domain.Asset{AssetID: "as1", WorkspaceID: "w1", ProjectID: ptr("p1"),
			Kind: "image", ContentType: "image/png", Source: domain.SourceGeneration, JobID: ptr("g1"), SceneID: ptr("s1"), CreatedAt: at}}),
			"studio.asset.ready", "studio:asset:as1:ready"},
		{jobEvent(t, "succeeded", generationJob(t, domjobs.Succeeded, `{"asset_ids":["a1","a2"]}`, nil)),
			"studio.generation.completed", "studio:generation:g1:completed"},
		{jobEvent(t, "failed", generationJob(t, domjobs.Failed, "", &domjobs.Failure{Code: "spend_cap_exceeded", Reason: "the cap",
			Detail: json.RawMessage(`{"provider":"media-provider-2"}`)})), "studio.generation.failed", "studio:generation:g1:failed"},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			ns, err := studiomap.Mapping.Map(tt.event)
			if err != nil {
				t.Fatal(err)
			}
			if len(ns) != 1 || ns[0].Type != tt.typ || ns[0].IdempotencyKey != tt.key {
				t.Fatalf("got %+v, want one %s keyed %s", ns, tt.typ, tt.key)
			}
			raw, _ := json.Marshal(ns[0].Payload)
			if err := reg.Validate(ns[0].Type, ns[0].IdempotencyKey, raw); err != nil {
				t.Fatalf("contract: %v\npayload: %s", err, raw)
			}
			// The projection's check of the value the mapper built.
			if err := reg.ValidateValue(ns[0].Type, ns[0].IdempotencyKey, ns[0].Payload); err != nil {
				t.Fatalf("contract, checked as a value: %v", err)
			}
			again, _ := studiomap.Mapping.Map(tt.event)
			if again[0].IdempotencyKey != tt.key {
				t.Fatal("the key must be deterministic")
			}
		})
	}
}

// Uploaded, copied and rendered assets are not generated: no asset.ready.
func TestStudioMappingOnlyGeneratedAssets(t *testing.T) {
	for _, src := range []string{domain.SourceUpload, domain.SourceDuplicate, domain.SourceRender} {
		ns, err := studiomap.Mapping.Map(ev(t, domain.AssetStored, domain.AssetV1{Asset: domain.Asset{AssetID: "a", Source: src,
			ProjectID: ptr("p"), JobID: ptr("j"), SceneID: ptr("s")}}))
		if err != nil || len(ns) != 0 {
			t.Fatalf("%s: %v %v", src, ns, err)
		}
	}
}

// generationJob is a scenes generation job of request g1 in a state.
func generationJob(t *testing.T, state, result string, f *domjobs.Failure) domjobs.Job {
	t.Helper()
	in, _ := json.Marshal(domain.Generation{GenerationID: "g1", ProjectID: "p1", WorkspaceID: "w1", Kind: domain.GenerationScenes,
		SceneID: ptr("s1"), SceneIDs: []string{"s1"}, Provider: "media-provider-1", FallbackProvider: ptr("media-provider-2"), CandidateCount: 2,
		OutputKind: "image"})
	j := domjobs.Job{ID: "g1", Kind: domain.KindGenerate, OrganizationID: "org-1", State: state, Input: in, Attempt: 3, Failure: f}
	if result != "" {
		j.Result = json.RawMessage(result)
	}
	return j
}

func jobEvent(t *testing.T, name string, j domjobs.Job) eventstore.Event {
	return ev(t, "studio.job."+name, domjobs.Event{JobID: j.ID, Attempt: j.Attempt, At: time.Date(2026, 4, 10, 9, 0, 0, 0, time.UTC), Job: j})
}

// The generation contracts: a scenes job's completion (asset_count) and
// final failure (the provider tried last, the code) only; a failure the
// policy retries, a planning job (studio.plan.ready is its) and a render
// notify nothing.
func TestStudioMappingGenerationJobs(t *testing.T) {
	ns, err := studiomap.Mapping.Map(jobEvent(t, "succeeded", generationJob(t, domjobs.Succeeded, `{"asset_ids":["a1","a2"]}`, nil)))
	if err != nil || len(ns) != 1 || ns[0].Payload["payload"].(map[string]any)["asset_count"] != 2 {
		t.Fatalf("completed: %+v %v", ns, err)
	}
	ns, _ = studiomap.Mapping.Map(jobEvent(t, "failed", generationJob(t, domjobs.Failed, "", &domjobs.Failure{Code: "provider_error",
		Detail: json.RawMessage(`{"provider":"media-provider-2"}`)})))
	if p := ns[0].Payload["payload"].(map[string]any); p["provider"] != "media-provider-2" || p["error_code"] != "provider_error" || p["scene_id"] != "s1" {
		t.Fatalf("failed: %+v", p)
	}
	retry := time.Now()
	retried := generationJob(t, domjobs.Failed, "", &domjobs.Failure{Code: "provider_error", RetryAt: &retry})
	planning := generationJob(t, domjobs.Succeeded, `{"asset_ids":[],"plan_id":"plan-1"}`, nil)
	planning.Input, _ = json.Marshal(domain.Generation{GenerationID: "g1", ProjectID: "p1", Kind: domain.GenerationPlanning})
	render := domjobs.Job{ID: "r1", Kind: domain.KindRender, State: domjobs.Succeeded, Input: json.RawMessage(`{}`), Result: json.RawMessage(`{}`)}
	for name, e := range map[string]eventstore.Event{"a retried failure": jobEvent(t, "failed", retried),
		"a planning job": jobEvent(t, "succeeded", planning), "a render": jobEvent(t, "succeeded", render),
		"a claim": jobEvent(t, "claimed", generationJob(t, domjobs.Running, "", nil))} {
		if ns, err := studiomap.Mapping.Map(e); err != nil || len(ns) != 0 {
			t.Errorf("%s: %+v %v", name, ns, err)
		}
	}
}
