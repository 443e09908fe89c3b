package brands

import (
	"context"
	"encoding/json"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/brands"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/eventstore"
)

// PublishKit is brand_kits.publish.
type PublishKit struct {
	KitID string  `json:"kitId"`
	Note  *string `json:"note"`
}

// PublishKit freezes the draft as the kit's next version, its current one
// from now on (kits:manage). Designs pinned to an earlier version keep it.
func (h *Handlers) PublishKit(ctx context.Context, m commands.Meta, p principal.Principal, in PublishKit) (commands.Result[domain.Kit], error) {
	versionID := newID()
	var version *domain.Version
	return h.onKit(ctx, m, p, in.KitID, PermKitsManage, func(km *domain.KitModel) ([]event.Change, error) {
		changes, v, err := km.Publish(versionID, in.Note, p.Author(), h.now())
		version = v
		return changes, err
	}, func(k domain.Kit) []eventstore.Write {
		if version == nil {
			return nil
		}
		doc, _ := json.Marshal(version) // a struct of strings, numbers and times: it encodes
		return []eventstore.Write{{SQL: `INSERT INTO brands_versions (version_id, kit_id, organization_id, workspace_id, number, doc, published_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (version_id) DO NOTHING`,
			Args: []any{version.VersionID, version.KitID, version.OrganizationID, k.WorkspaceID, version.Number, json.RawMessage(doc), version.PublishedAt}}}
	})
}
