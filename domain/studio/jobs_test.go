package studio_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/jobs"
	"github.com/platform/backend/domain/studio"
)

// TestRenderJobOf: a platform render's status is its kernel job's state in
// the seed's words.
func TestRenderJobOf(t *testing.T) {
	created := studio.RenderJob{RenderJobID: "r1", Provider: "platform", RenderStatus: studio.RenderQueued, CreatedAt: t0, UpdatedAt: t0}
	later, retryAt := t0.Add(time.Minute), t0.Add(time.Hour)
	tests := []struct {
		name string
		job  jobs.Job
		want string
		with func(r studio.RenderJob) bool
	}{
		{"requested", jobs.Job{State: jobs.Queued}, studio.RenderQueued, func(r studio.RenderJob) bool { return r.Attempts == 0 }},
		{"claimed", jobs.Job{State: jobs.Running, Attempt: 1, Progress: 40, StartedAt: &t0, UpdatedAt: later}, studio.RenderRendering,
			func(r studio.RenderJob) bool {
				return r.Attempts == 1 && r.Progress == 40 && r.StartedAt.Equal(t0) && r.UpdatedAt.Equal(later)
			}},
		{"probed", jobs.Job{State: jobs.Unconfirmed, Attempt: 1}, studio.RenderRendering, nil},
		{"succeeded", jobs.Job{State: jobs.Succeeded, Attempt: 2, Progress: 100, Result: json.RawMessage(`{"asset_id":"a1"}`), FinishedAt: &later},
			studio.RenderCompleted, func(r studio.RenderJob) bool {
				return *r.OutputAssetID == "a1" && r.Progress == 100 && r.CompletedAt.Equal(later) && r.FailureReason == nil
			}},
		{"failed, a retry on its way", jobs.Job{State: jobs.Failed, Attempt: 1, Failure: &jobs.Failure{Code: "render_failed", RetryAt: &retryAt}},
			studio.RenderQueued, func(r studio.RenderJob) bool { return r.FailureReason == nil && r.CompletedAt == nil }},
		{"failed for good", jobs.Job{State: jobs.Failed, Attempt: 3, Failure: &jobs.Failure{Code: "unrenderable", Reason: "/snapshot/fonts/0: not a font"},
			FinishedAt: &later}, studio.RenderFailed, func(r studio.RenderJob) bool {
			return *r.FailureReason == "/snapshot/fonts/0: not a font" && *r.FailureCode == "unrenderable" && r.CompletedAt.Equal(later)
		}},
		{"lost", jobs.Job{State: jobs.Failed, Attempt: 3, Failure: &jobs.Failure{Code: jobs.CodeLost}}, studio.RenderFailed,
			func(r studio.RenderJob) bool { return *r.FailureReason == jobs.CodeLost }},
		{"cancelled", jobs.Job{State: jobs.Cancelled, FinishedAt: &later}, studio.RenderCancelled,
			func(r studio.RenderJob) bool { return r.CompletedAt.Equal(later) }},
	}
	for _, tt := range tests {
		r := studio.RenderJobOf(created, tt.job)
		if r.RenderStatus != tt.want || tt.with != nil && !tt.with(r) || r.RenderJobID != "r1" {
			t.Errorf("%s: %+v", tt.name, r)
		}
	}
}

// TestPlatformReport: a report on a platform render is an outcome of its
// running attempt or a cancellation, on the render machine's terms.
func TestPlatformReport(t *testing.T) {
	rendering := studio.RenderJob{Provider: "platform", RenderStatus: studio.RenderRendering}
	queued := studio.RenderJob{Provider: "platform", RenderStatus: studio.RenderQueued}
	failed := studio.RenderJob{Provider: "platform", RenderStatus: studio.RenderFailed}
	s := func(v string) *string { return &v }
	tests := []struct {
		name string
		cur  studio.RenderJob
		r    studio.RenderReport
		want studio.PlatformMove
		code string
	}{
		{"completed", rendering, studio.RenderReport{RenderStatus: s("completed"), OutputAssetID: s("a1")}, studio.PlatformMove{To: "completed", AssetID: "a1"}, ""},
		{"failed with a reason", rendering, studio.RenderReport{RenderStatus: s("failed"), FailureReason: s(" GPU lost ")}, studio.PlatformMove{To: "failed", Reason: "GPU lost"}, ""},
		{"failed without", rendering, studio.RenderReport{RenderStatus: s("failed")}, studio.PlatformMove{To: "failed", Reason: "render_failed"}, ""},
		{"cancelled while queued", queued, studio.RenderReport{RenderStatus: s("cancelled")}, studio.PlatformMove{To: "cancelled", Cancel: true}, ""},
		{"progress is the workers'", rendering, studio.RenderReport{Progress: ptr(50)}, studio.PlatformMove{}, "invalid_transition"},
		{"rendering is the workers'", queued, studio.RenderReport{RenderStatus: s("rendering")}, studio.PlatformMove{}, "invalid_transition"},
		{"a queued job has no attempt to fail", queued, studio.RenderReport{RenderStatus: s("failed")}, studio.PlatformMove{}, "invalid_transition"},
		{"terminal stays", failed, studio.RenderReport{RenderStatus: s("cancelled")}, studio.PlatformMove{}, "invalid_transition"},
		{"completed names its output", rendering, studio.RenderReport{RenderStatus: s("completed")}, studio.PlatformMove{}, "invalid_input"},
	}
	for _, tt := range tests {
		got, err := studio.PlatformReport(tt.cur, tt.r)
		if errs.CodeOf(err) != tt.code || err == nil && got != tt.want {
			t.Errorf("%s: %+v %v", tt.name, got, err)
		}
	}
	// The guard, on the kernel job under its lock: a failed job is final
	// for a render (the kernel would let a person retry it).
	created := studio.RenderJob{Provider: "platform"}
	if err := studio.RenderGuard(created, studio.RenderCancelled)(jobs.Job{State: jobs.Failed, Failure: &jobs.Failure{Code: "x"}}); errs.CodeOf(err) != "invalid_transition" {
		t.Errorf("cancel a failed render: %v", err)
	}
	if err := studio.RenderGuard(created, studio.RenderCompleted)(jobs.Job{State: jobs.Queued}); errs.CodeOf(err) != "invalid_transition" {
		t.Errorf("complete a queued render: %v", err)
	}
	if err := studio.RenderGuard(created, studio.RenderCompleted)(jobs.Job{State: jobs.Running}); err != nil {
		t.Errorf("complete a running render: %v", err)
	}
}

// TestGenerationOf: a generation request's status, assets, plan and
// failure (with the provider tried last) follow its kernel job.
func TestGenerationOf(t *testing.T) {
	created := studio.Generation{GenerationID: "g1", Status: studio.GenQueued, AssetIDs: []string{}}
	g := studio.GenerationOf(created, jobs.Job{State: jobs.Succeeded, Attempt: 1, Result: json.RawMessage(`{"asset_ids":["a","b"],"provider":"ai_provider_3"}`)})
	if g.Status != studio.GenCompleted || len(g.AssetIDs) != 2 || *g.ProviderUsed != "ai_provider_3" || g.Attempts != 1 {
		t.Errorf("completed %+v", g)
	}
	g = studio.GenerationOf(created, jobs.Job{State: jobs.Failed, Attempt: 3, Failure: &jobs.Failure{Code: "provider_error", Reason: "the provider failed",
		Detail: json.RawMessage(`{"provider":"media-provider-2"}`)}})
	if g.Status != studio.GenFailed || *g.FailureCode != "provider_error" || *g.FailedProvider != "media-provider-2" || len(g.AssetIDs) != 0 {
		t.Errorf("failed %+v", g)
	}
	retry := t0
	for state, want := range map[string]string{jobs.Queued: studio.GenQueued, jobs.Running: studio.GenRunning, jobs.Unconfirmed: studio.GenRunning,
		jobs.Cancelled: studio.GenCancelled} {
		if g := studio.GenerationOf(created, jobs.Job{State: state}); g.Status != want {
			t.Errorf("%s: %s", state, g.Status)
		}
	}
	if g := studio.GenerationOf(created, jobs.Job{State: jobs.Failed, Failure: &jobs.Failure{RetryAt: &retry}}); g.Status != studio.GenQueued || g.FailureCode != nil {
		t.Errorf("a retry on its way: %+v", g)
	}
	if studio.FailedFinally(jobs.Job{State: jobs.Failed, Failure: &jobs.Failure{RetryAt: &retry}}) || !studio.FailedFinally(jobs.Job{State: jobs.Failed, Failure: &jobs.Failure{}}) {
		t.Error("FailedFinally")
	}
}
