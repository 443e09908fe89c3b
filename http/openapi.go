package httpapi

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

var pathParam = regexp.MustCompile(`\{([^}]+)\}`)

// OpenAPI generates an OpenAPI 3.1 document from a service's descriptors.
// Path parameters come from the path; the rest of the input schema is the
// query (reads) or the JSON body (writes), with the input schema's required
// members marked required there. Each operation lists its success answer
// (the action's output schema) and the problem answers it can give, every
// one with the shared Problem schema; no "default" response, so a status the
// document does not name is a finding of the fuzzing gate.
func OpenAPI(svc Service) map[string]any {
	paths := map[string]map[string]any{}
	schemas := map[string]any{"Problem": json.RawMessage(problemSchema)}
	shared := map[string]any{} // components.responses
	for _, a := range svc.Actions {
		var in map[string]any
		_ = json.Unmarshal(a.InputSchema, &in)
		props, _ := in["properties"].(map[string]any)
		required := map[string]bool{}
		for _, r := range toStrings(in["required"]) {
			required[r] = true
		}
		var params []map[string]any
		inPath := map[string]bool{}
		for _, m := range pathParam.FindAllStringSubmatch(a.Path, -1) {
			inPath[m[1]] = true
			params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "schema": props[m[1]]})
		}
		produces := "application/json"
		if a.Produces != "" {
			produces = a.Produces
		}
		success := map[string]any{produces: map[string]any{"schema": json.RawMessage(a.OutputSchema)}}
		if a.Streams {
			success["text/event-stream"] = map[string]any{"schema": json.RawMessage(eventSchema)}
		}
		responses := map[string]any{
			strconv.Itoa(a.SuccessStatus): map[string]any{"description": "success", "content": success},
		}
		if a.SuccessStatus == http.StatusNoContent {
			responses[strconv.Itoa(a.SuccessStatus)] = map[string]any{"description": "success, no content"}
		}
		if a.Errors != nil {
			dialectResponses(a, svc.InvalidInputStatus, responses, shared)
			schemas[a.Errors.Name+"Error"] = a.Errors.Schema
		} else {
			for _, status := range problemStatuses(a, svc.InvalidInputStatus) {
				responses[strconv.Itoa(status)] = map[string]any{"$ref": "#/components/responses/Problem" + strconv.Itoa(status)}
			}
		}
		op := map[string]any{
			"operationId": a.Name, "summary": a.Summary,
			"x-action": map[string]any{"permission": a.Permission, "readOnly": a.ReadOnly, "destructive": a.Destructive,
				"requiresConfirmation": a.RequiresConfirmation, "agentAccess": a.AgentAccess, "authorizationMode": a.AuthorizationMode},
			"responses": responses,
		}
		if a.AuthorizationMode != AuthPublic {
			op["security"] = []map[string][]string{{"bearer": {}}, {"apiKey": {}}}
		}
		var names []string
		for name := range props {
			if !inPath[name] {
				names = append(names, name)
			}
		}
		sort.Strings(names)
		if a.ReadOnly || a.Body != nil { // a raw body leaves the input to the query
			for _, name := range names {
				params = append(params, map[string]any{"name": name, "in": "query", "required": required[name], "schema": props[name]})
			}
		}
		if a.Body != nil {
			content := map[string]any{}
			for _, mt := range a.Body.MediaTypes {
				content[mt] = map[string]any{"schema": a.Body.Schema}
			}
			op["requestBody"] = map[string]any{"required": true, "content": content}
		}
		if !a.ReadOnly {
			if len(names) > 0 && a.Body == nil {
				body := bodySchema(in, inPath)
				op["requestBody"] = map[string]any{"required": bodyRequired(a.Name, body),
					"content": map[string]any{"application/json": map[string]any{"schema": body}}}
			}
			if !a.NoIdempotencyKey {
				params = append(params, map[string]any{"name": HeaderIdempotencyKey, "in": "header", "schema": map[string]any{"type": "string", "maxLength": 255}})
			}
		}
		if len(params) > 0 {
			op["parameters"] = params
		}
		if paths[a.Path] == nil {
			paths[a.Path] = map[string]any{}
		}
		paths[a.Path][strings.ToLower(a.Method)] = op
	}
	problems := shared
	for _, status := range []int{400, 401, 402, 403, 404, 409, 413, 415, 422, 429, 502, 503, 504} {
		desc := "a problem (RFC 9457): " + http.StatusText(status)
		r := map[string]any{"description": desc,
			"content": map[string]any{"application/problem+json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Problem"}}}}
		if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
			r["headers"] = retryAfterHeader
		}
		problems["Problem"+strconv.Itoa(status)] = r
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info":    map[string]any{"title": svc.Name + " service", "version": "1"},
		"paths":   paths,
		"components": map[string]any{
			"securitySchemes": map[string]any{
				"bearer": map[string]any{"type": "http", "scheme": "bearer"},
				"apiKey": map[string]any{"type": "apiKey", "in": "header", "name": HeaderAPIKey},
			},
			"responses": problems,
			"schemas":   schemas,
		},
	}
}

// retryAfterHeader is the Retry-After of a 429 or a 503.
var retryAfterHeader = map[string]any{"Retry-After": map[string]any{"description": "seconds to wait before trying again",
	"schema": map[string]any{"type": "string", "pattern": "^[0-9]+$"}}}

// eventSchema is one server-sent event of a streaming answer (stream.go):
// its name and its data (JSON, or [DONE] at the end).
const eventSchema = `{"type":"object","required":["data"],"properties":{"event":{"type":"string"},"data":{"type":"string"},
	"id":{"type":"string"},"retry":{"type":"integer"}}}`

// problemSchema is the body of every error answer (problem.go). Open: a
// problem may carry extension members beside the standard ones (mfa_token of
// mfa_required, ...).
const problemSchema = `{"type":"object","required":["type","title","status","code","request_id"],"properties":{
	"type":{"type":"string","format":"uri"},"title":{"type":"string"},"status":{"type":"integer","minimum":400,"maximum":599},
	"detail":{"type":"string"},"code":{"type":"string","pattern":"^[a-z][a-z0-9_]*$"},"request_id":{"type":"string"},
	"errors":` + FieldErrorsSchema + `}}`

// FieldErrorsSchema is the list of failing input members of invalid input
// (a problem's errors; the error dialects carry it too).
const FieldErrorsSchema = `{"type":"array","items":{"type":"object","additionalProperties":false,"required":["pointer","detail"],"properties":{
		"pointer":{"type":"string","description":"JSON pointer of the failing input member (/header/<Name> for a header)"},
		"detail":{"type":"string"}}}}`

// problemStatuses are the error answers an action can give. Every action:
// 422 (input that its schema refuses), 429 (rate limits) and 503 (a
// dependency down, a read-your-writes wait that ran out). A credential
// checked (every non-public action, and the public identity routes that take
// a secret or a session) adds 401 and 403; a mutating action adds 415 (a body
// that is not JSON) and 409 (a state that forbids it); anything with a path
// parameter or a credential can name a missing object, 404. The public status
// page reads one page: none of those. A service whose invalid input is 400
// (seed 002's contacts API) says 400 instead of 422, and still 422 on
// mutating routes that take an Idempotency-Key (one reused with another
// request); a raw body adds 413. Protocol answers of any route (400 of net/http, 405, 408,
// 431) are not per operation.
func problemStatuses(a Action, invalid int) []int {
	if a.InvalidStatus != 0 {
		invalid = a.InvalidStatus
	} else if a.Errors != nil {
		invalid = a.Errors.InvalidStatus
	}
	if invalid == 0 {
		invalid = http.StatusUnprocessableEntity
	}
	out := []int{invalid, http.StatusTooManyRequests, http.StatusServiceUnavailable}
	if !a.ReadOnly && !a.NoIdempotencyKey {
		out = append(out, http.StatusUnprocessableEntity)
	}
	if a.Body != nil {
		out = append(out, http.StatusRequestEntityTooLarge)
	}
	public := a.AuthorizationMode == AuthPublic
	if !public || !a.ReadOnly {
		out = append(out, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound)
	} else if strings.Contains(a.Path, "{") {
		out = append(out, http.StatusNotFound)
	}
	if !a.ReadOnly {
		out = append(out, http.StatusConflict, http.StatusUnsupportedMediaType, http.StatusRequestEntityTooLarge)
	}
	out = append(out, a.Problems...)
	slices.Sort(out)
	return slices.Compact(out)
}

// bodySchema is the input schema without the path parameters, which travel
// in the path and are no members of the body.
// bodyRequired: the body may be left out only when an empty object is a
// valid one (the server reads an absent body as {}). Required members say
// so, and so do constraints beside them (maintenance.update's anyOf of
// required members: status or a schedule change).
func bodyRequired(action string, body map[string]any) bool {
	if len(toStrings(body["required"])) > 0 {
		return true
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return true
	}
	s, err := compileSchema(action, "body", raw)
	if err != nil {
		return true
	}
	return s.Validate(map[string]any{}) != nil
}

func bodySchema(in map[string]any, inPath map[string]bool) map[string]any {
	body := map[string]any{}
	for k, v := range in {
		body[k] = v
	}
	props := map[string]any{}
	for k, v := range in["properties"].(map[string]any) {
		if !inPath[k] {
			props[k] = v
		}
	}
	body["properties"] = props
	req := []string{}
	for _, r := range toStrings(in["required"]) {
		if !inPath[r] {
			req = append(req, r)
		}
	}
	body["required"] = req
	return body
}
