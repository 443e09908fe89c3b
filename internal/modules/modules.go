// Package modules is the list of the platform's bounded contexts. Adding a
// context is its own files (domain, commands, projections, notifications,
// http, and its module package here) plus one line in All.
package modules

import (
	"github.com/platform/backend/internal/module"
	"github.com/platform/backend/internal/modules/agent"
	"github.com/platform/backend/internal/modules/brands"
	"github.com/platform/backend/internal/modules/contacts"
	"github.com/platform/backend/internal/modules/dashboard"
	"github.com/platform/backend/internal/modules/design"
	"github.com/platform/backend/internal/modules/gateway"
	"github.com/platform/backend/internal/modules/identity"
	"github.com/platform/backend/internal/modules/ops"
	"github.com/platform/backend/internal/modules/publishing"
	"github.com/platform/backend/internal/modules/status"
	"github.com/platform/backend/internal/modules/studio"
)

// All are the platform's modules in build order: identity first (every
// service authenticates through it), brands before the contexts that
// reference kits (publishing, studio, design), ops last (it reads every
// context).
func All() []module.Module {
	return []module.Module{
		identity.Module,
		status.Module,
		gateway.Module,
		contacts.Module,
		brands.Module,
		publishing.Module,
		studio.Module,
		design.Module,
		dashboard.Module,
		agent.Module,
		ops.Module,
	}
}
