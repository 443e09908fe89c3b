// Package design is the design service's domain (seed 000): projects;
// designs made of pages of layers (rectangles, ellipses, paths, text,
// images, groups) with simple keyframe animation for clips of at most 15
// seconds, each design governed by the brand kit version it pins (a colour
// or a font outside it is refused at its member); uploaded images; exports
// (svg, png, jpeg, mp4) as durable jobs; the organization's erasure. Pure
// Go: no I/O, no clock (time is passed in).
//
// Every event carries its aggregate after it (the studio's rule): write
// models fold to the last one, read models need no other source.
package design

import "time"

// Stream types (the export jobs' is the job kernel's, "design.job").
const (
	StreamProject      = "design.project"
	StreamDesign       = "design.design"
	StreamAsset        = "design.asset"
	StreamOrganization = "design.organization"
)

// Event types: dotted, past tense, stable strings. All at schema version 1.
const (
	ProjectCreated = "design.project.created"
	ProjectUpdated = "design.project.updated"
	ProjectDeleted = "design.project.deleted"

	DesignCreated   = "design.design.created"
	DesignUpdated   = "design.design.updated"
	DesignRebranded = "design.design.rebranded"
	DesignDeleted   = "design.design.deleted"
	AssetStored     = "design.asset.stored"
	AssetDeleted    = "design.asset.deleted"

	OrganizationDataErased = "design.organization.data_erased"
)

// EventTypes are the design context's own event types (the module adds the
// job kernel's: domain/jobs.EventTypes("design")).
var EventTypes = []string{ProjectCreated, ProjectUpdated, ProjectDeleted, DesignCreated, DesignUpdated, DesignRebranded, DesignDeleted,
	AssetStored, AssetDeleted, OrganizationDataErased}

// ProjectV1 is the payload of every project event: the project after it.
type ProjectV1 struct {
	Project Project `json:"project"`
}

// DesignV1 is the payload of every design event: the design after it.
type DesignV1 struct {
	Design Design `json:"design"`
}

// AssetV1 is the payload of both asset events: the asset after it.
type AssetV1 struct {
	Asset Asset `json:"asset"`
}

// DataErasedV1 marks an organization's design data erased: read models
// drop the rows of every object the write side forgot.
type DataErasedV1 struct {
	OrganizationID string    `json:"organization_id"`
	Objects        int       `json:"objects"`
	Files          int       `json:"files"`
	At             time.Time `json:"at"`
}
