package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/principal"
)

// The widget contract. Every module may declare one tile for the dashboard
// grid (module.Parts.Widget); the kernel binds it as seed 000's widget.get
// (GET /api/widget) on the module's service, and the dashboard fans out
// over the same declarations, in-process (Widget.Load with the caller's
// principal) or over HTTP (GET <service>/api/widget with the caller's
// credential). Both paths check one permission the same way, answer one
// shape, and read the module's own read model: no module reads another's
// queries for it.
//
// Permission convention: a widget is checked as `<app id>.<scope>` like any
// action of its service, with the scope its seed names for widget.get
// (design workspace:read, the gateway dashboard:read, status status:read),
// else its app's dashboard:read where its seed lists one (publishing), else
// the read scope of what it summarizes (contacts contacts:read). A caller
// without it is 403 permission_denied over HTTP; the dashboard leaves the
// tile out.
const (
	WidgetPath   = "/api/widget"
	WidgetAction = "widget.get"
)

// WidgetSummary is seed 000's widget summary response: success, and the
// widgets, each with its appId; extra members allowed.
type WidgetSummary struct {
	Success bool   `json:"success"`
	Widgets []Tile `json:"widgets"`
}

// Tile is one entry of widgets[]: the app it shows, its title, and its
// figures written beside them as members of the same object
// ({"appId":"status","title":"Status","open_incidents":1,...}).
type Tile struct {
	AppID   string
	Title   string
	Figures any // a struct of the widget's figures (nil: none)
}

// MarshalJSON writes appId and title, then the figures' members.
func (t Tile) MarshalJSON() ([]byte, error) {
	head, err := json.Marshal(struct {
		AppID string `json:"appId"`
		Title string `json:"title"`
	}{t.AppID, t.Title})
	if err != nil || t.Figures == nil {
		return head, err
	}
	figures, err := json.Marshal(t.Figures)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(figures, []byte("{")) {
		return nil, fmt.Errorf("widget %s: figures must be a JSON object, not %.40s", t.AppID, figures)
	}
	if bytes.Equal(figures, []byte("{}")) {
		return head, nil
	}
	return append(append(head[:len(head)-1], ','), figures[1:]...), nil
}

// Widget is a module's tile: what the dashboard shows of it, who may see
// it, and how it is read. NewWidget makes one.
type Widget struct {
	// Title is the tile's title ("Status", "Usage").
	Title string
	// Permission is the scope, in the module's app, a caller must hold
	// (the convention above).
	Permission string
	// Summary is widget.get's descriptor summary.
	Summary string
	// ReadModel is the projection the figures come from
	// (X-Platform-Min-Position waits for it).
	ReadModel string

	figures json.RawMessage // the figures' schema: a closed object
	read    func(ctx context.Context, p principal.Principal) (any, error)
}

// NewWidget declares a tile whose figures are F (a struct: its JSON members
// are the tile's, its schema derived as OutputOf(F, opts...) derives an
// answer's), read for the caller's organization by read.
func NewWidget[F any](w Widget, read func(ctx context.Context, p principal.Principal) (F, error), opts ...OutputOption) *Widget {
	var zero F
	w.figures = OutputOf(zero, opts...)
	w.read = func(ctx context.Context, p principal.Principal) (any, error) { return read(ctx, p) }
	if reflect.TypeFor[F]().Kind() != reflect.Struct {
		w.figures = nil // Check refuses it
	}
	return &w
}

// reserved are the tile's own members: figures may not take them.
var reserved = []string{"appId", "title"}

// Check refuses a widget declared wrongly, before anything is served.
func (w *Widget) Check() error {
	var problems []error
	if w.Title == "" || w.Permission == "" || w.read == nil {
		problems = append(problems, errors.New("a widget needs a title, a permission and figures (httpapi.NewWidget)"))
	}
	if _, err := principal.ParsePermission("app." + w.Permission); w.Permission != "" && err != nil {
		problems = append(problems, fmt.Errorf("widget permission %q is not a resource:action scope", w.Permission))
	}
	var s struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if w.figures == nil || json.Unmarshal(w.figures, &s) != nil || s.Type != "object" {
		problems = append(problems, errors.New("a widget's figures are a struct"))
	}
	for _, r := range reserved {
		if _, ok := s.Properties[r]; ok {
			problems = append(problems, fmt.Errorf("a widget's figures may not have a member %q: the tile has it", r))
		}
	}
	return errors.Join(problems...)
}

// Load is the caller's summary of the widget of app appID, when the caller
// holds its permission (403 permission_denied otherwise): what the HTTP
// route answers, and what the dashboard calls in-process.
func (w *Widget) Load(ctx context.Context, appID string, p principal.Principal) (WidgetSummary, error) {
	permission := principal.Qualify(appID, w.Permission)
	if !p.Allows(permission) {
		return WidgetSummary{}, errs.PermissionDenied("the credential lacks permission " + permission)
	}
	figures, err := w.read(ctx, p)
	if err != nil {
		return WidgetSummary{}, err
	}
	return WidgetSummary{Success: true, Widgets: []Tile{{AppID: appID, Title: w.Title, Figures: figures}}}, nil
}

// Action is the widget's widget.get on the service of app appID: a read
// that takes nothing and answers the summary, described by its output
// schema (the tile's members typed and required, others allowed, as seed
// 000 allows).
func (w *Widget) Action(appID string) Action {
	return bind(Action{
		Name: WidgetAction, Method: http.MethodGet, Path: WidgetPath, Permission: w.Permission, ReadOnly: true,
		Summary: w.Summary, ReadModel: w.ReadModel, OutputSchema: w.outputSchema(appID),
	}, func(ctx context.Context, c *Call, _ NoInput) (Reply, error) {
		s, err := w.Load(ctx, appID, c.Principal)
		if err != nil {
			return Reply{}, err
		}
		return OK(s), nil
	})
}

// outputSchema: seed 000's summary (success, widgets[] with appId, extra
// members allowed) with this widget's tile: its app id, title and figures.
func (w *Widget) outputSchema(appID string) json.RawMessage {
	var tile map[string]any
	if err := json.Unmarshal(w.figures, &tile); err != nil {
		tile = map[string]any{"type": "object"}
	}
	props, _ := tile["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	props["appId"] = map[string]any{"type": "string", "minLength": 1, "const": appID}
	props["title"] = map[string]any{"type": "string", "minLength": 1}
	tile["properties"] = props
	required := append([]string{"appId", "title"}, toStrings(tile["required"])...)
	tile["required"] = required
	tile["additionalProperties"] = true
	out, _ := json.Marshal(map[string]any{"type": "object", "additionalProperties": true, "required": []string{"success", "widgets"},
		"properties": map[string]any{"success": map[string]any{"type": "boolean"},
			"widgets": map[string]any{"type": "array", "items": tile}}})
	return out
}
