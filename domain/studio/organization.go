package studio

import (
	"time"

	"github.com/platform/backend/domain/erasure"
)

// OrganizationStreamID is the stream of an organization's studio-wide
// records (its erasures).
func OrganizationStreamID(organizationID string) string { return "studio-org:" + organizationID }

// Erasures are the write model of an organization's studio stream: each
// erasure is an OrganizationDataErased event (domain/erasure), its files
// the stored asset files.
var Erasures = erasure.New(OrganizationDataErased, func(organizationID string, objects, files int, at time.Time) any {
	return DataErasedV1{OrganizationID: organizationID, Objects: objects, AssetObjects: files, At: at}
})
