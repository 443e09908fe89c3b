package gateway

import (
	"context"
	"strings"

	"github.com/platform/backend/commands/reactor"
	"github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
)

// ProvisionReactor is the name of the reactor that provisions every new
// organization of the identity service in the gateway.
const ProvisionReactor = "gateway.provision"

// IdentityService is the service identity organization.provision accepts.
const IdentityService = "identity"

// Provisioner is the in-process path of organization.provision: a reactor
// of the gateway module on identity's organization-created events, acting as
// the identity service's service identity, idempotent per organization (the
// command's key comes from the event, and the stream provisions once).
//
// Identity seals organization names under the organization's data key
// (crypto-shredding); the gateway does not open them, so a sealed name is
// provisioned as the slug and no personal data is copied into the gateway's
// log.
type Provisioner struct{ h *Handlers }

var _ reactor.Reactor = Provisioner{}

// Provisioner returns the reactor.
func (h *Handlers) Provisioner() Provisioner { return Provisioner{h: h} }

func (Provisioner) Name() string       { return ProvisionReactor }
func (Provisioner) Contexts() []string { return []string{"identity"} }
func (Provisioner) Types() []string    { return []string{identity.OrganizationCreated} }

func (p Provisioner) React(ctx context.Context, e eventstore.Event) error {
	created, err := eventstore.Decode[identity.OrganizationCreatedV1](e)
	if err != nil {
		return err
	}
	name := created.Name
	if strings.HasPrefix(name, "enc:") || strings.TrimSpace(name) == "" {
		name = created.Slug
	}
	m := reactor.Meta(ProvisionReactor, e, "provision")
	// The identity service acts here, as when it calls organization.provision
	// with its service token: actor id the service's name, type service.
	m.Actor = eventstore.Actor{ID: IdentityService, Type: "service"}
	_, err = p.h.ProvisionOrganization(ctx, m, ProvisionOrganization{OrganizationID: created.OrganizationID, Name: name, Slug: created.Slug})
	return err
}
