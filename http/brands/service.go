// Package brands is the brand service (seed 000's dependency of the design
// service): brand kits, their draft colours, fonts and logos, publication
// as versions, the files' signed links, and the dashboard tile.
package brands

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	brandscmd "github.com/platform/backend/commands/brands"
	domain "github.com/platform/backend/domain/brands"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/domain/text"
	httpapi "github.com/platform/backend/http"
	brandsview "github.com/platform/backend/projections/brands"
)

// Deps are what the brand service's routes call.
type Deps struct {
	Commands *brandscmd.Handlers
	Queries  *brandsview.Queries
}

var (
	slugSchema   = httpapi.WithMember(httpapi.LineSchema(1, text.MaxID), "examples", []string{"default"})
	idSchema     = httpapi.LineSchema(1, text.MaxID)
	nameSchema   = httpapi.StringSchema(1, domain.MaxName, text.NonBlankLinePattern, nil)
	colourSchema = `{"type":"object","additionalProperties":false,"required":["name","hex"],"properties":{"name":` +
		httpapi.StringSchema(1, domain.MaxColourName, text.NonBlankLinePattern, nil) + `,"hex":` +
		httpapi.PatternSchema(7, domain.HexPattern) + `}}`
	coloursSchema = `{"type":"array","maxItems":` + strconv.Itoa(domain.MaxColours) + `,"items":` + colourSchema + `}`
	boolSchema    = `{"type":"boolean"}`
	noteSchema    = httpapi.StringSchema(0, domain.MaxNote, text.LinePattern, []string{"string", "null"})

	kitOut      = httpapi.OutputOf(domain.Kit{})
	kitViewOut  = httpapi.OutputOf(brandsview.KitView{})
	kitsOut     = httpapi.ObjectOf(map[string]json.RawMessage{"kits": httpapi.ArrayOf(kitViewOut)})
	versionOut  = httpapi.OutputOf(domain.Version{})
	versionsOut = httpapi.ObjectOf(map[string]json.RawMessage{"versions": httpapi.ArrayOf(versionOut)})
	linkOut     = httpapi.OutputOf(brandscmd.FileLink{}, httpapi.FormatOf("url", "uri"), httpapi.FormatOf("expiresAt", "date-time"))
	fontBody    = httpapi.Raw(`{"type":"string","format":"binary","description":"a TTF, OTF or WOFF2 font file"}`)
	logoBody    = httpapi.Raw(`{"type":"string","format":"binary","description":"a PNG or JPEG image, its Content-Type its type"}`)
)

// fontTypes are the Content-Types a font upload may declare (the file's
// own bytes decide what it is).
var fontTypes = []string{"font/ttf", "font/otf", "font/woff2", "font/sfnt", "application/font-sfnt", "application/vnd.ms-opentype",
	"application/x-font-ttf", "application/x-font-otf", "application/octet-stream"}

const kit = "/api/brand-kits/{kitId}"

// Service is the brand service.
func Service(d Deps) httpapi.Service {
	c := d.Commands
	read := brandsview.Name
	kitIn := func(more map[string]string, required ...string) json.RawMessage {
		m := map[string]string{"kitId": idSchema}
		for k, v := range more {
			m[k] = v
		}
		return httpapi.Object(append([]string{"kitId"}, required...), m)
	}
	return httpapi.Service{
		Name: "brands", AppID: brandscmd.AppID,
		Actions: []httpapi.Action{
			httpapi.Query(httpapi.Action{Name: "brand_kits.list", Method: http.MethodGet, Path: "/api/brand-kits", Permission: "kits:read",
				ReadOnly: true, ReadModel: read, OutputSchema: kitsOut,
				Summary: "The brand kits the caller sees: its organization's (of no workspace, or of one it may enter) and the library's published kits"},
				func(ctx context.Context, p principal.Principal, _ httpapi.NoInput) (map[string][]brandsview.KitView, error) {
					kits, err := d.Queries.Kits(ctx, p)
					return map[string][]brandsview.KitView{"kits": kits}, err
				}),
			httpapi.CommandAs(httpapi.Action{Name: "brand_kits.create", Method: http.MethodPost, Path: "/api/brand-kits", Permission: "kits:write",
				AuthorizationMode: httpapi.AuthRuntime, SuccessStatus: http.StatusCreated, ReadModel: read, OutputSchema: kitOut,
				Summary: "Start a brand kit with a draft palette: of a workspace (kits:write there) or of the whole organization " +
					"(a credential bound to no workspace); availableForDesign defaults to true",
				InputSchema: httpapi.Object([]string{"name"}, map[string]string{"name": nameSchema, "workspaceSlug": slugSchema,
					"colours": coloursSchema, "availableForDesign": boolSchema})}, c.CreateKit),
			httpapi.Query(httpapi.Action{Name: "brand_kits.get", Method: http.MethodGet, Path: kit, Permission: "kits:read", ReadOnly: true,
				ReadModel: read, OutputSchema: kitViewOut, Summary: "A brand kit with its draft (the owner's) and its current version's id",
				InputSchema: kitIn(nil)}, func(ctx context.Context, p principal.Principal, in brandscmd.KitRef) (brandsview.KitView, error) {
				return d.Queries.Kit(ctx, p, in.KitID)
			}),
			httpapi.CommandAs(httpapi.Action{Name: "brand_kits.update", Method: http.MethodPatch, Path: kit, Permission: "kits:write",
				AuthorizationMode: httpapi.AuthRuntime, ReadModel: read, OutputSchema: kitOut,
				Summary: "Change the draft's name or palette (colours replaces it); availableForDesign is a brand manager's (kits:manage)",
				InputSchema: httpapi.RequireAnyOf(kitIn(map[string]string{"name": nameSchema, "colours": coloursSchema,
					"availableForDesign": boolSchema}), "name", "colours", "availableForDesign")}, c.UpdateKit),
			httpapi.CommandAs(httpapi.Action{Name: "brand_kits.delete", Method: http.MethodDelete, Path: kit, Permission: "kits:manage",
				Destructive: true, ReadModel: read, OutputSchema: kitOut,
				Summary:     "Retire a kit: it leaves every list and governs no new design; designs pinned to its versions keep them",
				InputSchema: kitIn(nil)}, c.DeleteKit),
			httpapi.CommandAs(httpapi.Action{Name: "brand_kits.publish", Method: http.MethodPost, Path: kit + "/publish", Permission: "kits:manage",
				ReadModel: read, OutputSchema: kitOut,
				Summary: "Freeze the draft as the kit's next version, its current one from now on (a draft needs a colour; 409 " +
					"nothing_to_publish when it is the current version already). Designs keep the version they pin",
				InputSchema: kitIn(map[string]string{"note": noteSchema})}, c.PublishKit),
			httpapi.Query(httpapi.Action{Name: "brand_kits.versions.list", Method: http.MethodGet, Path: kit + "/versions", Permission: "kits:read",
				ReadOnly: true, ReadModel: read, OutputSchema: versionsOut, Summary: "A kit's published versions, newest first",
				InputSchema: kitIn(nil)}, func(ctx context.Context, p principal.Principal, in brandscmd.KitRef) (map[string][]domain.Version, error) {
				list, err := d.Queries.Versions(ctx, p, in.KitID)
				return map[string][]domain.Version{"versions": list}, err
			}),
			httpapi.Query(httpapi.Action{Name: "brand_kits.versions.get", Method: http.MethodGet, Path: kit + "/versions/{versionId}",
				Permission: "kits:read", ReadOnly: true, ReadModel: read, OutputSchema: versionOut,
				Summary: "One published version: its frozen colours, fonts and logos", InputSchema: kitIn(map[string]string{"versionId": idSchema},
					"versionId")}, func(ctx context.Context, p principal.Principal, in versionRef) (domain.Version, error) {
				return d.Queries.Version(ctx, p, in.KitID, in.VersionID)
			}),
			httpapi.Bytes(httpapi.Action{Name: "brand_kits.fonts.upload", Method: http.MethodPost, Path: kit + "/fonts", Permission: "kits:write",
				AuthorizationMode: httpapi.AuthRuntime, SuccessStatus: http.StatusCreated, ReadModel: read, OutputSchema: kitOut,
				Summary: "Add a font file to the draft: the body is a TTF, OTF or WOFF2 file, parsed; its family, weight and style are " +
					"what its tables say (409 font_exists for a family, weight and style the draft has)",
				InputSchema: kitIn(nil), Body: &httpapi.RawBody{MediaTypes: fontTypes, MaxBytes: c.Config().FontMaxBytes, Schema: fontBody}},
				func(ctx context.Context, call *httpapi.Call, in brandscmd.AddFont) (httpapi.Reply, error) {
					return httpapi.FromResult(c.AddFont(ctx, call.Meta, call.Principal, in, call.Body))
				}),
			httpapi.CommandAs(httpapi.Action{Name: "brand_kits.fonts.delete", Method: http.MethodDelete, Path: kit + "/fonts/{fileId}",
				Permission: "kits:write", AuthorizationMode: httpapi.AuthRuntime, Destructive: true, ReadModel: read, OutputSchema: kitOut,
				Summary:     "Take a font out of the draft (versions that hold it keep it)",
				InputSchema: kitIn(map[string]string{"fileId": idSchema}, "fileId")}, c.RemoveFont),
			httpapi.Query(httpapi.Action{Name: "brand_kits.fonts.download", Method: http.MethodGet, Path: kit + "/fonts/{fileId}/download",
				Permission: "kits:read", ReadOnly: true, OutputSchema: linkOut,
				Summary:     "A signed, expiring link to a font file of the kit (its draft's or a version's)",
				InputSchema: kitIn(map[string]string{"fileId": idSchema}, "fileId")}, d.link(brandscmd.KindFont)),
			httpapi.Bytes(httpapi.Action{Name: "brand_kits.logos.upload", Method: http.MethodPost, Path: kit + "/logos", Permission: "kits:write",
				AuthorizationMode: httpapi.AuthRuntime, SuccessStatus: http.StatusCreated, ReadModel: read, OutputSchema: kitOut,
				Summary:     "Add a logo to the draft: the body is a PNG or JPEG image, decoded to check it; name labels it",
				InputSchema: kitIn(map[string]string{"name": nameSchema}),
				Body:        &httpapi.RawBody{MediaTypes: domain.LogoTypes(), MaxBytes: c.Config().LogoMaxBytes, Schema: logoBody}},
				func(ctx context.Context, call *httpapi.Call, in brandscmd.AddLogo) (httpapi.Reply, error) {
					in.ContentType = call.MediaType
					return httpapi.FromResult(c.AddLogo(ctx, call.Meta, call.Principal, in, call.Body))
				}),
			httpapi.CommandAs(httpapi.Action{Name: "brand_kits.logos.delete", Method: http.MethodDelete, Path: kit + "/logos/{fileId}",
				Permission: "kits:write", AuthorizationMode: httpapi.AuthRuntime, Destructive: true, ReadModel: read, OutputSchema: kitOut,
				Summary:     "Take a logo out of the draft (versions that hold it keep it)",
				InputSchema: kitIn(map[string]string{"fileId": idSchema}, "fileId")}, c.RemoveLogo),
			httpapi.Query(httpapi.Action{Name: "brand_kits.logos.download", Method: http.MethodGet, Path: kit + "/logos/{fileId}/download",
				Permission: "kits:read", ReadOnly: true, OutputSchema: linkOut,
				Summary:     "A signed, expiring link to a logo of the kit (its draft's or a version's)",
				InputSchema: kitIn(map[string]string{"fileId": idSchema}, "fileId")}, d.link(brandscmd.KindLogo)),
		},
	}
}

type versionRef struct {
	KitID     string `json:"kitId"`
	VersionID string `json:"versionId"`
}

// link signs a kit file's download for a caller that sees the kit.
func (d Deps) link(kind string) func(ctx context.Context, p principal.Principal, in brandscmd.FileRef) (brandscmd.FileLink, error) {
	lib := d.Commands.Library()
	return func(ctx context.Context, p principal.Principal, in brandscmd.FileRef) (brandscmd.FileLink, error) {
		return d.Commands.Link(ctx, kind, func(k domain.Kit) bool {
			return (domain.Owner{OrganizationID: k.OrganizationID, WorkspaceID: k.WorkspaceID}).Sees(p, k.Published(), lib)
		}, in)
	}
}

// WidgetFigures are the brand service's tile: the kits the caller sees,
// how many are published, and how many govern designs.
type WidgetFigures struct {
	Kits      int `json:"kits"`
	Published int `json:"published"`
	Offered   int `json:"offered"`
}

// Widget is the brand service's dashboard tile (kits:read).
func Widget(d Deps) *httpapi.Widget {
	return httpapi.NewWidget(httpapi.Widget{Title: "Brand kits", Permission: "kits:read", ReadModel: brandsview.Name,
		Summary: "The brand kits' summary for the dashboard grid: kits, published, offered for governed design"},
		func(ctx context.Context, p principal.Principal) (WidgetFigures, error) {
			kits, err := d.Queries.Kits(ctx, p)
			var f WidgetFigures
			for _, k := range kits {
				f.Kits++
				if k.Published() {
					f.Published++
					if k.AvailableForDesign {
						f.Offered++
					}
				}
			}
			return f, err
		})
}
