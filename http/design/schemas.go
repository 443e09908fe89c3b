package design

import (
	"encoding/json"
	"fmt"
	"strconv"

	designcmd "github.com/platform/backend/commands/design"
	"github.com/platform/backend/domain/brands"
	domain "github.com/platform/backend/domain/design"
	"github.com/platform/backend/domain/text"
	httpapi "github.com/platform/backend/http"
	brandsview "github.com/platform/backend/projections/brands"
	designview "github.com/platform/backend/projections/design"
)

// Input member schemas (bounds: domain/design and domain/text).
var (
	slugSchema    = httpapi.WithMember(httpapi.LineSchema(1, text.MaxID), "examples", []string{"default"})
	idSchema      = httpapi.LineSchema(1, text.MaxID)
	nameSchema    = httpapi.StringSchema(1, domain.MaxName, text.NonBlankLinePattern, nil)
	descSchema    = httpapi.StringSchema(0, domain.MaxDescription, text.MultiLinePattern, []string{"string", "null"})
	hexSchema     = httpapi.PatternSchema(7, brands.HexPattern)
	hexNullable   = httpapi.StringSchema(7, 7, brands.HexPattern, []string{"string", "null"})
	partIDSchema  = httpapi.PatternSchema(64, domain.IDPattern)
	sideSchema    = fmt.Sprintf(`{"type":"integer","minimum":%d,"maximum":%d}`, domain.MinSide, domain.MaxSide)
	fpsSchema     = fmt.Sprintf(`{"type":"integer","minimum":1,"maximum":%d}`, domain.MaxFPS)
	coordSchema   = fmt.Sprintf(`{"type":"number","minimum":%d,"maximum":%d}`, -domain.MaxCoordinate, domain.MaxCoordinate)
	lengthSchema  = fmt.Sprintf(`{"type":"number","minimum":0,"maximum":%d}`, domain.MaxCoordinate)
	angleSchema   = `{"type":"number","minimum":-3600,"maximum":3600}`
	unitSchema    = `{"type":"number","minimum":0,"maximum":1}`
	unitNullable  = `{"type":["number","null"],"minimum":0,"maximum":1}`
	strokeSchema  = fmt.Sprintf(`{"type":"number","minimum":0,"maximum":%d}`, domain.MaxStroke)
	weightSchema  = `{"type":"integer","minimum":100,"maximum":900}`
	fontSize      = fmt.Sprintf(`{"type":"number","minimum":1,"maximum":%d}`, domain.MaxFontSize)
	familySchema  = httpapi.StringSchema(1, brands.MaxFamily, text.NonBlankLinePattern, nil)
	textSchema    = httpapi.StringSchema(1, domain.MaxText, text.NonBlankTextPattern, nil)
	pathSchema    = httpapi.PatternSchema(domain.MaxPath, domain.PathPattern)
	pageMsSchema  = fmt.Sprintf(`{"type":"integer","minimum":%d,"maximum":%d}`, domain.MinPageMs, domain.MaxClipMs)
	atMsSchema    = fmt.Sprintf(`{"type":"integer","minimum":0,"maximum":%d}`, domain.MaxClipMs)
	scaleSchema   = fmt.Sprintf(`{"type":"number","minimum":%g,"maximum":%g}`, domain.MinScale, domain.MaxScale)
	qualitySchema = `{"type":"integer","minimum":1,"maximum":100}`
	limitSchema   = `{"type":"integer","minimum":1,"maximum":200}`
	cursorSchema  = httpapi.LineSchema(1, text.MaxID)
	confirmation  = `{"type":"string","const":"ERASE"}`

	keyframeSchema = `{"type":"object","additionalProperties":false,"required":["atMs"],"properties":{"atMs":` + atMsSchema +
		`,"x":` + coordSchema + `,"y":` + coordSchema + `,"opacity":` + unitSchema + `,"rotation":` + angleSchema +
		`,"scale":{"type":"number","minimum":0.01,"maximum":100},"easing":` + enum(domain.Easings...) + `}}`
	imageSchema = `{"type":"object","additionalProperties":false,"properties":{"logoId":` + httpapi.NullableLine(text.MaxID) +
		`,"assetId":` + httpapi.NullableLine(text.MaxID) + `}}`
	pageSchema  = pageOf(layerSchema(1))
	pagesSchema = `{"type":"array","minItems":1,"maxItems":` + strconv.Itoa(domain.MaxPages) + `,"items":` + pageSchema + `}`
)

func enum(values ...string) string {
	raw, _ := json.Marshal(map[string]any{"type": "string", "enum": values})
	return string(raw)
}

// layerSchema is a layer at a depth of groups: its children are layers one
// deeper, down to domain.MaxDepth (no recursion: OpenAPI documents and
// fuzzers read it inline).
func layerSchema(depth int) string {
	props := map[string]string{"layerId": partIDSchema, "type": enum(domain.LayerTypes...), "name": httpapi.NullableLine(domain.MaxName),
		"x": coordSchema, "y": coordSchema, "width": lengthSchema, "height": lengthSchema, "rotation": angleSchema, "opacity": unitNullable,
		"fill": hexNullable, "stroke": hexNullable, "strokeWidth": strokeSchema, "cornerRadius": lengthSchema, "path": pathSchema,
		"text": textSchema, "fontFamily": familySchema, "fontWeight": weightSchema, "fontStyle": enum(domain.Styles...), "fontSize": fontSize,
		"align": enum(domain.Aligns...), "image": imageSchema, "fit": enum(domain.Fits...),
		"keyframes": `{"type":"array","maxItems":` + strconv.Itoa(domain.MaxKeyframes) + `,"items":` + keyframeSchema + `}`}
	if depth < domain.MaxDepth {
		props["children"] = `{"type":"array","maxItems":` + strconv.Itoa(domain.MaxLayers) + `,"items":` + layerSchema(depth+1) + `}`
	}
	return string(httpapi.Object([]string{"layerId", "type"}, props))
}

func pageOf(layer string) string {
	return string(httpapi.Object([]string{"pageId"}, map[string]string{"pageId": partIDSchema, "name": httpapi.NullableLine(domain.MaxName),
		"background": hexNullable, "durationMs": pageMsSchema,
		"layers": `{"type":"array","maxItems":` + strconv.Itoa(domain.MaxLayers) + `,"items":` + layer + `}`}))
}

// Output schemas.
var (
	projectOut     = httpapi.OutputOf(domain.Project{})
	projectPageOut = httpapi.OutputOf(designview.ProjectPage{})
	designOut      = httpapi.OutputOf(domain.Design{})
	designPageOut  = httpapi.OutputOf(designview.DesignPage{})
	assetOut       = httpapi.OutputOf(domain.Asset{})
	assetPageOut   = httpapi.OutputOf(designview.AssetPage{})
	exportOut      = httpapi.OutputOf(domain.Export{}, httpapi.EnumOf("status", domain.ExportStatuses...),
		httpapi.EnumOf("format", domain.Formats...))
	exportsOut   = httpapi.ObjectOf(map[string]json.RawMessage{"exports": httpapi.ArrayOf(exportOut)})
	downloadOut  = httpapi.OutputOf(designcmd.Download{}, httpapi.FormatOf("url", "uri"))
	erasureOut   = httpapi.OutputOf(designcmd.Erasure{})
	dataOut      = httpapi.OutputOf(designview.Export{})
	kitOut       = httpapi.OutputOf(brands.Version{})
	optionsOut   = httpapi.OutputOf(brandsview.Options{})
	bootstrapOut = httpapi.Raw(`{"type":"object","additionalProperties":false,"required":["user","organization"],
		"properties":{"user":{},"organization":{}}}`)
	previewOut = httpapi.Raw(`{"type":"string","format":"binary","description":"the page drawn as a PNG"}`)
	imageBody  = httpapi.Raw(`{"type":"string","format":"binary","description":"a PNG or JPEG image, its Content-Type its type"}`)
)
