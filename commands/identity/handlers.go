// Package identity holds the identity commands and credential validation.
package identity

import (
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/eventstore"
)

type Handlers struct {
	store *eventstore.Store
	now   func() time.Time
}

func NewHandlers(store *eventstore.Store, now func() time.Time) *Handlers {
	return &Handlers{store: store, now: commands.Clock(now)}
}
