// Package dashboard holds the dashboard's commands, one file each:
// installing and uninstalling apps in an active context.
package dashboard

import (
	"context"
	"time"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/dashboard"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/eventstore"
)

// Handlers executes dashboard commands. catalog lists the app ids that may
// be installed (every module's app, and apps added for tests).
type Handlers struct {
	store   *eventstore.Store
	now     func() time.Time
	catalog func() []string
}

func NewHandlers(store *eventstore.Store, now func() time.Time, catalog func() []string) *Handlers {
	return &Handlers{store: store, now: commands.Clock(now), catalog: catalog}
}

// AppInput is the input of install and uninstall: the app, and the active
// context ("" is the organization's).
type AppInput struct {
	AppID   string `json:"appId"`
	Context string `json:"context,omitempty"`
}

// onContext runs a decision on the caller's context's stream.
func (h *Handlers) onContext(ctx context.Context, m commands.Meta, p principal.Principal, kind string,
	decide func(i *domain.Installations, c domain.Context, now time.Time) ([]event.Change, domain.Installation, error)) (commands.Result[domain.Installation], error) {
	c, err := domain.ContextOf(p, kind)
	if err != nil {
		return commands.Result[domain.Installation]{}, err
	}
	now := h.now()
	return commands.Run(ctx, h.store, m, domain.StreamInstallations, c.StreamID(),
		func(history []event.Recorded) ([]event.Change, domain.Installation, error) {
			i, err := domain.LoadInstallations(history)
			if err != nil {
				return nil, domain.Installation{}, err
			}
			return decide(i, c, now)
		})
}
