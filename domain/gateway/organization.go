package gateway

import (
	"encoding/json"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/text"
)

// StreamOrganization is an organization as the gateway knows it
// (OrganizationStreamID): provisioned once, by the identity service.
const StreamOrganization = "gateway.organization"

// Organization event types.
const (
	OrganizationProvisioned = "gateway.organization.provisioned"
	OrganizationUpdated     = "gateway.organization.updated"
)

// OrganizationEventTypes are the organization area's event types.
var OrganizationEventTypes = []string{OrganizationProvisioned, OrganizationUpdated}

// OrganizationStreamID is the gateway's stream of an organization.
func OrganizationStreamID(org string) string { return "org:" + org }

// OrganizationV1 is the payload of both events: the organization, whole.
type OrganizationV1 struct {
	OrganizationID string    `json:"organization_id"`
	Name           string    `json:"name"`
	Slug           string    `json:"slug"`
	BillingEmail   *string   `json:"billing_email"`
	ProvisionedAt  time.Time `json:"provisioned_at"`
	UpdatedAt      time.Time `json:"updated_at"`
}

// Organization is the write model.
type Organization struct {
	State OrganizationV1
}

// Provisioned reports whether the organization was provisioned.
func (o *Organization) Provisioned() bool { return o.State.OrganizationID != "" }

// LoadOrganization folds an organization stream.
func LoadOrganization(history []event.Recorded) (*Organization, error) {
	o := &Organization{}
	for _, r := range history {
		switch r.Type {
		case event.SnapshotType: // the commands' answer: the organization
			if err := json.Unmarshal(r.Payload, &o.State); err != nil {
				return nil, err
			}
		case OrganizationProvisioned, OrganizationUpdated:
			p, err := event.Decode[OrganizationV1](r)
			if err != nil {
				return nil, err
			}
			o.State = p
		}
	}
	return o, nil
}

// ProvisionInput is organization.provision's input.
type ProvisionInput struct {
	OrganizationID string
	Name           string
	Slug           string
	BillingEmail   *string
}

// Provision provisions the organization once; a repeat with the same
// members appends nothing, one with changed members records them.
func (o *Organization) Provision(in ProvisionInput, now time.Time) ([]event.Change, error) {
	var fields []errs.Field
	for _, f := range []struct{ ptr, v string }{{"/organization_id", in.OrganizationID}, {"/name", in.Name}, {"/slug", in.Slug}} {
		if f.v == "" {
			fields = append(fields, errs.Field{Pointer: f.ptr, Detail: "must not be empty"})
		}
	}
	fields = text.Line(fields, "/organization_id", in.OrganizationID, text.MaxID)
	fields = text.Line(fields, "/name", in.Name, text.MaxTitle)
	fields = text.Line(fields, "/slug", in.Slug, text.MaxID)
	if in.BillingEmail != nil {
		fields = text.Line(fields, "/billing_email", *in.BillingEmail, text.MaxEmail)
	}
	if len(fields) > 0 {
		return nil, errs.Invalid(fields...)
	}
	next := OrganizationV1{OrganizationID: in.OrganizationID, Name: in.Name, Slug: in.Slug, BillingEmail: in.BillingEmail,
		ProvisionedAt: now, UpdatedAt: now}
	if !o.Provisioned() {
		return []event.Change{event.New(OrganizationProvisioned, next)}, nil
	}
	if o.State.Name == next.Name && o.State.Slug == next.Slug && equalPtr(o.State.BillingEmail, next.BillingEmail) {
		return nil, nil
	}
	next.ProvisionedAt = o.State.ProvisionedAt
	return []event.Change{event.New(OrganizationUpdated, next)}, nil
}
