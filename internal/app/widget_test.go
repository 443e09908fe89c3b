package app

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/platform/backend/domain/principal"
	httpapi "github.com/platform/backend/http"
	"github.com/platform/backend/internal/module"
)

type figures struct {
	N int `json:"n"`
}

func widget() *httpapi.Widget {
	return httpapi.NewWidget(httpapi.Widget{Title: "T", Permission: "things:read"},
		func(context.Context, principal.Principal) (figures, error) { return figures{}, nil })
}

// TestTheKernelBindsTheWidget: a module's widget becomes the first action of
// its service, widget.get; a service that declares its own widget.get (or
// route /api/widget) beside it is refused, as is a service checking another
// app, and a widget without a service or an app to check it in.
func TestTheKernelBindsTheWidget(t *testing.T) {
	m := module.Module{Name: "things", Service: &module.ServiceSpec{Name: "things", DefaultAddr: "127.0.0.1:1"},
		App: &module.App{AppID: "things"}}
	own := httpapi.Action{Name: "things.list", Method: http.MethodGet, Path: "/api/things", Permission: "things:read"}
	svc, err := withWidget(httpapi.Service{AppID: "things", Name: "things", Actions: []httpapi.Action{own}}, m, widget())
	if err != nil || len(svc.Actions) != 2 || svc.Actions[0].Name != "widget.get" || svc.Actions[0].Path != "/api/widget" {
		t.Fatalf("%v %+v", err, svc.Actions)
	}
	for name, s := range map[string]httpapi.Service{
		"its own widget.get": {AppID: "things", Actions: []httpapi.Action{{Name: "widget.get", Method: http.MethodGet, Path: "/api/w"}}},
		"its own route":      {AppID: "things", Actions: []httpapi.Action{{Name: "tile", Method: http.MethodGet, Path: "/api/widget"}}},
		"another app":        {AppID: "other", Actions: []httpapi.Action{own}},
	} {
		if _, err := withWidget(s, m, widget()); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	parts := []module.Parts{{Widget: widget(), Service: func(httpapi.Deps) (httpapi.Service, error) { return httpapi.Service{}, nil }}}
	list, err := widgets([]module.Module{m}, parts)
	if err != nil || len(list) != 1 || list[0].AppID != "things" || list[0].Service != "things" {
		t.Fatalf("%v %+v", err, list)
	}
	for name, mod := range map[string]module.Module{"no service": {Name: "x", App: m.App}, "no app": {Name: "x", Service: m.Service}} {
		if _, err := widgets([]module.Module{mod}, parts); err == nil || !strings.Contains(err.Error(), "declare both") {
			t.Errorf("%s: %v", name, err)
		}
	}
	bad := []module.Parts{{Widget: httpapi.NewWidget(httpapi.Widget{Permission: "things:read"},
		func(context.Context, principal.Principal) (figures, error) { return figures{}, nil }), Service: parts[0].Service}}
	if _, err := widgets([]module.Module{m}, bad); err == nil {
		t.Error("a widget without a title was accepted")
	}
}
