// Package ops is the operators' and auditors' module: the audit history of
// every context (a projection), projection state and rebuilds, and
// Prometheus metrics. It reads every context's topic and appends to none.
package ops

import (
	"context"

	"github.com/platform/backend/domain/event"
	httpapi "github.com/platform/backend/http"
	opshttp "github.com/platform/backend/http/ops"
	"github.com/platform/backend/internal/module"
	"github.com/platform/backend/projections"
	"github.com/platform/backend/projections/history"
)

// Module is the ops context.
var Module = module.Module{
	Name:    "ops",
	Service: &module.ServiceSpec{Name: "ops", DefaultAddr: "127.0.0.1:8090", Summary: "/api/history, /api/projections, /metrics"},
	App: &module.App{AppID: "ops", Name: "Operations console", SurfaceKind: "console", SurfaceGroup: "operations",
		DefaultAccess: true, Scopes: []string{"history:read", "history:manage"}, PlatformScopes: []string{"projections:read", "projections:replay"},
	},
	TenantKeyScopes:   []string{"history:read"},
	OperatorKeyScopes: []string{"projections:read", "projections:replay"},
	Build:             build,
}

func build(_ context.Context, p *module.Platform) (module.Parts, error) {
	// Every context's payload members the audit view never shows.
	declared := make([]map[string][]string, 0, len(p.Modules))
	rules := make([]map[string]event.AuditRule, 0, len(p.Modules))
	var single []string
	for _, m := range p.Modules {
		declared = append(declared, m.AuditRedacted)
		rules = append(rules, m.AuditRules)
		single = append(single, m.OneEventStreams...)
	}
	redact, rule := history.MergeRedactions(declared...), history.MergeRules(rules...)
	return module.Parts{
		Projections: []projections.Projection{history.Projection{Sources: p.Contexts(), Retention: history.Retention, Redact: redact,
			Rules: rule, OneEvent: single}},
		Service: func(httpapi.Deps) (httpapi.Service, error) {
			return opshttp.Service(opshttp.Deps{Pool: p.Pool, Engine: p.Engine, History: history.NewQueries(p.Pool, p.Reader, redact, rule)}), nil
		},
	}, nil
}
