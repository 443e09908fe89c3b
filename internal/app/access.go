package app

import (
	"context"
	"fmt"

	identitycmd "github.com/platform/backend/commands/identity"
	accessview "github.com/platform/backend/projections/access"
	"github.com/platform/backend/providers/email"
)

// wireAccess builds the identity service's access half: the service-token
// key set (created on first start), the email provider, the commands and
// read model, and seeds the service catalog (idempotent: an unchanged
// catalog appends nothing).
func (a *App) wireAccess(ctx context.Context) error {
	keys := identitycmd.NewServiceKeys(a.Pool, nil)
	if err := keys.Init(ctx); err != nil {
		return fmt.Errorf("identity service keys: %w", err)
	}
	var mail email.Sender = &email.Sandbox{Log: a.Log}
	if a.Cfg.Access.SMTP.Addr != "" {
		smtp := a.Cfg.Access.SMTP
		mail = &smtp
	}
	a.Access = identitycmd.NewAccess(a.Identity, identitycmd.AccessConfig{PublicURL: a.Cfg.Access.PublicURL,
		AppsBaseURL: a.Cfg.Access.AppsBaseURL}, mail, keys, a.Log)
	a.AccessQ = accessview.NewQueries(a.Pool, a.Reader)
	if _, err := a.Access.SeedCatalog(ctx); err != nil {
		return fmt.Errorf("seed service catalog: %w", err)
	}
	return nil
}
