package studio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/commands/jobs"
	"github.com/platform/backend/commands/studio/render"
	"github.com/platform/backend/commands/workspace"
	"github.com/platform/backend/domain/errs"
	domjobs "github.com/platform/backend/domain/jobs"
	domain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/internal/media"
)

// Gateway is the usage gateway as the studio's generation jobs call it
// (the module adapts the gateway's in-process client): every call metered
// and under the organization's spend caps (a refused reservation is
// errs.KindPaymentRequired), and made under its idempotency key, whose
// answer the gateway keeps: the same call again under the key answers it
// with no provider call and no charge.
type Gateway interface {
	// Image draws one image (call.Prompt).
	Image(ctx context.Context, call GatewayCall) (GeneratedImage, error)
	// Complete answers a completion in JSON mode shaped by call.Schema.
	Complete(ctx context.Context, call GatewayCall) (Completion, error)
	// Kept answers the index of the first of calls whose answer the
	// gateway keeps under its key for the same request (-1: none).
	Kept(ctx context.Context, calls []GatewayCall) (int, error)
}

// GatewayCall is one call of a generation job.
type GatewayCall struct {
	OrganizationID string
	// ChargedTo is the user whose spend it counts against (the requester).
	ChargedTo string
	// Provider is the gateway's provider (ai_provider_N; "" the gateway's
	// choice) and Model its model ("" the provider's default).
	Provider, Model string
	Key             string
	// Images: Prompt. Completions: System, Prompt, Schema, MaxTokens.
	Image     bool
	System    string
	Prompt    string
	Schema    json.RawMessage
	MaxTokens int
}

// GeneratedImage is an image the gateway answered, and the provider that
// drew it.
type GeneratedImage struct {
	Data        []byte
	ContentType string
	Provider    string
}

// Completion is a completion's text, and the provider that wrote it.
type Completion struct {
	Text, Provider string
}

// gatewayProviders are the gateway providers of a generation request's
// provider member: the platform's media providers by the seed's order of
// image-capable providers (OpenAI, Gemini, Workers AI at the edge), and
// the gateway's own choice.
var gatewayProviders = map[string]string{
	"gateway-configured":  "",
	"media-provider-1":    "ai_provider_1",
	"media-provider-2":    "ai_provider_3",
	"edge-media-provider": "ai_provider_5",
}

// route is one provider a call may go to: the request's member (as the
// notifications name it), and the gateway's provider and model.
type route struct{ member, provider, model string }

// routes are the request's providers in order: its provider (with the
// gateway overrides, a workspace admin's), then its fallback (with the
// fallback's own default model: a model override names one provider's).
func routes(g domain.Generation) []route {
	first := route{member: g.Provider, provider: gatewayProviders[g.Provider]}
	if g.GatewayProviderOverride != nil {
		first.provider = *g.GatewayProviderOverride
	}
	if g.GatewayModelOverride != nil {
		first.model = *g.GatewayModelOverride
	}
	out := []route{first}
	if g.FallbackProvider != nil {
		out = append(out, route{member: *g.FallbackProvider, provider: gatewayProviders[*g.FallbackProvider]})
	}
	return out
}

// generationAssetID is candidate c of scene s of a generation job.
func generationAssetID(jobID, sceneID string, candidate int) string {
	return outputID(domain.KindGenerate, jobID, sceneID, strconv.Itoa(candidate))
}

// planID is a planning job's plan.
func planID(jobID string) string { return outputID(domain.KindGenerate, jobID, "plan") }

// generateDo is one attempt at a generation request.
func (j *Jobs) generateDo(ctx context.Context, a *jobs.Attempt[domain.Generation]) (domain.GenerationOutput, error) {
	g := a.Input
	if j.gateway == nil {
		return domain.GenerationOutput{}, jobs.Retryable("dependency_unavailable", "the usage gateway is not available here", 0)
	}
	pm, err := j.h.projectOf(ctx, a.OrganizationID, g.WorkspaceID, g.ProjectID)
	if err != nil {
		return domain.GenerationOutput{}, jobFailure(err, "generation_failed", "the project could not be read")
	}
	if g.Kind == domain.GenerationPlanning {
		return j.plan(ctx, a, pm)
	}
	return j.candidates(ctx, a, pm)
}

// call makes one gateway call of the attempt: replayed when an earlier
// attempt's call of the same request (any of its providers) was answered
// and kept, else to the request's provider, then its fallback when the
// first fails (a spend cap's refusal is no provider's failure: it ends
// the attempt). Each call's key is the attempt's key, the step and the
// provider member: "job:studio.generate:<id>:attempt:<n>:<step>:<member>".
func (j *Jobs) call(ctx context.Context, a *jobs.Attempt[domain.Generation], step string, base GatewayCall,
	do func(GatewayCall) error) (route, error) {
	// (The route answered names the request's member; the gateway's
	// answer names the provider that drew it.)
	rs := routes(a.Input)
	at := func(attempt int, r route) GatewayCall {
		c := base
		c.Provider, c.Model = r.provider, r.model
		c.Key = domjobs.AttemptKey(a.Kind, a.JobID, attempt) + ":" + step + ":" + r.member
		return c
	}
	if a.Number > 1 {
		var earlier []GatewayCall
		var their []route
		for n := 1; n < a.Number; n++ {
			for _, r := range rs {
				earlier, their = append(earlier, at(n, r)), append(their, r)
			}
		}
		i, err := j.gateway.Kept(ctx, earlier)
		if err != nil {
			return route{}, generationFailure(err, rs[0].member)
		}
		if i >= 0 {
			if err := do(earlier[i]); err == nil {
				return their[i], nil
			}
			// Its answer no longer replays (expired meanwhile): call anew.
		}
	}
	var last error
	for i, r := range rs {
		err := do(at(a.Number, r))
		if err == nil {
			return r, nil
		}
		last = err
		if errs.KindOf(err) == errs.KindPaymentRequired || ctx.Err() != nil || i == len(rs)-1 {
			return route{}, generationFailure(last, r.member)
		}
	}
	return route{}, generationFailure(last, rs[0].member)
}

// generationFailure reads a gateway error in the kernel's words, with the
// provider member tried last on the failure (studio.generation.failed): a
// spend cap's refusal and a refusal of the request are final (the same
// call would be refused the same way), a rate limit, an outage or a
// provider's fault are retried by the policy.
func generationFailure(err error, member string) error {
	detail := domain.GenerationFailure{Provider: member}
	e, ok := errs.As(err)
	if !ok {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return jobs.FailWith("provider_timeout", "the provider did not answer in time", true, 0, detail)
		}
		return jobs.FailWith("generation_failed", "the call failed", true, 0, detail)
	}
	code := e.Code
	if code == "" {
		code = "generation_failed"
	}
	switch e.Kind {
	case errs.KindPaymentRequired:
		return jobs.FailWith(code, "the organization's spend cap refused the call", false, 0, detail)
	case errs.KindRateLimited:
		return jobs.FailWith(code, "the provider is rate limited", true, time.Duration(e.RetryAfterSeconds)*time.Second, detail)
	case errs.KindUnavailable, errs.KindBadGateway, errs.KindGatewayTimeout, errs.KindInternal, errs.KindConflict:
		return jobs.FailWith(code, "the provider failed", true, time.Duration(e.RetryAfterSeconds)*time.Second, detail)
	}
	return jobs.FailWith(code, "the gateway refused the request", false, 0, detail)
}

// candidates draws candidateCount candidates for each scene of the
// request: an image each (outputKind image), or a clip of
// videoDurationSeconds (5 by default) rendered by the platform's renderer
// from a generated image (outputKind video). Each candidate is an asset of
// the project stored under an id derived from the job, scene and
// candidate, so an attempt after a crash stores nothing twice and replays
// the calls already paid for.
func (j *Jobs) candidates(ctx context.Context, a *jobs.Attempt[domain.Generation], pm *domain.ProjectModel) (domain.GenerationOutput, error) {
	g := a.Input
	out := domain.GenerationOutput{AssetIDs: []string{}}
	total, done := len(g.SceneIDs)*g.CandidateCount, 0
	for _, sceneID := range g.SceneIDs {
		scene, ok := pm.Scene(sceneID)
		if !ok {
			return out, jobs.Fail(domain.JobTargetGone, "the scene is gone")
		}
		for c := 1; c <= g.CandidateCount; c++ {
			prompt := scenePrompt(pm.State(), scene, g, c)
			var img GeneratedImage
			_, err := j.call(ctx, a, sceneID+":"+strconv.Itoa(c), GatewayCall{OrganizationID: a.OrganizationID, ChargedTo: g.ChargedTo,
				Image: true, Prompt: prompt}, func(call GatewayCall) (err error) {
				img, err = j.gateway.Image(ctx, call)
				return err
			})
			if err != nil {
				return out, err
			}
			asset, err := j.candidate(ctx, a, scene, c, img)
			if err != nil {
				return out, err
			}
			out.AssetIDs, out.Provider = append(out.AssetIDs, asset), img.Provider
			done++
			a.Progress(done * 99 / total)
		}
	}
	return out, nil
}

// candidate stores one candidate: the image, or its clip.
func (j *Jobs) candidate(ctx context.Context, a *jobs.Attempt[domain.Generation], scene domain.Scene, c int, img GeneratedImage) (string, error) {
	g := a.Input
	ct := img.ContentType
	if domain.AssetTypes[ct] != domain.AssetImage {
		ct = "image/png"
	}
	body, ext := bytes.NewReader(img.Data), strings.TrimPrefix(ct, "image/")
	if g.OutputKind == "video" {
		path, err := j.clip(ctx, a, img, ct)
		if err != nil {
			return "", err
		}
		defer os.Remove(path)
		data, err := os.ReadFile(path)
		if err != nil {
			return "", jobs.NotDone("the clip could not be read")
		}
		body, ct, ext = bytes.NewReader(data), media.MP4.ContentType(), "mp4"
	}
	id, project, sceneID, jobID := generationAssetID(a.JobID, scene.SceneID, c), g.ProjectID, scene.SceneID, a.JobID
	filename := fmt.Sprintf("scene-%d-candidate-%d.%s", scene.Position, c, ext)
	asset := domain.Asset{AssetID: id, ProjectID: &project, ContentType: ct, Filename: &filename, Source: domain.SourceGeneration,
		JobID: &jobID, SceneID: &sceneID, CreatedBy: g.RequestedBy}
	if _, err := j.h.storeOutput(ctx, jobActor(a.Kind, a.JobID, a.OrganizationID), g.WorkspaceID, asset, body); err != nil {
		return "", jobFailure(err, "generation_failed", "the candidate could not be stored")
	}
	return id, nil
}

// DefaultClipSeconds is a video candidate's length when the request names none.
const DefaultClipSeconds = 5

// stillID names the generated image in a clip's composition.
const stillID = "generated-still"

// clip renders a video candidate: the generated image filling a portrait
// 720p frame for the request's duration, fading to black over its last
// half second (the gateway has no video model; the platform's renderer
// makes the clip, documented in decisions.md).
func (j *Jobs) clip(ctx context.Context, a *jobs.Attempt[domain.Generation], img GeneratedImage, ct string) (string, error) {
	g := a.Input
	secs := DefaultClipSeconds
	if g.VideoDurationSeconds != nil {
		secs = *g.VideoDurationSeconds
	}
	snap := domain.Snapshot{FPS: 30, Resolution: "720p", Scenes: []domain.SnapshotScene{{SceneID: "clip", DurationMs: secs * 1000,
		Background: domain.Background{Type: domain.BackgroundAsset, AssetID: stillID, Fit: "cover"},
		Transition: &domain.Transition{Type: domain.TransitionFade, DurationMs: 500}}}}
	file, err := os.CreateTemp("", "studio-clip-*.mp4")
	if err != nil {
		return "", jobs.NotDone("no room for the clip")
	}
	path := file.Name()
	file.Close()
	assets := j.h.assetsOf(a.OrganizationID, g.WorkspaceID)
	assets.extra = map[string]render.Asset{stillID: {ContentType: ct, Data: img.Data}}
	r := render.Renderer{Media: j.cfg.Media, Assets: assets}
	_, err = r.Render(ctx, render.Request{Snapshot: snap, AspectRatio: domain.AspectPortrait, Format: media.MP4}, path, nil)
	switch {
	case err == nil:
		return path, nil
	case ctx.Err() != nil:
		err = jobs.NotDone("stopped before the clip was stored")
	case errors.Is(err, render.ErrUnrenderable):
		err = jobs.FailWith("invalid_output", "the generated image cannot be drawn", false, 0, domain.GenerationFailure{Provider: g.Provider})
	default:
		err = jobs.Retryable("generation_failed", "the clip could not be rendered", 0)
	}
	os.Remove(path)
	return "", err
}

// scenePrompt is what a scene's candidate is drawn from: the scene's
// prompt (else its title and description), the brief's style and audience.
func scenePrompt(p domain.Project, s domain.Scene, g domain.Generation, candidate int) string {
	var b strings.Builder
	if s.Prompt != nil && strings.TrimSpace(*s.Prompt) != "" {
		b.WriteString(*s.Prompt)
	} else {
		b.WriteString(s.Title)
		if s.Description != nil {
			b.WriteString(". " + *s.Description)
		}
	}
	for _, part := range []struct {
		label string
		v     *string
	}{{"Style", p.Brief.StyleNotes}, {"Audience", p.Brief.Audience}, {"Objective", firstOf(p.Brief.Objective, p.Objective)}} {
		if part.v != nil && strings.TrimSpace(*part.v) != "" {
			b.WriteString("\n" + part.label + ": " + *part.v)
		}
	}
	if g.CandidateCount > 1 {
		fmt.Fprintf(&b, "\nVariation %d of %d.", candidate, g.CandidateCount)
	}
	return b.String()
}

func firstOf(vs ...*string) *string {
	for _, v := range vs {
		if v != nil {
			return v
		}
	}
	return nil
}

// generateProbe: an attempt whose outcome is unknown happened when all it
// makes is recorded (every candidate's asset, or the plan); otherwise a
// new attempt goes, which replays the calls already answered and records
// what is missing.
func (j *Jobs) generateProbe(ctx context.Context, a *jobs.Attempt[domain.Generation]) (domain.GenerationOutput, bool, error) {
	g := a.Input
	if g.Kind == domain.GenerationPlanning {
		pm, err := j.h.projectOf(ctx, a.OrganizationID, g.WorkspaceID, g.ProjectID)
		if err != nil {
			if commands.IsOutage(err) {
				return domain.GenerationOutput{}, false, err
			}
			return domain.GenerationOutput{}, false, nil
		}
		id := planID(a.JobID)
		if p := pm.State().PlanID; p != nil && *p == id {
			return domain.GenerationOutput{AssetIDs: []string{}, PlanID: id}, true, nil
		}
		return domain.GenerationOutput{}, false, nil
	}
	out := domain.GenerationOutput{AssetIDs: []string{}}
	for _, sceneID := range g.SceneIDs {
		for c := 1; c <= g.CandidateCount; c++ {
			id := generationAssetID(a.JobID, sceneID, c)
			found, err := j.h.recordedAsset(ctx, a.OrganizationID, id)
			if err != nil || !found {
				return domain.GenerationOutput{}, false, err
			}
			out.AssetIDs = append(out.AssetIDs, id)
		}
	}
	return out, true, nil
}

// projectOf reads a live project of a workspace from the write side.
func (h *Handlers) projectOf(ctx context.Context, organizationID, workspaceID, projectID string) (*domain.ProjectModel, error) {
	history, err := workspace.LoadOwn(ctx, h.store, organizationID, projectID, "the studio's")
	if err != nil {
		return nil, err
	}
	pm, err := domain.LoadProject(commands.Recorded(history))
	if err != nil {
		return nil, err
	}
	if err := pm.In(workspaceID); err != nil {
		return nil, err
	}
	return pm, nil
}
