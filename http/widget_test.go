package httpapi

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/principal"
)

type testFigures struct {
	Open  int    `json:"open"`
	State string `json:"state"`
}

func testWidget() *Widget {
	return NewWidget(Widget{Title: "Things", Permission: "things:read", Summary: "things"},
		func(_ context.Context, p principal.Principal) (testFigures, error) {
			return testFigures{Open: len(p.OrganizationID), State: "ok"}, nil
		}, EnumOf("state", "ok", "bad"))
}

// TestWidgetAnswersSeed000sSummary: a tile is appId, title and the
// figures' members in one object, inside {success, widgets[]}; the action's
// output schema holds that answer to the tile's members and to its app id,
// and lets members beyond them pass (seed 000: extra members allowed).
func TestWidgetAnswersSeed000sSummary(t *testing.T) {
	w := testWidget()
	if err := w.Check(); err != nil {
		t.Fatal(err)
	}
	p := principal.Principal{OrganizationID: "org-1", Permissions: []string{"things.things:read"}}
	s, err := w.Load(context.Background(), "things", p)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(s)
	if want := `{"success":true,"widgets":[{"appId":"things","title":"Things","open":5,"state":"ok"}]}`; string(raw) != want {
		t.Fatalf("answer %s, want %s", raw, want)
	}
	a := w.Action("things")
	if err := a.withDefaults(); err != nil {
		t.Fatal(err)
	}
	if a.Name != "widget.get" || a.Method != "GET" || a.Path != "/api/widget" || a.Permission != "things:read" || !a.ReadOnly ||
		a.AgentAccess != "auto" || a.InputType() == nil {
		t.Fatalf("descriptor %+v", a)
	}
	if err := a.checkOutput(s); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"another app":     `{"success":true,"widgets":[{"appId":"other","title":"Things","open":5,"state":"ok"}]}`,
		"a figure amiss":  `{"success":true,"widgets":[{"appId":"things","title":"Things","state":"ok"}]}`,
		"a figure's type": `{"success":true,"widgets":[{"appId":"things","title":"Things","open":"5","state":"ok"}]}`,
		"an enum":         `{"success":true,"widgets":[{"appId":"things","title":"Things","open":5,"state":"meh"}]}`,
		"no widgets":      `{"success":true}`,
	} {
		if err := a.checkOutput(json.RawMessage(body)); err == nil {
			t.Errorf("%s: %s passed the output schema", name, body)
		}
	}
	extra := `{"success":true,"cached":false,"widgets":[{"appId":"things","title":"Things","open":5,"state":"ok","more":1}]}`
	if err := a.checkOutput(json.RawMessage(extra)); err != nil {
		t.Errorf("extra members: %v", err)
	}
}

// TestWidgetLoadChecksThePermission: the in-process call the dashboard
// makes checks what the HTTP route checks, in the widget's app.
func TestWidgetLoadChecksThePermission(t *testing.T) {
	w := testWidget()
	for _, perms := range [][]string{nil, {"other.things:read"}, {"things.things:write"}} {
		_, err := w.Load(context.Background(), "things", principal.Principal{OrganizationID: "o", Permissions: perms})
		if errs.KindOf(err) != errs.KindPermissionDenied {
			t.Errorf("permissions %v: %v, want permission_denied", perms, err)
		}
	}
	if _, err := w.Load(context.Background(), "things", principal.Principal{OrganizationID: "o", Permissions: []string{"things.*:read"}}); err != nil {
		t.Errorf("a pattern holding it: %v", err)
	}
}

// TestWidgetCheckRefusesWrongDeclarations: no title, no permission, a
// permission that is not a scope, figures that are not a struct or that
// take the tile's own members.
func TestWidgetCheckRefusesWrongDeclarations(t *testing.T) {
	read := func(context.Context, principal.Principal) (testFigures, error) { return testFigures{}, nil }
	type clash struct {
		AppID string `json:"appId"`
	}
	for name, w := range map[string]*Widget{
		"no title":         NewWidget(Widget{Permission: "things:read"}, read),
		"no permission":    NewWidget(Widget{Title: "T"}, read),
		"not a scope":      NewWidget(Widget{Title: "T", Permission: "things.read"}, read),
		"not a struct":     NewWidget(Widget{Title: "T", Permission: "things:read"}, func(context.Context, principal.Principal) (int, error) { return 1, nil }),
		"takes appId":      NewWidget(Widget{Title: "T", Permission: "things:read"}, func(context.Context, principal.Principal) (clash, error) { return clash{}, nil }),
		"built by literal": {Title: "T", Permission: "things:read"},
	} {
		if err := w.Check(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestTileWithoutFigures(t *testing.T) {
	for _, f := range []any{nil, struct{}{}} {
		raw, err := json.Marshal(Tile{AppID: "a1", Title: "T", Figures: f})
		if err != nil || string(raw) != `{"appId":"a1","title":"T"}` {
			t.Errorf("%v: %s %v", f, raw, err)
		}
	}
	if _, err := json.Marshal(Tile{AppID: "a1", Title: "T", Figures: 3}); err == nil || !strings.Contains(err.Error(), "object") {
		t.Errorf("figures that are no object: %v", err)
	}
}
