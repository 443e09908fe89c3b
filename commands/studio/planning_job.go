package studio

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/platform/backend/commands/jobs"
	"github.com/platform/backend/domain/errs"
	domain "github.com/platform/backend/domain/studio"
)

// planSchema is the JSON a planning completion must answer (JSON mode):
// exactly count scenes, each with a title, a description, an image prompt
// and a duration.
func planSchema(count int) json.RawMessage {
	b, _ := json.Marshal(map[string]any{
		"type": "object", "required": []string{"scenes"}, "additionalProperties": false,
		"properties": map[string]any{"scenes": map[string]any{
			"type": "array", "minItems": count, "maxItems": count,
			"items": map[string]any{
				"type": "object", "required": []string{"title", "description", "prompt", "durationMs"}, "additionalProperties": false,
				"properties": map[string]any{
					"title":       map[string]any{"type": "string", "minLength": 1, "maxLength": domain.MaxTitle},
					"description": map[string]any{"type": "string"},
					"prompt":      map[string]any{"type": "string"},
					"durationMs":  map[string]any{"type": "integer", "minimum": 1000, "maximum": 15000},
				},
			},
		}},
	})
	return b
}

// planSystem tells the model what a plan is.
const planSystem = "You plan short social videos. Answer with JSON only, matching the schema: the scenes of the video in order, " +
	"each with a short title, a one-sentence description, an image prompt that draws the scene, and its duration in milliseconds."

// planAnswer is the model's plan as decoded.
type planAnswer struct {
	Scenes []struct {
		Title       string `json:"title"`
		Description string `json:"description"`
		Prompt      string `json:"prompt"`
		DurationMs  int    `json:"durationMs"`
	} `json:"scenes"`
}

// plan asks the gateway for a creative plan of sceneCount scenes from the
// project's brief (one completion, JSON mode), and persists it with its
// scenes (PersistPlan: studio.plan.ready once per plan). The plan's id
// derives from the job, so an attempt after a crash persists nothing twice.
func (j *Jobs) plan(ctx context.Context, a *jobs.Attempt[domain.Generation], pm *domain.ProjectModel) (domain.GenerationOutput, error) {
	g, p := a.Input, pm.State()
	count := 5
	if g.SceneCount != nil {
		count = *g.SceneCount
	}
	var answer Completion
	r, err := j.call(ctx, a, "plan", GatewayCall{OrganizationID: a.OrganizationID, ChargedTo: g.ChargedTo, System: planSystem,
		Prompt: briefPrompt(p, count), Schema: planSchema(count), MaxTokens: 400 + 200*count}, func(call GatewayCall) (err error) {
		answer, err = j.gateway.Complete(ctx, call)
		return err
	})
	if err != nil {
		return domain.GenerationOutput{}, err
	}
	a.Progress(60)
	var ans planAnswer
	if err := json.Unmarshal([]byte(answer.Text), &ans); err != nil || len(ans.Scenes) == 0 {
		// The answer is kept under its key: a retry would replay it.
		return domain.GenerationOutput{}, jobs.FailWith("invalid_output", "the model's answer is not a plan of scenes", false, 0,
			domain.GenerationFailure{Provider: r.member})
	}
	scenes := make([]PlannedScene, 0, min(len(ans.Scenes), count))
	for _, s := range ans.Scenes[:min(len(ans.Scenes), count)] {
		title := bound(strings.TrimSpace(s.Title), domain.MaxTitle)
		if title == "" {
			title = fmt.Sprintf("Scene %d", len(scenes)+1)
		}
		ps := PlannedScene{Title: title, Description: nonEmpty(bound(s.Description, domain.MaxLongText)),
			Prompt: nonEmpty(bound(s.Prompt, domain.MaxLongText))}
		if s.DurationMs > 0 {
			d := min(max(s.DurationMs, domain.MinSceneMs), domain.MaxSceneMs)
			ps.DurationMs = &d
		}
		scenes = append(scenes, ps)
	}
	id, genID := planID(a.JobID), a.JobID
	_, err = j.h.PersistPlan(ctx, jobActor(a.Kind, a.JobID, a.OrganizationID), g.WorkspaceID, g.ProjectID, id, &genID, scenes)
	switch {
	case err == nil:
	case errs.KindOf(err) == errs.KindInvalidInput:
		return domain.GenerationOutput{}, jobs.FailWith("invalid_output", "the model's plan does not fit the project", false, 0,
			domain.GenerationFailure{Provider: r.member})
	default:
		return domain.GenerationOutput{}, jobFailure(err, "generation_failed", "the plan could not be persisted")
	}
	return domain.GenerationOutput{AssetIDs: []string{}, PlanID: id, Provider: answer.Provider}, nil
}

// briefPrompt is the project and its structured brief, as the model reads it.
func briefPrompt(p domain.Project, count int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Plan %d scenes for the project %q.", count, p.Title)
	for _, part := range []struct {
		label string
		v     *string
	}{{"Objective", firstOf(p.Brief.Objective, p.Objective)}, {"Brief title", p.Brief.Title}, {"Audience", p.Brief.Audience},
		{"Style notes", p.Brief.StyleNotes}} {
		if part.v != nil && strings.TrimSpace(*part.v) != "" {
			b.WriteString("\n" + part.label + ": " + *part.v)
		}
	}
	return b.String()
}

// bound cuts s to n runes.
func bound(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

func nonEmpty(s string) *string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return &s
}
