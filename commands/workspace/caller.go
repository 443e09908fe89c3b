package workspace

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/eventstore"
)

// Meta is a command's meta in the caller's organization.
func Meta(m commands.Meta, p principal.Principal) commands.Meta {
	m.OrganizationID = p.OrganizationID
	return m
}

// LoadOwn reads a stream of the organization from the write side (nil
// history for another organization's: a missing one); service names the
// store in an outage's answer ("the studio's").
func LoadOwn(ctx context.Context, store commands.Store, organizationID, streamID, service string) ([]eventstore.Event, error) {
	history, err := store.Load(ctx, streamID)
	if err != nil {
		return nil, errs.Unavailable(service+" store is unavailable", err)
	}
	if len(history) > 0 && history[0].OrganizationID != organizationID {
		return nil, nil
	}
	return history, nil
}
