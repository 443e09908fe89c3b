package design

import (
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/text"
)

// Asset is an image uploaded to a workspace for designs (PNG or JPEG).
type Asset struct {
	AssetID     string    `json:"assetId"`
	WorkspaceID string    `json:"workspaceId"`
	Name        string    `json:"name"`
	ContentType string    `json:"contentType"`
	Width       int       `json:"width"`
	Height      int       `json:"height"`
	Size        int64     `json:"size"`
	SHA256      string    `json:"sha256"`
	CreatedBy   string    `json:"createdBy"`
	Deleted     bool      `json:"deleted"`
	CreatedAt   time.Time `json:"createdAt"`
}

// AssetTypes are the content types of assets.
var AssetTypes = []string{"image/png", "image/jpeg"}

// AssetModel is the write model of an asset's stream.
type AssetModel struct{ a Asset }

func LoadAsset(history []event.Recorded) (*AssetModel, error) {
	return assetFold.Load(&AssetModel{}, history)
}

var assetFold = event.Fold[*AssetModel]{AssetStored: event.Apply((*AssetModel).set), AssetDeleted: event.Apply((*AssetModel).set)}

func (m *AssetModel) set(p AssetV1) { m.a = p.Asset }
func (m *AssetModel) State() Asset  { return m.a }

// In reports a live asset of the workspace (404 otherwise).
func (m *AssetModel) In(workspaceID string) error {
	if m.a.AssetID == "" || m.a.Deleted || m.a.WorkspaceID != workspaceID {
		return errs.NotFound("asset")
	}
	return nil
}

// Store records a checked, stored image.
func (m *AssetModel) Store(a Asset) ([]event.Change, error) {
	var f fields
	f.name("/name", a.Name, MaxName)
	if err := f.err(); err != nil {
		return nil, err
	}
	if m.a.AssetID != "" {
		return nil, errs.Conflict("asset_exists", "the asset already exists")
	}
	a.Name = text.Trim(a.Name)
	return []event.Change{event.New(AssetStored, AssetV1{Asset: a})}, nil
}

// Delete removes the asset; designs that show it fail to export until
// changed (the caller checks none does: 409 asset_in_use).
func (m *AssetModel) Delete() ([]event.Change, error) {
	next := m.a
	next.Deleted = true
	return []event.Change{event.New(AssetDeleted, AssetV1{Asset: next})}, nil
}
