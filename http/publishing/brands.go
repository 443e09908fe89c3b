package publishing

import (
	"context"
	"net/http"

	pubcmd "github.com/platform/backend/commands/publishing"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/principal"
	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/domain/text"
	httpapi "github.com/platform/backend/http"
	view "github.com/platform/backend/projections/publishing"
)

// BrandList is brands.list's answer.
type BrandList struct {
	Brands []domain.Brand `json:"brands"`
}

// BrandRef names a brand (readiness).
type BrandRef struct {
	BrandID string `json:"brandId"`
}

var readinessOut = httpapi.OutputOf(pubcmd.BrandReadiness{},
	httpapi.EnumOf("platforms[].network", domain.Networks...),
	httpapi.EnumOf("platforms[].integration", pubcmd.ReadinessProduction, pubcmd.ReadinessSandbox, pubcmd.ReadinessSetup, pubcmd.ReadinessPlanned))

func (d Deps) brandActions() []httpapi.Action {
	return []httpapi.Action{
		bearerOnly(httpapi.Query(httpapi.Action{
			Name: "brands.list", Method: http.MethodGet, Path: "/api/brands", Permission: "accounts:read", ReadOnly: true,
			Summary: "The organization's brands with their connections", ReadModel: view.Name, OutputSchema: brandListOut,
		}, d.listBrands)),
		bearerOnly(httpapi.Command(httpapi.Action{
			Name: "brands.create", Method: http.MethodPost, Path: "/api/brands", Permission: "accounts:write",
			SuccessStatus: http.StatusCreated, InvalidStatus: http.StatusBadRequest, Summary: "Create a brand", OutputSchema: brandOut,
			InputSchema: httpapi.Object([]string{"name"}, map[string]string{"name": httpapi.LineSchema(1, text.MaxTitle)}),
		}, d.Commands.CreateBrand)),
		bearerOnly(httpapi.CommandAs(httpapi.Action{
			Name: "brands.brand_kit.set", Method: http.MethodPut, Path: "/api/brands/{brandId}/brand-kit", Permission: "accounts:write",
			InvalidStatus: http.StatusBadRequest, OutputSchema: brandOut, ReadModel: view.Name,
			Summary: "Name the brand kit the brand follows (the brand service's: a kit the caller sees, its organization's or the " +
				"library's); null or an empty string for none",
			InputSchema: httpapi.Object([]string{"brandId", "brandKitId"}, map[string]string{"brandId": idSchema,
				"brandKitId": httpapi.NullableLine(text.MaxID)}),
		}, d.Commands.SetBrandKit)),
		bearerOnly(httpapi.Command(httpapi.Action{
			Name: "brands.transfer_organization", Method: http.MethodPost, Path: "/api/brands/{brandId}/transfer-organization",
			Permission: "accounts:write", InvalidStatus: http.StatusBadRequest, OutputSchema: brandOut,
			Summary:     "Move a brand to another organization the caller can access; the brand's id and content stay",
			InputSchema: httpapi.Object([]string{"brandId", "organizationId"}, map[string]string{"brandId": idSchema, "organizationId": idSchema}),
		}, d.Commands.TransferBrand)),
		machine(httpapi.Query(httpapi.Action{
			Name: "brands.publishing_readiness", Method: http.MethodGet, Path: "/api/brands/{brandId}/publishing-readiness",
			Permission: "accounts:read", ReadOnly: true, ReadModel: view.Name, OutputSchema: readinessOut,
			Summary:     "Machine-readable readiness by platform: connected, token valid until, scopes, page chosen, last error",
			InputSchema: httpapi.Object([]string{"brandId"}, map[string]string{"brandId": idSchema}),
		}, d.readiness)),
	}
}

func (d Deps) listBrands(ctx context.Context, p principal.Principal, _ struct{}) (BrandList, error) {
	list, err := d.Queries.Brands(ctx, p.OrganizationID)
	return BrandList{Brands: list}, err
}

func (d Deps) readiness(ctx context.Context, p principal.Principal, in BrandRef) (pubcmd.BrandReadiness, error) {
	b, err := d.Queries.Brand(ctx, p.OrganizationID, in.BrandID)
	if err != nil {
		return pubcmd.BrandReadiness{}, err
	}
	return pubcmd.ReadinessOf(b, d.Networks, d.Commands.Now()), nil
}

var _ = errs.NotFound
