package design

import (
	"time"

	"github.com/platform/backend/domain/erasure"
)

// OrganizationStreamID is the stream of an organization's design-wide
// records (its erasures).
func OrganizationStreamID(organizationID string) string { return "design-org:" + organizationID }

// Erasures are the write model of an organization's design stream: each
// erasure is an OrganizationDataErased event (domain/erasure).
var Erasures = erasure.New(OrganizationDataErased, func(organizationID string, objects, files int, at time.Time) any {
	return DataErasedV1{OrganizationID: organizationID, Objects: objects, Files: files, At: at}
})
