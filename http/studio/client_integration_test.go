package studio_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"testing"

	"github.com/platform/backend/commands"
	studiocmd "github.com/platform/backend/commands/studio"
	studiodomain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/module"
	studiomod "github.com/platform/backend/internal/modules/studio"
)

// client calls the studio with one credential; the helpers below upload
// its files.
type client struct {
	*apptest.Client
	t     *testing.T
	h     *apptest.Harness
	token string
}

func newClient(t *testing.T, h *apptest.Harness, token string) *client {
	return &client{Client: h.NewClient(t, "studio", token), t: t, h: h, token: token}
}

// pngOf is a small real PNG of one colour.
func pngOf(t *testing.T, c color.Color) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for x := 0; x < 8; x++ {
		for y := 0; y < 8; y++ {
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// upload stores a file as an asset of the workspace.
func (c *client) upload(slug, query, contentType string, file []byte, want int) map[string]any {
	c.t.Helper()
	res := c.Do(http.MethodPost, "/api/workspaces/"+slug+"/assets"+query, file, want, "Content-Type", contentType)
	var out map[string]any
	if want < 300 {
		res.JSON(c.t, &out)
	}
	return out
}

// snapshot is a valid composition snapshot drawing the given assets.
func snapshot(background, logo string) map[string]any {
	bg := map[string]any{"type": "color", "color": "#102030"}
	if background != "" {
		bg = map[string]any{"type": "asset", "assetId": background, "fit": "cover"}
	}
	layers := []any{map[string]any{"type": "text", "layerId": "title", "text": "Launch day", "fontSize": 72, "color": "#ffffff",
		"x": 0.1, "y": 0.4, "endMs": 1500}}
	if logo != "" {
		layers = append(layers, map[string]any{"type": "image", "layerId": "logo", "assetId": logo, "x": 0.8, "y": 0.05, "width": 0.15})
	}
	return map[string]any{"fps": 30, "resolution": "720p", "scenes": []any{
		map[string]any{"sceneId": "s1", "durationMs": 2000, "background": bg, "layers": layers, "transition": map[string]any{"type": "fade", "durationMs": 500}},
		map[string]any{"sceneId": "s2", "durationMs": 1500, "background": map[string]any{"type": "color", "color": "#ff0000"}},
	}}
}

func decode(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// studioToken signs a preview as the studio does.
func studioToken(h *apptest.Harness, asset, workspace string, exp int64) string {
	key := module.SectionOf[*studiomod.Config](h.Config.Modules).Commands.PreviewKey
	return studiodomain.PreviewToken(key, asset, workspace, exp)
}

// persistPlan persists plan-1 of two scenes on a project of the default
// workspace, as a planning job will.
func persistPlan(t *testing.T, h *apptest.Harness, project string) {
	t.Helper()
	cmds := apptest.Provided[*studiocmd.Handlers](h)
	_, err := cmds.PersistPlan(context.Background(), commands.Meta{OrganizationID: h.OrgID, Actor: eventstore.Actor{ID: "planner", Type: "system"}},
		h.OrgID, project, "plan-1", nil, []studiocmd.PlannedScene{{Title: "Hook"}, {Title: "Call to action"}})
	if err != nil {
		t.Fatal(err)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
