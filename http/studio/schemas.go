package studio

import (
	"encoding/json"

	studiocmd "github.com/platform/backend/commands/studio"
	domain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/domain/text"
	httpapi "github.com/platform/backend/http"
	studioview "github.com/platform/backend/projections/studio"
)

// Input member schemas of the studio (bounds: domain/studio and domain/text).
var (
	// slugSchema is a workspace slug in a path (an unknown one is 404); its
	// example is the slug every organization has, so clients and the fuzzing
	// gate reach a workspace.
	slugSchema     = httpapi.WithMember(httpapi.LineSchema(1, text.MaxID), "examples", []string{"default"})
	idSchema       = httpapi.LineSchema(1, text.MaxID)
	titleSchema    = httpapi.StringSchema(1, domain.MaxTitle, text.NonBlankLinePattern, nil) // trimmed; not blank
	optTitle       = titleSchema
	longNullable   = httpapi.StringSchema(0, domain.MaxLongText, text.MultiLinePattern, []string{"string", "null"})
	refNullable    = httpapi.NullableLine(domain.MaxRef)
	promptNullable = httpapi.StringSchema(0, domain.MaxPrompt, text.MultiLinePattern, []string{"string", "null"})
	boolSchema     = `{"type":"boolean"}`
	durationSchema = `{"type":"integer","minimum":100,"maximum":60000}`
	positionSchema = `{"type":"integer","minimum":1,"maximum":100}`
	limitSchema    = `{"type":"integer","minimum":1,"maximum":200}`
	cursorSchema   = httpapi.LineSchema(1, text.MaxID)
	notesSchema    = `{"type":"array","maxItems":50,"items":` + httpapi.StringSchema(1, domain.MaxLongText, text.NonBlankTextPattern, nil) + `}`
	valuesSchema   = `{"type":"object","maxProperties":50,"propertyNames":{"maxLength":64,"pattern":"^[A-Za-z0-9_.-]+$"},` +
		`"additionalProperties":{"type":["string","number","boolean","null"],"maxLength":2000,"pattern":"^[^\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f]*$"}}`
	platformsSchema   = `{"type":"array","maxItems":6,"items":` + enum(domain.Networks...) + `}`
	aspectSchema      = enum(domain.AspectRatios...)
	genStatusSchema   = enum(domain.GenerationStatuses...)
	sourceKindSchema  = enum(domain.SourceKinds...)
	renderStatusEnum  = enum(domain.RenderStatuses...)
	outputFormatEnum  = enum(domain.OutputFormats...)
	prioritySchema    = `{"type":"integer","minimum":0,"maximum":10}`
	progressSchema    = `{"type":"integer","minimum":0,"maximum":100}`
	providerSchema    = httpapi.StringSchema(1, domain.MaxProvider, text.NonBlankLinePattern, nil)
	genProviderEnum   = enum(domain.GenerationProviders...)
	genProviderNull   = nullableEnum(domain.GenerationProviders...)
	overrideNull      = nullableEnum(domain.GatewayOverrides...)
	modelNull         = httpapi.StringSchema(1, domain.MaxModelOverride, text.NonBlankLinePattern, []string{"string", "null"})
	candidateSchema   = `{"type":"integer","minimum":1,"maximum":4}`
	videoSecondsNull  = `{"type":["integer","null"],"minimum":1,"maximum":15}`
	outputKindSchema  = enum(domain.OutputKinds...)
	sceneIDsSchema    = `{"type":"array","minItems":1,"maxItems":100,"items":` + idSchema + `}`
	sceneCountSchema  = `{"type":"integer","minimum":1,"maximum":20}`
	dateTimeNullable  = httpapi.WithFormat(httpapi.StringSchema(0, text.MaxDateTime, "", []string{"string", "null"}), "date-time")
	reasonSchema      = httpapi.LineSchema(1, domain.MaxReason)
	noteNullable      = longNullable
	confirmationConst = `{"type":"string","const":"ERASE"}`
	assetKindEnum     = enum(domain.AssetImage, domain.AssetVideo, domain.AssetAudio, domain.AssetFont, domain.AssetArchive)
)

func enum(values ...string) string {
	raw, _ := json.Marshal(map[string]any{"type": "string", "enum": values})
	return string(raw)
}

func nullableEnum(values ...string) string {
	vs := append([]any{}, toAny(values)...)
	vs = append(vs, nil)
	raw, _ := json.Marshal(map[string]any{"type": []string{"string", "null"}, "enum": vs})
	return string(raw)
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// Output schemas of the studio (http/outputs.go).
var (
	projectOut     = httpapi.OutputOf(domain.Project{})
	projectPageOut = httpapi.OutputOf(studioview.ProjectPage{})
	sceneListOut   = httpapi.OutputOf(studiocmd.SceneList{})
	approvalOut    = httpapi.OutputOf(domain.Approval{}, httpapi.EnumOf("status", "requested", "approved", "rejected"))
	approvalsOut   = httpapi.ObjectOf(map[string]json.RawMessage{"approvals": httpapi.ArrayOf(approvalOut)})
	snapshotOut    = json.RawMessage(domain.SnapshotSchema)
	compositionOut = httpapi.OutputOf(domain.Composition{}, httpapi.WithSchema("snapshot", string(snapshotOut)),
		httpapi.EnumOf("aspectRatio", domain.AspectRatios...), httpapi.EnumOf("sourceKind", domain.SourceKinds...),
		httpapi.EnumOf("generationStatus", domain.GenerationStatuses...))
	compositionsOut = httpapi.ObjectOf(map[string]json.RawMessage{"compositions": httpapi.ArrayOf(compositionOut)})
	renderJobOut    = httpapi.OutputOf(domain.RenderJob{}, httpapi.EnumOf("renderStatus", domain.RenderStatuses...),
		httpapi.EnumOf("outputFormat", domain.OutputFormats...))
	renderJobsOut = httpapi.ObjectOf(map[string]json.RawMessage{"renderJobs": httpapi.ArrayOf(renderJobOut)})
	generationOut = httpapi.OutputOf(domain.Generation{}, httpapi.EnumOf("status", domain.GenerationStatuses...),
		httpapi.EnumOf("kind", domain.GenerationPlanning, domain.GenerationScenes), httpapi.EnumOf("outputKind", domain.OutputKinds...))
	assetViewOut = httpapi.OutputOf(AssetView{}, httpapi.EnumOf("kind", domain.AssetImage, domain.AssetVideo, domain.AssetAudio,
		domain.AssetFont, domain.AssetArchive))
	assetOut     = httpapi.OutputOf(domain.Asset{})
	assetPageOut = httpapi.OutputOf(AssetPage{}, httpapi.EnumOf("assets[].kind", domain.AssetImage, domain.AssetVideo, domain.AssetAudio,
		domain.AssetFont, domain.AssetArchive))
	templateOut   = httpapi.OutputOf(domain.Template{})
	templatesOut  = httpapi.ObjectOf(map[string]json.RawMessage{"templates": httpapi.ArrayOf(templateOut)})
	presetOut     = httpapi.OutputOf(domain.Preset{})
	presetsOut    = httpapi.ObjectOf(map[string]json.RawMessage{"presets": httpapi.ArrayOf(presetOut)})
	planningOut   = httpapi.OutputOf(Planning{})
	briefOut      = httpapi.OutputOf(BriefView{})
	syncOut       = httpapi.OutputOf(Sync{})
	quotaOut      = httpapi.OutputOf(QuotaView{})
	creativeOut   = httpapi.OutputOf(CreativeResources{})
	settingsOut   = httpapi.OutputOf(SettingsStatus{})
	modelsOut     = httpapi.OutputOf(ModelOptions{})
	workspacesOut = httpapi.OutputOf(studiocmd.WorkspaceList{})
	exportOut     = httpapi.OutputOf(studioview.Export{}, httpapi.WithSchema("compositions", string(compositionsArray)))
	erasureOut    = httpapi.OutputOf(studiocmd.Erasure{})
	whoamiOut     = httpapi.OutputOf(WhoAmI{})
	// bootstrapOut: seed 000's bootstrap answer, user and organization only.
	bootstrapOut = httpapi.Raw(`{"type":"object","additionalProperties":false,"required":["user","organization"],
		"properties":{"user":{},"organization":{}}}`)
	mobileProjectsOut = httpapi.OutputOf(MobileProjects{})
	mobileBriefOut    = httpapi.OutputOf(MobileBrief{})
	mobileReviewOut   = httpapi.OutputOf(MobileReview{}, httpapi.WithSchema("latestComposition", string(nullable(compositionOut))),
		httpapi.WithSchema("approvals", string(httpapi.ArrayOf(approvalOut))))
	previewOut      = httpapi.Raw(`{"type":"string","format":"binary","description":"the asset's bytes, with its content type"}`)
	assetBodySchema = httpapi.Raw(`{"type":"string","format":"binary","description":"the file; its Content-Type is the asset's type"}`)

	compositionsArray = httpapi.ArrayOf(compositionOut)
)

// nullable lets an object schema be null too.
func nullable(schema json.RawMessage) json.RawMessage {
	return json.RawMessage(`{"anyOf":[{"type":"null"},` + string(schema) + `]}`)
}
