package studio_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	studiocmd "github.com/platform/backend/commands/studio"
	domain "github.com/platform/backend/domain/identity"
	studiodomain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/module"
	studiomod "github.com/platform/backend/internal/modules/studio"
	"github.com/platform/backend/internal/objectstore"
	"github.com/platform/backend/internal/testenv"
)

// client calls the studio with one credential.
type client struct {
	t     *testing.T
	h     *apptest.Harness
	token string
}

func newClient(t *testing.T, h *apptest.Harness, token string) *client {
	return &client{t: t, h: h, token: token}
}

// pending are the positions of the commands a harness's clients sent that
// a read has not waited for yet (the machine is loaded: a command's own
// bounded wait may pass before the read model applied it).
var (
	pendingMu sync.Mutex
	pending   = map[*apptest.Harness][]string{}
)

// settle waits until the read model applied every command sent so far.
func settle(t *testing.T, h *apptest.Harness) {
	t.Helper()
	pendingMu.Lock()
	list := pending[h]
	delete(pending, h)
	pendingMu.Unlock()
	for _, pos := range list {
		apptest.Eventually(t, 30*time.Second, "the read model at "+pos, func() bool {
			return h.Do(t, "studio", http.MethodGet, "/api/widget", h.APIKey, nil, "X-Platform-Min-Position", pos).Status == http.StatusOK
		})
	}
}

// do sends a request (body nil for none) and checks the status; a read
// waits for the commands before it.
func (c *client) do(method, path string, body any, want int, headers ...string) apptest.Response {
	c.t.Helper()
	if method == http.MethodGet {
		settle(c.t, c.h)
	}
	res := c.h.Do(c.t, "studio", method, path, c.token, body, headers...)
	apptest.Must(c.t, res, want, method+" "+path)
	if pos := res.Header.Get("X-Platform-Position"); pos != "" && method != http.MethodGet {
		pendingMu.Lock()
		pending[c.h] = append(pending[c.h], pos)
		pendingMu.Unlock()
	}
	return res
}

// json sends a request and decodes a success answer into v.
func (c *client) json(method, path string, body any, want int, v any) {
	c.t.Helper()
	c.do(method, path, body, want).JSON(c.t, v)
}

// problem sends a request and checks the problem answer.
func (c *client) problem(method, path string, body any, status int, code string) apptest.Problem {
	c.t.Helper()
	if method == http.MethodGet {
		settle(c.t, c.h)
	}
	return apptest.ExpectProblem(c.t, c.h.Do(c.t, "studio", method, path, c.token, body), status, code)
}

// pointers are the members a 422 names.
func pointers(p apptest.Problem) []string {
	var out []string
	for _, e := range p.Errors {
		out = append(out, e.Pointer)
	}
	return out
}

// workspace creates a workspace of an organization through identity's
// commands and returns its id.
func workspace(t *testing.T, h *apptest.Harness, org, slug string) string {
	t.Helper()
	res, err := h.Access().CreateWorkspace(context.Background(), commands.Meta{OrganizationID: org,
		Actor: eventstore.Actor{ID: "test", Type: "system"}}, identitycmd.CreateWorkspace{Slug: slug, Name: slug})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range res.Value.Workspaces {
		if w.Slug == slug {
			return w.WorkspaceID
		}
	}
	t.Fatalf("workspace %s not created: %+v", slug, res.Value)
	return ""
}

// key makes a key of an organization with scopes, bound to workspaces when
// bindings are given.
func key(t *testing.T, h *apptest.Harness, org string, scopes []string, bindings ...domain.ResourceBinding) string {
	t.Helper()
	k, err := h.Identity().CreateAPIKey(context.Background(), commands.Meta{OrganizationID: org, Actor: eventstore.Actor{ID: "test", Type: "system"}},
		identitycmd.CreateAPIKey{Name: "test", Scopes: scopes, ResourceBindings: bindings})
	if err != nil {
		t.Fatal(err)
	}
	return k.Value.Token
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
	res := c.do(http.MethodPost, "/api/workspaces/"+slug+"/assets"+query, file, want, "Content-Type", contentType)
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

// member creates a user of the organization with a role and signs it in:
// its user id and access token.
func member(t *testing.T, h *apptest.Harness, org, role string) (string, string) {
	t.Helper()
	email := testenv.UniqueName("studio") + "@example.com"
	const password = "correct horse battery staple"
	m := commands.Meta{OrganizationID: org, Actor: eventstore.Actor{ID: "test", Type: "system"}}
	u, err := h.Identity().CreateUser(context.Background(), m, domain.Actor{PlatformRole: domain.RolePlatformSuperAdmin},
		identitycmd.CreateUser{Email: email, Password: password, Role: role})
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		AccessToken string `json:"access_token"`
	}
	apptest.Eventually(t, 15*time.Second, "sign-in of "+email, func() bool {
		res := h.Do(t, "identity", http.MethodPost, "/login", "-", map[string]any{"email": email, "password": password, "organizationId": org})
		if res.Status != http.StatusOK {
			return false
		}
		res.JSON(t, &s)
		return true
	})
	return u.Value.UserID, s.AccessToken
}

// notificationsOf waits for n notifications of a type of an organization
// and answers their keys and payloads; none may be invalid.
func notificationsOf(t *testing.T, h *apptest.Harness, org, typ string, n int) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	apptest.Eventually(t, 30*time.Second, "notifications "+typ, func() bool {
		rows, err := h.App.Pool.Query(context.Background(), `SELECT idempotency_key, state, envelope FROM notification_deliveries
			WHERE organization_id = $1 AND type = $2`, org, typ)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var k, state string
			var env []byte
			if err := rows.Scan(&k, &state, &env); err != nil {
				t.Fatal(err)
			}
			if state == "invalid" {
				t.Fatalf("notification %s is invalid: %s", k, env)
			}
			var e struct {
				Payload map[string]any `json:"payload"`
			}
			_ = json.Unmarshal(env, &e)
			out[k] = e.Payload
		}
		return len(out) >= n
	})
	return out
}

// objectsOf counts the organization's studio objects in the object store.
func objectsOf(t *testing.T, h *apptest.Harness, org string) int {
	t.Helper()
	n, token := 0, ""
	for {
		page, err := h.App.Platform.Objects.List(context.Background(), org+"/studio/", objectstore.ListOptions{PageToken: token, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		n += len(page.Objects)
		if token = page.NextPageToken; token == "" {
			return n
		}
	}
}

func objects(t *testing.T, h *apptest.Harness) int { return objectsOf(t, h, h.OrgID) }

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
