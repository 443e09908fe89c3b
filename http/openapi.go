package httpapi

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

var pathParam = regexp.MustCompile(`\{([^}]+)\}`)

// OpenAPI generates an OpenAPI 3.1 document from a service's descriptors.
// Path parameters come from the path; the rest of the input schema is the
// query (reads) or the JSON body (writes).
func OpenAPI(svc Service) map[string]any {
	paths := map[string]map[string]any{}
	for _, a := range svc.Actions {
		var in map[string]any
		_ = json.Unmarshal(a.InputSchema, &in)
		props, _ := in["properties"].(map[string]any)
		var params []map[string]any
		inPath := map[string]bool{}
		for _, m := range pathParam.FindAllStringSubmatch(a.Path, -1) {
			inPath[m[1]] = true
			params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "schema": props[m[1]]})
		}
		op := map[string]any{
			"operationId": a.Name, "summary": a.Summary,
			"x-action": map[string]any{"permission": a.Permission, "readOnly": a.ReadOnly, "destructive": a.Destructive,
				"requiresConfirmation": a.RequiresConfirmation, "agentAccess": a.AgentAccess, "authorizationMode": a.AuthorizationMode},
			"responses": map[string]any{
				strconv.Itoa(a.SuccessStatus): map[string]any{"description": "success", "content": map[string]any{"application/json": map[string]any{"schema": json.RawMessage(a.OutputSchema)}}},
				"default":                     map[string]any{"description": "problem", "content": map[string]any{"application/problem+json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Problem"}}}},
			},
		}
		if a.AuthorizationMode != AuthPublic {
			op["security"] = []map[string][]string{{"bearer": {}}, {"apiKey": {}}}
		}
		if a.ReadOnly {
			for name, s := range props {
				if !inPath[name] {
					params = append(params, map[string]any{"name": name, "in": "query", "schema": s})
				}
			}
		} else {
			op["requestBody"] = map[string]any{"content": map[string]any{"application/json": map[string]any{"schema": json.RawMessage(a.InputSchema)}}}
			params = append(params, map[string]any{"name": HeaderIdempotencyKey, "in": "header", "schema": map[string]any{"type": "string", "maxLength": 255}})
		}
		if len(params) > 0 {
			op["parameters"] = params
		}
		if paths[a.Path] == nil {
			paths[a.Path] = map[string]any{}
		}
		paths[a.Path][strings.ToLower(a.Method)] = op
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
			"schemas": map[string]any{"Problem": map[string]any{"type": "object", "required": []string{"type", "title", "status", "code", "request_id"},
				"properties": map[string]any{"type": map[string]any{"type": "string"}, "title": map[string]any{"type": "string"},
					"status": map[string]any{"type": "integer"}, "detail": map[string]any{"type": "string"}, "code": map[string]any{"type": "string"},
					"request_id": map[string]any{"type": "string"}, "errors": map[string]any{"type": "array"}}}},
		},
	}
}
