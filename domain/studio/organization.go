package studio

import (
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// OrganizationStreamID is the stream of an organization's studio-wide
// records (its erasures).
func OrganizationStreamID(organizationID string) string { return "studio-org:" + organizationID }

// EraseConfirmation is the literal organizations.data.erase needs (seed 002).
const EraseConfirmation = "ERASE"

// OrganizationModel is the write model of an organization's studio stream.
type OrganizationModel struct{ erasures int }

func LoadOrganization(history []event.Recorded) (*OrganizationModel, error) {
	return organizationFold.Load(&OrganizationModel{}, history)
}

var organizationFold = event.Fold[*OrganizationModel]{
	OrganizationDataErased: event.Mark(func(m *OrganizationModel) { m.erasures++ }),
}

// Erasures counts the organization's erasures.
func (m *OrganizationModel) Erasures() int { return m.erasures }

// Erase records an erasure of what the organization's studio held: the
// caller removed the objects in the same transaction (the write side) and
// deletes the asset bytes after it commits. Each erasure is recorded, even
// of nothing: the request was made.
func (m *OrganizationModel) Erase(organizationID, confirmation string, objects, assets int, now time.Time) ([]event.Change, error) {
	if confirmation != EraseConfirmation {
		return nil, errs.InvalidField("/confirmation", "must be the literal ERASE")
	}
	return []event.Change{event.New(OrganizationDataErased, DataErasedV1{OrganizationID: organizationID, Objects: objects,
		AssetObjects: assets, At: now})}, nil
}
