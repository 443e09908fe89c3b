package design

import (
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// OrganizationStreamID is the stream of an organization's design-wide
// records (its erasures).
func OrganizationStreamID(organizationID string) string { return "design-org:" + organizationID }

// EraseConfirmation is the literal an erasure needs.
const EraseConfirmation = "ERASE"

// OrganizationModel is the write model of an organization's design stream.
type OrganizationModel struct{ erasures int }

func LoadOrganization(history []event.Recorded) (*OrganizationModel, error) {
	return organizationFold.Load(&OrganizationModel{}, history)
}

var organizationFold = event.Fold[*OrganizationModel]{
	OrganizationDataErased: event.Mark(func(m *OrganizationModel) { m.erasures++ }),
}

// Erasures counts the organization's erasures.
func (m *OrganizationModel) Erasures() int { return m.erasures }

// Erase records an erasure: the caller forgot the objects in the same
// transaction and deletes their files after it commits. Each erasure is
// recorded, even of nothing.
func (m *OrganizationModel) Erase(organizationID, confirmation string, objects, files int, now time.Time) ([]event.Change, error) {
	if confirmation != EraseConfirmation {
		return nil, errs.InvalidField("/confirmation", "must be the literal ERASE")
	}
	return []event.Change{event.New(OrganizationDataErased, DataErasedV1{OrganizationID: organizationID, Objects: objects, Files: files,
		At: now})}, nil
}
