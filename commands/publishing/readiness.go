package publishing

import (
	"time"

	domain "github.com/platform/backend/domain/publishing"
)

// PlatformReadiness says, machine readably, whether a brand can publish to
// one network now and what is missing.
type PlatformReadiness struct {
	Network string `json:"network"`
	// Integration is the provider's state: production-ready, sandbox-only,
	// setup-required or planned.
	Integration     string     `json:"integration"`
	Connected       bool       `json:"connected"`
	Ready           bool       `json:"ready"`
	AccountID       *string    `json:"account_id"`
	AccountName     *string    `json:"account_name"`
	TokenValidUntil *time.Time `json:"token_valid_until"`
	Refreshable     bool       `json:"refreshable"`
	Scopes          []string   `json:"scopes"`
	MissingScopes   []string   `json:"missing_scopes"`
	PageChosen      bool       `json:"page_chosen"`
	LastError       *string    `json:"last_error"`
	// Problems are blocking codes: not_connected, reconnect_required,
	// token_expired, scopes_missing, account_not_chosen,
	// integration_unavailable.
	Problems []string `json:"problems"`
}

// BrandReadiness is a brand's readiness per network.
type BrandReadiness struct {
	BrandID   string              `json:"brand_id"`
	Platforms []PlatformReadiness `json:"platforms"`
}

// ReadinessOf judges each network for a brand at now, without calling any
// network: the connection the publisher would resolve (any author) and the
// adapter's needs.
func ReadinessOf(b domain.Brand, nets *Networks, now time.Time) BrandReadiness {
	out := BrandReadiness{BrandID: b.BrandID, Platforms: []PlatformReadiness{}}
	for _, n := range nets.All() {
		r := PlatformReadiness{Network: n.Name, Integration: n.Readiness, Scopes: []string{}, MissingScopes: []string{}, Problems: []string{}}
		conn, ok := pick(b, n.Name)
		if !nets.Connectable(n.Name) {
			r.Problems = append(r.Problems, "integration_unavailable")
		}
		if !ok {
			r.Problems = append(r.Problems, "not_connected")
			out.Platforms = append(out.Platforms, r)
			continue
		}
		r.Connected = true
		id, name := conn.AccountID, conn.AccountName
		r.AccountID, r.AccountName, r.TokenValidUntil, r.Refreshable, r.LastError = &id, &name, conn.TokenValidUntil, conn.Refreshable, conn.LastError
		r.Scopes = conn.Scopes
		r.PageChosen = conn.AccountID != ""
		if conn.Status != domain.ConnectionActive {
			r.Problems = append(r.Problems, "reconnect_required")
		}
		if conn.TokenValidUntil != nil && !conn.TokenValidUntil.After(now) && !conn.Refreshable {
			r.Problems = append(r.Problems, "token_expired")
		}
		if n.Adapter != nil {
			info := n.Adapter.Info()
			for _, s := range info.RequiredScopes {
				if !contains(conn.Scopes, s) {
					r.MissingScopes = append(r.MissingScopes, s)
				}
			}
			if len(r.MissingScopes) > 0 {
				r.Problems = append(r.Problems, "scopes_missing")
			}
			if info.NeedsAccountChoice && !r.PageChosen {
				r.Problems = append(r.Problems, "account_not_chosen")
			}
		}
		r.Ready = len(r.Problems) == 0
		out.Platforms = append(out.Platforms, r)
	}
	return out
}

// pick is the brand's active connection of a network (else any).
func pick(b domain.Brand, network string) (domain.Connection, bool) {
	var found *domain.Connection
	for i := range b.Connections {
		c := &b.Connections[i]
		if c.Network != network {
			continue
		}
		if c.Status == domain.ConnectionActive {
			return *c, true
		}
		if found == nil {
			found = c
		}
	}
	if found == nil {
		return domain.Connection{}, false
	}
	return *found, true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Integration is one provider as GET /api/integrations reports it.
type Integration struct {
	Network string `json:"network"`
	Product string `json:"product"`
	// Status: production-ready, sandbox-only, setup-required or planned.
	// A provider the organization has connected accounts of is never
	// reported setup-required (or planned): those accounts are as they
	// were connected.
	Status      string                  `json:"status"`
	Connectable bool                    `json:"connectable"`
	Connections []IntegrationConnection `json:"connections"`
}

// IntegrationConnection is a connected account of one of the brands.
type IntegrationConnection struct {
	BrandID         string     `json:"brand_id"`
	ConnectionID    string     `json:"connection_id"`
	AccountID       string     `json:"account_id"`
	AccountName     string     `json:"account_name"`
	Status          string     `json:"status"`
	Mode            string     `json:"mode"`
	TokenValidUntil *time.Time `json:"token_valid_until"`
}

// IntegrationsOf reports every provider for an organization's brands.
func IntegrationsOf(brands []domain.Brand, nets *Networks) []Integration {
	out := []Integration{}
	for _, n := range nets.All() {
		in := Integration{Network: n.Name, Status: n.Readiness, Connectable: nets.Connectable(n.Name), Connections: []IntegrationConnection{}}
		if n.Adapter != nil {
			in.Product = n.Adapter.Info().Product
		}
		for _, b := range brands {
			for _, c := range b.Connections {
				if c.Network == n.Name {
					in.Connections = append(in.Connections, IntegrationConnection{BrandID: b.BrandID, ConnectionID: c.ConnectionID,
						AccountID: c.AccountID, AccountName: c.AccountName, Status: c.Status, Mode: c.Mode, TokenValidUntil: c.TokenValidUntil})
				}
			}
		}
		if len(in.Connections) > 0 && (in.Status == ReadinessSetup || in.Status == ReadinessPlanned) {
			in.Status = ReadinessProduction
			for _, c := range in.Connections {
				if c.Mode == "sandbox" {
					in.Status = ReadinessSandbox
				}
			}
		}
		out = append(out, in)
	}
	return out
}
