package httpapi

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/principal"
)

// Action items: what a module declares a person must do in it (a post
// awaiting review, a connection about to expire), so the dashboard's action
// queue (/actions) can list every module's without reading another
// context's tables. Like the widget, it is a module declaration
// (module.Parts.ActionItems) read for the caller's organization from the
// module's own read model, under one permission checked the same way.
type ActionItems struct {
	// Permission is the scope, in the module's app, a caller must hold to
	// see the items (a caller without it sees none of them).
	Permission string
	read       func(ctx context.Context, p principal.Principal, now time.Time) ([]ActionItem, error)
}

// ActionItem is one thing a person must resolve.
type ActionItem struct {
	// Kind names what it is, "<app>.<thing>.<state>" (publishing.post.awaiting_review).
	Kind string `json:"kind"`
	// ObjectID is the object it is about (a post, a connection).
	ObjectID string `json:"objectId"`
	Title    string `json:"title"`
	Detail   string `json:"detail"`
	// Severity: info, warning or critical.
	Severity string `json:"severity"`
	// Path is where it is resolved, inside the app (its entrypoint's
	// path): the dashboard links to <app entrypoint><Path>.
	Path string `json:"path"`
	// Resolve is the action that resolves it (its descriptor's name).
	Resolve string `json:"resolve"`
	// At is when it began or falls due (nil: unknown).
	At *time.Time `json:"at"`
}

// Severities of an action item, most urgent last.
var ItemSeverities = []string{"info", "warning", "critical"}

// NewActionItems declares a module's action items.
func NewActionItems(permission string, read func(ctx context.Context, p principal.Principal, now time.Time) ([]ActionItem, error)) *ActionItems {
	return &ActionItems{Permission: permission, read: read}
}

// Check refuses a declaration made wrongly, before anything is served.
func (a *ActionItems) Check() error {
	if a.Permission == "" || a.read == nil {
		return errors.New("action items need a permission and a reader (httpapi.NewActionItems)")
	}
	if _, err := principal.ParsePermission("app." + a.Permission); err != nil {
		return fmt.Errorf("action items permission %q is not a resource:action scope", a.Permission)
	}
	return nil
}

// Load is the caller's items in app appID, when the caller holds the
// permission (403 permission_denied otherwise).
func (a *ActionItems) Load(ctx context.Context, appID string, p principal.Principal, now time.Time) ([]ActionItem, error) {
	permission := principal.Qualify(appID, a.Permission)
	if !p.Allows(permission) {
		return nil, errs.PermissionDenied("the credential lacks permission " + permission)
	}
	return a.read(ctx, p, now)
}
