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
	itemSchema     = string(httpapi.Object(nil, map[string]string{"text": copySchema, "media": mediaSchema, "link": linkSchema}))
	threadSchema   = `{"type":"array","maxItems":` + itoa(domain.MaxThreadItems-1) + `,"items":` + itemSchema + `}`
	targetSchema   = string(httpapi.Object([]string{"network"}, map[string]string{"network": networkSchema,
		"accountId": httpapi.LineSchema(1, text.MaxID), "pageId": httpapi.LineSchema(1, text.MaxID)}))
	targetsSchema = `{"type":"array","minItems":1,"maxItems":` + itoa(domain.MaxTargets) + `,"items":` + targetSchema + `}`
	postStatuses  = []string{domain.StateDraft, domain.StateScheduled, domain.StatePublishing, domain.StatePublished,
		domain.StatusPartiallyPublished, domain.StateFailed, domain.StatusDeleted}
	targetStates = []string{domain.StateDraft, domain.StateScheduled, domain.StatePublishing, domain.StatePublished,
		domain.StateFailed, domain.StateUnconfirmed}
)

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
