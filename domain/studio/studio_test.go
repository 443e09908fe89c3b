package studio_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/domain/erasure"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/event/eventtest"
	"github.com/platform/backend/domain/studio"
	"github.com/platform/backend/internal/schema"
)

var t0 = time.Date(2026, 4, 10, 9, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

func created(t *testing.T) event.Change {
	t.Helper()
	return event.New(studio.ProjectCreated, studio.ProjectV1{Project: studio.Project{ProjectID: "p1", WorkspaceID: "w1", Title: "Launch",
		CreatedBy: "k1", CreatedAt: t0, UpdatedAt: t0}})
}

func TestProject(t *testing.T) {
	t.Run("create trims and checks title and bounds", func(t *testing.T) {
		eventtest.Given(t, studio.LoadProject).When(func(m *studio.ProjectModel) ([]event.Change, error) {
			return m.Create(studio.NewProject{ID: "p1", WorkspaceID: "w1", CreatedBy: "k1", Title: " Launch "}, t0)
		}).Then(eventtest.Events(created(t)))
		eventtest.Given(t, studio.LoadProject).When(func(m *studio.ProjectModel) ([]event.Change, error) {
			return m.Create(studio.NewProject{ID: "p1", Title: "  ", TemplateID: ptr(strings.Repeat("x", 129)), Objective: ptr("a\x00b")}, t0)
		}).Then(eventtest.Invalid("/title", "/objective", "/templateId"))
		eventtest.Given(t, studio.LoadProject).When(func(m *studio.ProjectModel) ([]event.Change, error) {
			return m.Create(studio.NewProject{ID: "p1", Title: strings.Repeat("é", 256)}, t0)
		}).Then(eventtest.Invalid("/title"))
	})
	t.Run("update: nil keeps, blank clears, the same values change nothing", func(t *testing.T) {
		s := eventtest.Given(t, studio.LoadProject, created(t))
		s.When(func(m *studio.ProjectModel) ([]event.Change, error) {
			return m.Update(studio.ProjectChange{Title: ptr("Launch")}, t0.Add(time.Hour))
		}).Then(eventtest.NoEvents())
		out := s.When(func(m *studio.ProjectModel) ([]event.Change, error) {
			return m.Update(studio.ProjectChange{Objective: ptr("Grow")}, t0.Add(time.Hour))
		})
		after := eventtest.GivenHistory(t, studio.LoadProject, out.History()).Model().State()
		if after.Objective == nil || *after.Objective != "Grow" || !after.UpdatedAt.Equal(t0.Add(time.Hour)) {
			t.Fatalf("after update %+v", after)
		}
		out2 := eventtest.GivenHistory(t, studio.LoadProject, out.History()).When(func(m *studio.ProjectModel) ([]event.Change, error) {
			return m.Update(studio.ProjectChange{Objective: ptr(" ")}, t0)
		})
		if eventtest.GivenHistory(t, studio.LoadProject, out2.History()).Model().State().Objective != nil {
			t.Fatal("a blank objective clears it")
		}
	})
	t.Run("a deleted project is missing", func(t *testing.T) {
		out := eventtest.Given(t, studio.LoadProject, created(t)).When(func(m *studio.ProjectModel) ([]event.Change, error) { return m.Delete(t0) })
		s := eventtest.GivenHistory(t, studio.LoadProject, out.History())
		s.When(func(m *studio.ProjectModel) ([]event.Change, error) { return m.Delete(t0) }).Then(eventtest.NotFound())
		s.When(func(m *studio.ProjectModel) ([]event.Change, error) {
			return m.UpdateBrief(studio.BriefChange{Title: ptr("x")}, t0)
		}).Then(eventtest.NotFound())
		if s.Model().In("w1") == nil {
			t.Fatal("a deleted project is not in its workspace")
		}
	})
	t.Run("another workspace's project is missing", func(t *testing.T) {
		if err := eventtest.Given(t, studio.LoadProject, created(t)).Model().In("w2"); errs.KindOf(err) != errs.KindNotFound {
			t.Fatalf("In(w2) = %v", err)
		}
	})
	t.Run("scenes: add, insert, move, remove keep positions 1..n", func(t *testing.T) {
		s := eventtest.Given(t, studio.LoadProject, created(t))
		h := s.When(func(m *studio.ProjectModel) ([]event.Change, error) {
			return m.AddScene("a", studio.SceneInput{Title: ptr("A")}, t0)
		}).History()
		h = eventtest.GivenHistory(t, studio.LoadProject, h).When(func(m *studio.ProjectModel) ([]event.Change, error) {
			return m.AddScene("b", studio.SceneInput{Title: ptr("B"), DurationMs: ptr(5000)}, t0)
		}).History()
		h = eventtest.GivenHistory(t, studio.LoadProject, h).When(func(m *studio.ProjectModel) ([]event.Change, error) {
			return m.AddScene("c", studio.SceneInput{Title: ptr("C"), Position: ptr(1)}, t0)
		}).History()
		pos := func(h []event.Recorded) map[string]int {
			out := map[string]int{}
			for _, sc := range eventtest.GivenHistory(t, studio.LoadProject, h).Model().Scenes() {
				out[sc.SceneID] = sc.Position
			}
			return out
		}
		if p := pos(h); p["c"] != 1 || p["a"] != 2 || p["b"] != 3 {
			t.Fatalf("after insert at 1: %v", p)
		}
		h = eventtest.GivenHistory(t, studio.LoadProject, h).When(func(m *studio.ProjectModel) ([]event.Change, error) {
			return m.UpdateScene("c", studio.SceneInput{Position: ptr(3)}, t0)
		}).History()
		if p := pos(h); p["a"] != 1 || p["b"] != 2 || p["c"] != 3 {
			t.Fatalf("after move to 3: %v", p)
		}
		h = eventtest.GivenHistory(t, studio.LoadProject, h).When(func(m *studio.ProjectModel) ([]event.Change, error) {
			return m.RemoveScene("a", t0)
		}).History()
		m := eventtest.GivenHistory(t, studio.LoadProject, h).Model()
		if p := pos(h); p["b"] != 1 || p["c"] != 2 || len(p) != 2 || m.State().SceneCount != 2 {
			t.Fatalf("after remove: %v, count %d", p, m.State().SceneCount)
		}
		eventtest.GivenHistory(t, studio.LoadProject, h).When(func(m *studio.ProjectModel) ([]event.Change, error) {
			return m.AddScene("x", studio.SceneInput{Title: ptr("X"), DurationMs: ptr(99)}, t0)
		}).Then(eventtest.Invalid("/durationMs"))
		eventtest.GivenHistory(t, studio.LoadProject, h).When(func(m *studio.ProjectModel) ([]event.Change, error) {
			return m.UpdateScene("nowhere", studio.SceneInput{Title: ptr("X")}, t0)
		}).Then(eventtest.NotFound())
	})
	t.Run("a plan replaces the scenes once; its id again changes nothing", func(t *testing.T) {
		out := eventtest.Given(t, studio.LoadProject, created(t)).When(func(m *studio.ProjectModel) ([]event.Change, error) {
			return m.PersistPlan("plan-1", nil, []studio.SceneInput{{Title: ptr("Hook")}, {Title: ptr("CTA"), DurationMs: ptr(2000)}}, []string{"s1", "s2"}, t0)
		})
		m := eventtest.GivenHistory(t, studio.LoadProject, out.History()).Model()
		if m.State().PlanID == nil || *m.State().PlanID != "plan-1" || len(m.Scenes()) != 2 || m.Scenes()[1].DurationMs != 2000 {
			t.Fatalf("after plan: %+v %+v", m.State(), m.Scenes())
		}
		eventtest.GivenHistory(t, studio.LoadProject, out.History()).When(func(m *studio.ProjectModel) ([]event.Change, error) {
			return m.PersistPlan("plan-1", nil, nil, nil, t0)
		}).Then(eventtest.NoEvents())
		eventtest.Given(t, studio.LoadProject, created(t)).When(func(m *studio.ProjectModel) ([]event.Change, error) {
			return m.PersistPlan("plan-2", nil, []studio.SceneInput{{Title: ptr("")}}, []string{"s1"}, t0)
		}).Then(eventtest.Invalid("/scenes/0/title"))
	})
	t.Run("approvals: an active reviewer, one open request, decided once", func(t *testing.T) {
		s := eventtest.Given(t, studio.LoadProject, created(t))
		s.When(func(m *studio.ProjectModel) ([]event.Change, error) {
			return m.RequestApproval(studio.ApprovalRequest{ID: "a1", ReviewerUserID: "u2", RequestedByUserID: "u1"}, t0)
		}).Then(eventtest.Invalid("/reviewerUserId"))
		req := s.When(func(m *studio.ProjectModel) ([]event.Change, error) {
			return m.RequestApproval(studio.ApprovalRequest{ID: "a1", ReviewerUserID: "u2", RequestedByUserID: "u1", ReviewerActive: true, Note: ptr(" look ")}, t0)
		}).Then(eventtest.Events(event.New(studio.ApprovalRequested, studio.ApprovalV1{ProjectID: "p1", WorkspaceID: "w1",
			Approval: studio.Approval{ApprovalRequestID: "a1", ProjectID: "p1", Status: "requested", ReviewerUserID: "u2",
				RequestedByUserID: "u1", Note: ptr("look"), RequestedAt: t0}})))
		open := eventtest.GivenHistory(t, studio.LoadProject, req.History())
		open.When(func(m *studio.ProjectModel) ([]event.Change, error) {
			return m.RequestApproval(studio.ApprovalRequest{ID: "a2", ReviewerUserID: "u2", ReviewerActive: true}, t0)
		}).Then(eventtest.Conflict("approval_pending"))
		decided := open.When(func(m *studio.ProjectModel) ([]event.Change, error) {
			return m.DecideApproval("a1", false, "u2", ptr("no"), t0)
		})
		done := eventtest.GivenHistory(t, studio.LoadProject, decided.History())
		if a, _ := done.Model().Approval("a1"); a.Status != "rejected" || *a.DecidedBy != "u2" {
			t.Fatalf("after reject %+v", a)
		}
		done.When(func(m *studio.ProjectModel) ([]event.Change, error) {
			return m.DecideApproval("a1", true, "u2", nil, t0)
		}).Then(eventtest.Conflict("invalid_transition"))
		done.When(func(m *studio.ProjectModel) ([]event.Change, error) {
			return m.DecideApproval("nope", true, "u2", nil, t0)
		}).Then(eventtest.NotFound())
	})
}

func snapshot() studio.Snapshot {
	return studio.Snapshot{FPS: 30, Fonts: []studio.Font{{FontID: "brand", Family: "Inter", AssetID: ptr("font-asset")}},
		Scenes: []studio.SnapshotScene{
			{SceneID: "s1", DurationMs: 2000, Background: studio.Background{Type: "color", Color: "#112233"},
				Layers: []studio.Layer{{Type: "text", LayerID: "t1", Text: "Hello", FontID: "brand", EndMs: ptr(1500)},
					{Type: "image", LayerID: "i1", AssetID: "logo"}},
				Transition: &studio.Transition{Type: "fade", DurationMs: 500}},
			{SceneID: "s2", DurationMs: 1000, Background: studio.Background{Type: "asset", AssetID: "bg"},
				Layers: []studio.Layer{{Type: "video", LayerID: "v1", AssetID: "clip", StartMs: 100}}},
		}}
}

func TestSnapshot(t *testing.T) {
	t.Run("the schema holds no references and accepts a valid snapshot", func(t *testing.T) {
		if strings.Contains(string(studio.SnapshotSchema), "$ref") || strings.Contains(string(studio.SnapshotSchema), "$defs") {
			t.Fatal("the inlined schema still refers to definitions")
		}
		c := schema.NewCompiler()
		var doc any
		if err := json.Unmarshal(studio.SnapshotSchema, &doc); err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource("snapshot.json", doc); err != nil {
			t.Fatal(err)
		}
		s, err := c.Compile("snapshot.json")
		if err != nil {
			t.Fatal(err)
		}
		good, _ := json.Marshal(snapshot())
		if p := schema.Validate(s, good); len(p) != 0 {
			t.Fatalf("a valid snapshot: %+v", p)
		}
		bad := []struct{ doc, pointer string }{
			{`{"scenes":[]}`, "/scenes"},
			{`{"scenes":[{"sceneId":"s","durationMs":50,"background":{"type":"color","color":"#000000"}}]}`, "/scenes/0/durationMs"},
			{`{"scenes":[{"sceneId":"s","durationMs":500,"background":{"type":"color","color":"red"}}]}`, "/scenes/0/background"},
			{`{"scenes":[{"sceneId":"s","durationMs":500,"background":{"type":"color","color":"#000000"},"transition":{"type":"wipe"}}]}`, "/scenes/0/transition"},
			{`{"scenes":[{"sceneId":"s","durationMs":500,"background":{"type":"color","color":"#000000"},"layers":[{"type":"text","layerId":"l","text":"x","x":1.5}]}]}`, "/scenes/0/layers/0"},
		}
		for _, b := range bad {
			p := schema.Validate(s, []byte(b.doc))
			if len(p) == 0 || !strings.HasPrefix(p[0].Pointer, b.pointer) {
				t.Errorf("%s: problems %+v, want at %s", b.doc, p, b.pointer)
			}
		}
	})
	t.Run("what the schema cannot say", func(t *testing.T) {
		if f := snapshot().Validate(); len(f) != 0 {
			t.Fatalf("a valid snapshot: %+v", f)
		}
		s := snapshot()
		s.Scenes[1].SceneID = "s1"
		s.Scenes[0].Layers[1].LayerID = "t1"
		s.Scenes[0].Layers[0].FontID = "nope"
		s.Scenes[0].Layers[0].EndMs = ptr(2500)
		s.Scenes[1].Layers[0].StartMs = 1000
		s.Scenes[0].Transition.DurationMs = 2500
		var got []string
		for _, f := range s.Validate() {
			got = append(got, f.Pointer)
		}
		want := []string{"/scenes/0/transition/durationMs", "/scenes/0/layers/0/endMs", "/scenes/0/layers/0/fontId",
			"/scenes/0/layers/1/layerId", "/scenes/1/sceneId", "/scenes/1/layers/0/startMs"}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("pointers %v, want %v", got, want)
		}
	})
	t.Run("assets, duration and frame", func(t *testing.T) {
		s := snapshot()
		a := s.Assets()
		if len(a) != 4 || a["/fonts/0/assetId"] != "font-asset" || a["/scenes/1/background/assetId"] != "bg" || a["/scenes/1/layers/0/assetId"] != "clip" {
			t.Fatalf("assets %v", a)
		}
		if s.Duration() != 3000 {
			t.Fatalf("duration %d", s.Duration())
		}
		if w, h := s.Frame(studio.AspectPortrait); w != 1080 || h != 1920 {
			t.Fatalf("portrait frame %dx%d", w, h)
		}
		s.Resolution = "720p"
		if w, h := s.Frame(studio.AspectLandscape); w != 1280 || h != 720 {
			t.Fatalf("landscape 720p frame %dx%d", w, h)
		}
	})
}

func TestComposition(t *testing.T) {
	create := func(n studio.NewComposition) eventtest.Outcome {
		return eventtest.Given(t, studio.LoadComposition).When(func(m *studio.CompositionModel) ([]event.Change, error) { return m.Create(n, t0) })
	}
	t.Run("defaults: manual and completed; ai_generated starts pending", func(t *testing.T) {
		m := eventtest.GivenHistory(t, studio.LoadComposition, create(studio.NewComposition{ID: "c1", ProjectID: "p1", WorkspaceID: "w1",
			Title: "Cut 1", AspectRatio: studio.AspectPortrait, Snapshot: snapshot()}).History()).Model()
		if c := m.State(); c.SourceKind != "manual" || c.GenerationStatus != "completed" || c.Notes == nil || c.Revision != 1 {
			t.Fatalf("%+v", c)
		}
		m = eventtest.GivenHistory(t, studio.LoadComposition, create(studio.NewComposition{ID: "c1", Title: "Cut 1",
			AspectRatio: studio.AspectPortrait, Snapshot: snapshot(), SourceKind: "ai_generated"}).History()).Model()
		if m.State().GenerationStatus != "pending" {
			t.Fatalf("%+v", m.State())
		}
	})
	t.Run("invalid members at their pointers, the snapshot's under /snapshot", func(t *testing.T) {
		s := snapshot()
		s.Scenes[1].SceneID = "s1"
		create(studio.NewComposition{ID: "c1", Title: "", AspectRatio: "square", Snapshot: s, Notes: []string{"ok", " "}, SourceKind: "x"}).
			Then(eventtest.Invalid("/title", "/aspectRatio", "/sourceKind", "/notes/1", "/snapshot/scenes/1/sceneId"))
	})
	t.Run("the generation status machine", func(t *testing.T) {
		cases := []struct {
			from, to string
			ok       bool
		}{
			{"pending", "queued", true}, {"queued", "running", true}, {"running", "completed", true}, {"running", "failed", true},
			{"pending", "cancelled", true}, {"running", "queued", true}, {"running", "pending", false},
			{"completed", "running", false}, {"failed", "queued", false}, {"cancelled", "completed", false},
		}
		for _, c := range cases {
			h := create(studio.NewComposition{ID: "c1", Title: "T", AspectRatio: studio.AspectPortrait, Snapshot: snapshot(), GenerationStatus: c.from}).History()
			o := eventtest.GivenHistory(t, studio.LoadComposition, h).When(func(m *studio.CompositionModel) ([]event.Change, error) {
				return m.Update(studio.CompositionChange{GenerationStatus: ptr(c.to)}, t0)
			})
			if c.ok {
				got := eventtest.GivenHistory(t, studio.LoadComposition, o.History()).Model().State()
				if got.GenerationStatus != c.to || got.Revision != 2 {
					t.Errorf("%s -> %s: %+v", c.from, c.to, got)
				}
			} else {
				o.Then(eventtest.Conflict("invalid_transition"))
			}
		}
	})
}

func TestRenderJob(t *testing.T) {
	queued := func(t *testing.T) []event.Recorded {
		return eventtest.Given(t, studio.LoadRenderJob).When(func(m *studio.RenderJobModel) ([]event.Change, error) {
			return m.Create(studio.NewRenderJob{ID: "r1", ProjectID: "p1", WorkspaceID: "w1", CompositionVersionID: "c1", Priority: 5}, t0)
		}).History()
	}
	report := func(h []event.Recorded, r studio.RenderReport) eventtest.Outcome {
		return eventtest.GivenHistory(t, studio.LoadRenderJob, h).When(func(m *studio.RenderJobModel) ([]event.Change, error) {
			return m.Report(r, t0.Add(time.Minute))
		})
	}
	state := func(h []event.Recorded) studio.RenderJob {
		return eventtest.GivenHistory(t, studio.LoadRenderJob, h).Model().State()
	}
	t.Run("create: defaults and bounds", func(t *testing.T) {
		j := state(queued(t))
		if j.Provider != "platform" || j.OutputFormat != "mp4" || j.RenderStatus != "queued" || j.Priority != 5 || j.Attempts != 0 {
			t.Fatalf("%+v", j)
		}
		eventtest.Given(t, studio.LoadRenderJob).When(func(m *studio.RenderJobModel) ([]event.Change, error) {
			return m.Create(studio.NewRenderJob{ID: "r1", Priority: 11, OutputFormat: "avi", Provider: strings.Repeat("p", 256)}, t0)
		}).Then(eventtest.Invalid("/provider", "/outputFormat", "/priority"))
	})
	t.Run("queued -> rendering -> completed: attempts, progress, times", func(t *testing.T) {
		h := report(queued(t), studio.RenderReport{RenderStatus: ptr("rendering")}).History()
		if j := state(h); j.Attempts != 1 || j.StartedAt == nil || j.Progress != 0 {
			t.Fatalf("rendering %+v", j)
		}
		h = report(h, studio.RenderReport{Progress: ptr(40)}).History()
		if state(h).Progress != 40 {
			t.Fatalf("progress %+v", state(h))
		}
		report(h, studio.RenderReport{Progress: ptr(101)}).Then(eventtest.Invalid("/progress"))
		report(h, studio.RenderReport{RenderStatus: ptr("completed")}).Then(eventtest.Invalid("/outputAssetId"))
		report(h, studio.RenderReport{RenderStatus: ptr("completed"), OutputAssetID: ptr("a1"), FailureReason: ptr("x")}).Then(eventtest.Invalid("/failureReason"))
		h = report(h, studio.RenderReport{RenderStatus: ptr("completed"), OutputAssetID: ptr("a1")}).History()
		if j := state(h); j.Progress != 100 || *j.OutputAssetID != "a1" || j.CompletedAt == nil {
			t.Fatalf("completed %+v", j)
		}
	})
	t.Run("terminal stays terminal", func(t *testing.T) {
		for _, end := range []studio.RenderReport{
			{RenderStatus: ptr("failed"), FailureReason: ptr("encoder crashed")},
			{RenderStatus: ptr("cancelled")},
		} {
			h := report(report(queued(t), studio.RenderReport{RenderStatus: ptr("rendering")}).History(), end).History()
			for _, next := range []string{"queued", "rendering", "completed", "failed", "cancelled"} {
				r := studio.RenderReport{RenderStatus: ptr(next)}
				if next == "completed" {
					r.OutputAssetID = ptr("a1")
				}
				report(h, r).Then(eventtest.Conflict("invalid_transition"))
			}
			eventtest.GivenHistory(t, studio.LoadRenderJob, h).When(func(m *studio.RenderJobModel) ([]event.Change, error) {
				return m.Cancel(t0)
			}).Then(eventtest.Conflict("invalid_transition"))
		}
	})
	t.Run("moves the machine refuses", func(t *testing.T) {
		report(queued(t), studio.RenderReport{RenderStatus: ptr("completed"), OutputAssetID: ptr("a1")}).Then(eventtest.Conflict("invalid_transition"))
		h := report(queued(t), studio.RenderReport{RenderStatus: ptr("failed")}).History()
		if j := state(h); *j.FailureReason != "render_failed" {
			t.Fatalf("a failure without a reason: %+v", j)
		}
	})
	t.Run("a lost worker gives the job back; the next start is a second attempt", func(t *testing.T) {
		h := report(queued(t), studio.RenderReport{RenderStatus: ptr("rendering")}).History()
		h = report(h, studio.RenderReport{RenderStatus: ptr("queued")}).History()
		h = report(h, studio.RenderReport{RenderStatus: ptr("rendering")}).History()
		if j := state(h); j.Attempts != 2 || j.RenderStatus != "rendering" {
			t.Fatalf("%+v", j)
		}
	})
	t.Run("cancel emits cancelled", func(t *testing.T) {
		eventtest.GivenHistory(t, studio.LoadRenderJob, queued(t)).When(func(m *studio.RenderJobModel) ([]event.Change, error) {
			changes, err := m.Cancel(t0)
			if err == nil && (len(changes) != 1 || changes[0].Type != studio.RenderJobCancelled) {
				t.Fatalf("cancel decided %v", changes)
			}
			return nil, err
		})
	})
}

func TestGeneration(t *testing.T) {
	req := func(kind string, in studio.GenerationInput) eventtest.Outcome {
		return eventtest.Given(t, studio.LoadGeneration).When(func(m *studio.GenerationModel) ([]event.Change, error) {
			return m.Request(studio.NewGeneration{ID: "g1", ProjectID: "p1", WorkspaceID: "w1", Kind: kind, SceneID: ptr("s1"),
				KnownScenes: []string{"s1", "s2"}, Input: in, RequestedBy: "k1", ChargedTo: "u1"}, t0)
		})
	}
	g := eventtest.GivenHistory(t, studio.LoadGeneration, req(studio.GenerationScenes, studio.GenerationInput{}).History()).Model().State()
	if g.Provider != "gateway-configured" || g.CandidateCount != 1 || g.OutputKind != "image" || len(g.SceneIDs) != 1 || g.Status != "queued" {
		t.Fatalf("defaults %+v", g)
	}
	req(studio.GenerationScenes, studio.GenerationInput{SceneIDs: []string{}, CandidateCount: ptr(5), VideoDurationSeconds: ptr(16),
		GatewayModelOverride: ptr(strings.Repeat("m", 201)), Provider: ptr("nope")}).
		Then(eventtest.Invalid("/provider", "/candidateCount", "/videoDurationSeconds", "/gatewayModelOverride", "/sceneIds"))
	req(studio.GenerationScenes, studio.GenerationInput{SceneIDs: []string{"s2", "s9"}, VideoDurationSeconds: ptr(5),
		FallbackProvider: ptr("gateway-configured")}).Then(eventtest.Invalid("/fallbackProvider", "/videoDurationSeconds", "/sceneIds/1"))
	req(studio.GenerationScenes, studio.GenerationInput{OutputKind: ptr("video"), VideoDurationSeconds: ptr(15), CandidateCount: ptr(4),
		GatewayProviderOverride: ptr("ai_provider_3"), GatewayModelOverride: ptr("m")}).Then(eventtest.Events(event.New(studio.GenerationRequested,
		studio.GenerationV1{Generation: studio.Generation{GenerationID: "g1", ProjectID: "p1", WorkspaceID: "w1", Kind: "scenes",
			SceneID: ptr("s1"), SceneIDs: []string{"s1"}, Provider: "gateway-configured", CandidateCount: 4, OutputKind: "video",
			VideoDurationSeconds: ptr(15), GatewayProviderOverride: ptr("ai_provider_3"), GatewayModelOverride: ptr("m"),
			Status: "queued", AssetIDs: []string{}, RequestedBy: "k1", ChargedTo: "u1", CreatedAt: t0, UpdatedAt: t0}})))
	req(studio.GenerationPlanning, studio.GenerationInput{SceneCount: ptr(21)}).Then(eventtest.Invalid("/sceneCount"))
}

func TestPreviewToken(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	exp := t0.Add(time.Hour).Unix()
	tok := studio.PreviewToken(key, "a1", "w1", exp)
	cases := []struct {
		name                      string
		asset, ws, expires, token string
		now                       time.Time
		want                      bool
	}{
		{"valid", "a1", "w1", itoa(exp), tok, t0, true},
		{"expired", "a1", "w1", itoa(exp), tok, t0.Add(2 * time.Hour), false},
		{"expiry moved", "a1", "w1", itoa(exp + 3600), tok, t0, false},
		{"another asset", "a2", "w1", itoa(exp), tok, t0, false},
		{"another workspace", "a1", "w2", itoa(exp), tok, t0, false},
		{"altered token", "a1", "w1", itoa(exp), tok[:len(tok)-1] + "A", t0, false},
		{"not a number", "a1", "w1", "soon", tok, t0, false},
		{"another key", "a1", "w1", itoa(exp), studio.PreviewToken([]byte("other"), "a1", "w1", exp), t0, false},
	}
	for _, c := range cases {
		if got := studio.PreviewValid(key, c.asset, c.ws, c.expires, c.token, c.now); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestTemplatesAndPresets(t *testing.T) {
	eventtest.Given(t, studio.LoadTemplate).When(func(m *studio.TemplateModel) ([]event.Change, error) {
		return m.Create("t1", "w1", "k1", studio.TemplateInput{Name: ptr("Reel"), PromptDefaults: &studio.Values{"tone": "fun", "n": 3.0, "ok": true, "x": nil},
			Platforms: &[]string{"network_2", "network_1", "network_2"}}, t0)
	}).Then(eventtest.Events(event.New(studio.TemplateCreated, studio.TemplateV1{Template: studio.Template{TemplateID: "t1", WorkspaceID: "w1",
		Name: "Reel", PromptDefaults: studio.Values{"tone": "fun", "n": 3.0, "ok": true, "x": nil}, Platforms: []string{"network_1", "network_2"},
		OwnerID: "k1", CreatedAt: t0, UpdatedAt: t0}})))
	eventtest.Given(t, studio.LoadTemplate).When(func(m *studio.TemplateModel) ([]event.Change, error) {
		return m.Create("t1", "w1", "k1", studio.TemplateInput{Name: ptr(""), PromptDefaults: &studio.Values{"bad key": 1.0, "obj": map[string]any{}},
			Platforms: &[]string{"network_7"}}, t0)
	}).Then(eventtest.Invalid("/name", "/promptDefaults/bad key", "/promptDefaults/obj", "/platforms/0"))
	h := eventtest.Given(t, studio.LoadPreset).When(func(m *studio.PresetModel) ([]event.Change, error) {
		return m.Create("s1", "w1", "k1", studio.PresetInput{Name: ptr("Bold")}, t0)
	}).History()
	eventtest.GivenHistory(t, studio.LoadPreset, h).When(func(m *studio.PresetModel) ([]event.Change, error) {
		return m.Update(studio.PresetInput{Name: ptr("Bold")}, t0)
	}).Then(eventtest.NoEvents())
	if eventtest.GivenHistory(t, studio.LoadPreset, h).Model().In("w2") == nil {
		t.Fatal("another workspace's preset is missing")
	}
}

func TestQuota(t *testing.T) {
	for _, c := range []struct {
		used, limit, percent int
		want                 bool
	}{{79, 100, 80, false}, {80, 100, 80, true}, {1, 1, 80, true}, {5, 0, 80, false}} {
		if got := studio.Warns(c.used, c.limit, c.percent); got != c.want {
			t.Errorf("Warns(%d, %d, %d) = %v", c.used, c.limit, c.percent, got)
		}
	}
	if studio.PeriodKey(time.Date(2026, 12, 31, 23, 59, 0, 0, time.UTC)) != "2026-12" ||
		!studio.PeriodEnd(time.Date(2026, 12, 31, 23, 59, 0, 0, time.UTC)).Equal(time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatal("period of December")
	}
	claim := studio.QuotaClaim{Action: studio.QuotaRenders, PeriodKey: "2026-04", Used: 80, Limit: 100}
	out := eventtest.Given(t, studio.LoadQuota).When(func(m *studio.QuotaModel) ([]event.Change, error) { return m.ClaimWarning("w1", claim, t0) })
	eventtest.GivenHistory(t, studio.LoadQuota, out.History()).When(func(m *studio.QuotaModel) ([]event.Change, error) {
		return m.ClaimWarning("w1", studio.QuotaClaim{Action: studio.QuotaRenders, PeriodKey: "2026-04", Used: 90, Limit: 100}, t0)
	}).Then(eventtest.NoEvents())
	if studio.WarningID("w1", studio.QuotaRenders, "2026-04") == studio.WarningID("w1", studio.QuotaRenders, "2026-05") {
		t.Fatal("a month has its own warning id")
	}
}

// TestErase: the studio records an erasure's stored files as asset_objects
// (the rule is domain/erasure's).
func TestErase(t *testing.T) {
	eventtest.Given(t, studio.Erasures.Load).When(func(m *erasure.Model) ([]event.Change, error) {
		return m.Erase("o1", erasure.Confirmation, 3, 2, t0)
	}).Then(eventtest.Events(event.New(studio.OrganizationDataErased, studio.DataErasedV1{OrganizationID: "o1", Objects: 3, AssetObjects: 2, At: t0})))
}
