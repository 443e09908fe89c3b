package publishing

import (
	"encoding/json"

	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/domain/text"
	httpapi "github.com/platform/backend/http"
	view "github.com/platform/backend/projections/publishing"
)

// Member schemas of the publishing API's inputs (limits: domain/text and
// domain/publishing).
var (
	idSchema       = httpapi.NonEmptyID
	copySchema     = httpapi.TextSchema(0, domain.MaxText)
	linkSchema     = httpapi.URLSchema("https?")
	mediaSchema    = `{"type":"array","maxItems":` + itoa(domain.MaxMediaPerPost) + `,"items":` + httpapi.NonEmptyID + `}`
	networkSchema  = enum(domain.Networks...)
	dateTimeSchema = httpapi.DateTimeSchema()
	limitSchema    = `{"type":"integer","minimum":1,"maximum":500}`
	itemSchema     = string(textOrMedia(httpapi.Object(nil, map[string]string{"text": copySchema, "media": mediaSchema, "link": linkSchema})))
	threadSchema   = `{"type":"array","maxItems":` + itoa(domain.MaxThreadItems-1) + `,"items":` + itemSchema + `}`
	targetSchema   = string(httpapi.Object([]string{"network"}, map[string]string{"network": networkSchema,
		"accountId": httpapi.LineSchema(1, text.MaxID), "pageId": httpapi.LineSchema(1, text.MaxID)}))
	targetsSchema = `{"type":"array","minItems":1,"maxItems":` + itoa(domain.MaxTargets) + `,"uniqueItems":true,"items":` + targetSchema + `}`
	postStatuses  = []string{domain.StateDraft, domain.StateScheduled, domain.StatePublishing, domain.StatePublished,
		domain.StatusPartiallyPublished, domain.StateFailed, domain.StatusDeleted}
	targetStates = []string{domain.StateDraft, domain.StateScheduled, domain.StatePublishing, domain.StatePublished,
		domain.StateFailed, domain.StateUnconfirmed}
)

// textOrMedia says in the schema what the domain checks: an item (a post,
// a thread reply) has non-empty text or at least one media file.
func textOrMedia(schema json.RawMessage) json.RawMessage {
	var s map[string]any
	if err := json.Unmarshal(schema, &s); err != nil {
		return schema
	}
	s["anyOf"] = []any{
		map[string]any{"required": []string{"text"}, "properties": map[string]any{"text": map[string]any{"minLength": 1}}},
		map[string]any{"required": []string{"media"}, "properties": map[string]any{"media": map[string]any{"minItems": 1}}},
	}
	out, err := json.Marshal(s)
	if err != nil {
		return schema
	}
	return out
}

// scheduledNeedsTime says in a create's schema what the domain checks
// (checkSchedule): status scheduled needs publishAt (a create has no stored
// time to fall back on; an update may, so it is not said there).
func scheduledNeedsTime(schema json.RawMessage) json.RawMessage {
	var s map[string]any
	if err := json.Unmarshal(schema, &s); err != nil {
		return schema
	}
	s["allOf"] = []any{map[string]any{"anyOf": []any{
		map[string]any{"properties": map[string]any{"status": map[string]any{"const": domain.StateDraft}}},
		map[string]any{"required": []string{"publishAt"}},
	}}}
	out, err := json.Marshal(s)
	if err != nil {
		return schema
	}
	return out
}

// anyRequired adds to an object schema that one of the members is present
// and not empty (a seed's title or text).
func anyRequired(schema json.RawMessage, members ...string) json.RawMessage {
	var s map[string]any
	if err := json.Unmarshal(schema, &s); err != nil {
		return schema
	}
	var anyOf []any
	for _, m := range members {
		anyOf = append(anyOf, map[string]any{"required": []string{m}, "properties": map[string]any{m: map[string]any{"minLength": 1}}})
	}
	s["anyOf"] = anyOf
	out, err := json.Marshal(s)
	if err != nil {
		return schema
	}
	return out
}

func enum(values ...string) string {
	out, _ := json.Marshal(map[string]any{"type": "string", "enum": values})
	return string(out)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// postOptions describe a post's enums wherever a post is answered (prefix
// "" for a post at the root, "posts[]." inside a list).
func postOptions(prefix string) []httpapi.OutputOption {
	return []httpapi.OutputOption{
		httpapi.EnumOf(prefix+"status", postStatuses...),
		httpapi.EnumOf(prefix+"origin", domain.OriginManual, domain.OriginSuggestion),
		httpapi.EnumOf(prefix+"approval", domain.ApprovalNone, domain.ApprovalPending, domain.ApprovalApproved, domain.ApprovalRejected),
		httpapi.EnumOf(prefix+"targets[].state", targetStates...),
		httpapi.EnumOf(prefix+"targets[].network", domain.Networks...),
	}
}

var (
	postOut      = httpapi.OutputOf(domain.Post{}, postOptions("")...)
	postListOut  = httpapi.OutputOf(PostList{}, postOptions("posts[].")...)
	brandOut     = httpapi.OutputOf(domain.Brand{}, brandOptions("")...)
	brandListOut = httpapi.OutputOf(BrandList{}, brandOptions("brands[].")...)
	queueItemOpt = func(prefix string) []httpapi.OutputOption {
		return []httpapi.OutputOption{httpapi.EnumOf(prefix+"publish_status", postStatuses...),
			httpapi.EnumOf(prefix+"actions[]", view.ActionNames...),
			httpapi.EnumOf(prefix+"approval", domain.ApprovalNone, domain.ApprovalPending, domain.ApprovalApproved, domain.ApprovalRejected)}
	}
)

func brandOptions(prefix string) []httpapi.OutputOption {
	return []httpapi.OutputOption{httpapi.EnumOf(prefix+"connections[].status", domain.ConnectionActive, domain.ConnectionReconnect),
		httpapi.EnumOf(prefix+"connections[].network", domain.Networks...)}
}
