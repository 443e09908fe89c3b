package gateway

import (
	"encoding/json"

	"github.com/platform/backend/domain/text"
	httpapi "github.com/platform/backend/http"
)

// Shared input members of the gateway's actions (bounds: domain/text).
var (
	appIDSchema   = httpapi.WithMember(httpapi.LineSchema(1, text.MaxID), "default", "unknown")
	limitSchema   = `{"type":"integer","minimum":1,"maximum":200}`
	booleanSchema = `{"type":"boolean"}`
)

// open makes an output schema's root object open: seed 001, "all gateway
// actions return a JSON object with open members".
func open(v any, opts ...httpapi.OutputOption) json.RawMessage {
	return httpapi.OutputOf(v, append(opts, httpapi.OpenObject(""))...)
}
