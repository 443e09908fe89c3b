package invariants_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/platform/backend/domain/errs"
	httpapi "github.com/platform/backend/http"
	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/module"
	"github.com/platform/backend/internal/testenv"
)

// withoutWidget are the modules with a service and no dashboard tile, and
// why: the dashboard shows every other service's.
var withoutWidget = map[string]string{
	"identity":  "accounts, sessions, keys and the catalog: the dashboard's own frame, not a tile (seed 001 declares no widget.get for identity)",
	"dashboard": "it is the grid: it shows every other service's tile",
	"ops":       "replays and the audit history are operators' tools, not a tenant's dashboard",
}

// TestEveryServiceDeclaresAWidget: a module with a service declares its
// dashboard tile (module.Parts.Widget) or is listed above; the kernel serves
// each declared one as the service's only widget.get, GET /api/widget,
// under the widget's permission, and lists it in Platform.Widgets for the
// dashboard.
func TestEveryServiceDeclaresAWidget(t *testing.T) {
	h := started(t)
	withWidget := 0
	for _, m := range app.Modules() {
		if m.Service == nil {
			continue
		}
		w := h.App.Parts[m.Name].Widget
		_, exempt := withoutWidget[m.Name]
		switch {
		case w == nil && !exempt:
			t.Errorf("module %s serves %s without a dashboard widget: declare Parts.Widget (httpapi.NewWidget), or list it in withoutWidget with the reason",
				m.Name, m.Service.Name)
			continue
		case w != nil && exempt:
			t.Errorf("module %s declares a widget and is listed as having none", m.Name)
		case w == nil:
			continue
		}
		withWidget++
		var bound []httpapi.Action
		for _, a := range h.App.Services[m.Service.Name].Actions {
			if a.Name == httpapi.WidgetAction || a.Path == httpapi.WidgetPath {
				bound = append(bound, a)
			}
		}
		if len(bound) != 1 || bound[0].Method != http.MethodGet || bound[0].Path != httpapi.WidgetPath || bound[0].Permission != w.Permission {
			t.Errorf("module %s: service %s binds %d widget actions (%+v), want the kernel's one", m.Name, m.Service.Name, len(bound), bound)
		}
		if !slices.ContainsFunc(h.App.Platform.Widgets, func(x module.AppWidget) bool {
			return x.Module == m.Name && x.AppID == m.App.AppID && x.Service == m.Service.Name && x.Widget == w
		}) {
			t.Errorf("module %s: its widget is not in Platform.Widgets", m.Name)
		}
	}
	for name := range withoutWidget {
		if !slices.ContainsFunc(app.Modules(), func(m module.Module) bool { return m.Name == name && m.Service != nil }) {
			t.Errorf("withoutWidget lists %s, which serves nothing", name)
		}
	}
	if withWidget == 0 {
		t.Fatal("no module declares a widget")
	}
}

// TestEveryWidgetAnswersTheContract: every module's widget answers seed
// 000's summary for the caller's organization (success, one tile with the
// module's appId), the same over HTTP and in-process (the two ways the
// dashboard calls it); a key without the widget's permission is refused
// 403 permission_denied both ways, no credential 401, and any input is
// invalid (the action takes none).
func TestEveryWidgetAnswersTheContract(t *testing.T) {
	h := started(t)
	ctx := context.Background()
	caller, err := h.App.Platform.Validator.Validate(ctx, h.APIKey)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.App.Platform.Widgets) == 0 {
		t.Fatal("no widgets")
	}
	for _, aw := range h.App.Platform.Widgets {
		what := aw.Module + " widget"
		res := h.Do(t, aw.Service, http.MethodGet, httpapi.WidgetPath, "", nil)
		apptest.Must(t, res, http.StatusOK, what)
		var body struct {
			Success bool             `json:"success"`
			Widgets []map[string]any `json:"widgets"`
		}
		res.JSON(t, &body)
		if !body.Success || len(body.Widgets) != 1 || body.Widgets[0]["appId"] != aw.AppID || body.Widgets[0]["title"] != aw.Widget.Title {
			t.Errorf("%s: %s", what, res.Body)
		}
		inProcess, err := aw.Widget.Load(ctx, aw.AppID, caller)
		if err != nil {
			t.Fatalf("%s in-process: %v", what, err)
		}
		if raw, _ := json.Marshal(inProcess); !jsonEqual(t, raw, res.Body) {
			t.Errorf("%s: in-process %s, over HTTP %s", what, raw, res.Body)
		}
		apptest.ExpectProblem(t, h.Do(t, aw.Service, http.MethodGet, httpapi.WidgetPath, "-", nil), http.StatusUnauthorized, "authentication_required")
		invalid := http.StatusUnprocessableEntity
		if h.App.Services[aw.Service].InvalidInputStatus != 0 {
			invalid = h.App.Services[aw.Service].InvalidInputStatus
		}
		apptest.ExpectProblem(t, h.Do(t, aw.Service, http.MethodGet, httpapi.WidgetPath+"?limit=1", "", nil), invalid, "invalid_input")

		// A key holding every tenant scope but the widget's.
		scopes := slices.DeleteFunc(slices.Clone(apptest.DefaultScopes), func(s string) bool { return s == aw.Widget.Permission })
		_, key := h.NewOrganization(t, "No widget", testenv.UniqueName("nowidget"), scopes...)
		apptest.ExpectProblem(t, h.Do(t, aw.Service, http.MethodGet, httpapi.WidgetPath, key, nil), http.StatusForbidden, "permission_denied")
		without, err := h.App.Platform.Validator.Validate(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := aw.Widget.Load(ctx, aw.AppID, without); errs.KindOf(err) != errs.KindPermissionDenied {
			t.Errorf("%s in-process without %s: %v, want permission_denied", what, aw.Widget.Permission, err)
		}
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	ra, _ := json.Marshal(x)
	rb, _ := json.Marshal(y)
	return string(ra) == string(rb)
}
