package invariants_test

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	httpapi "github.com/platform/backend/http"
)

var pathParam = regexp.MustCompile(`\{([^}]+)\}`)

// TestEveryActionDeclaresItsOutput: every action of every service has a
// real output schema (an object schema with members, or a closed one; a
// streamed answer, a file or a CSV export, is a string of its declared
// media type), and NewHandler compiles them all.
func TestEveryActionDeclaresItsOutput(t *testing.T) {
	for _, svc := range services(t) {
		for _, a := range svc.Actions {
			var out map[string]any
			if err := json.Unmarshal(a.OutputSchema, &out); err != nil {
				t.Errorf("%s: output schema: %v", a.Name, err)
				continue
			}
			if a.Produces != "" {
				if out["type"] != "string" {
					t.Errorf("%s: a streamed answer (%s) is a string, not %s", a.Name, a.Produces, a.OutputSchema)
				}
				continue
			}
			props, _ := out["properties"].(map[string]any)
			req, _ := out["required"].([]any)
			if out["type"] != "object" || len(props) == 0 || len(req) == 0 {
				t.Errorf("%s: output schema %s names no required members", a.Name, a.OutputSchema)
			}
		}
	}
}

// TestOpenAPIDescribesInputsAndProblems: path parameters are parameters, not
// body members; required query parameters and bodies are marked; every
// operation names its success and its problems, and nothing else.
func TestOpenAPIDescribesInputsAndProblems(t *testing.T) {
	for _, svc := range services(t) {
		raw, err := json.Marshal(httpapi.OpenAPI(svc))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Paths map[string]map[string]struct {
				OperationID string `json:"operationId"`
				Parameters  []struct {
					Name     string `json:"name"`
					In       string `json:"in"`
					Required bool   `json:"required"`
				} `json:"parameters"`
				RequestBody *struct {
					Required bool `json:"required"`
					Content  map[string]struct {
						Schema struct {
							Required   []string       `json:"required"`
							Properties map[string]any `json:"properties"`
							AnyOf      []struct {
								Required []string `json:"required"`
							} `json:"anyOf"`
						} `json:"schema"`
					} `json:"content"`
				} `json:"requestBody"`
				Responses map[string]json.RawMessage `json:"responses"`
			} `json:"paths"`
			Components struct {
				Responses map[string]json.RawMessage `json:"responses"`
			} `json:"components"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		byName := map[string]httpapi.Action{}
		for _, a := range svc.Actions {
			byName[a.Name] = a
		}
		for path, ops := range doc.Paths {
			for method, op := range ops {
				a := byName[op.OperationID]
				var in struct {
					Required []string `json:"required"`
				}
				_ = json.Unmarshal(a.InputSchema, &in)
				inPath := map[string]bool{}
				for _, m := range pathParam.FindAllStringSubmatch(path, -1) {
					inPath[m[1]] = true
				}
				if op.RequestBody != nil && a.Body != nil {
					// A file: required, in each media type the action takes.
					if !op.RequestBody.Required || len(op.RequestBody.Content) != len(a.Body.MediaTypes) {
						t.Errorf("%s %s: a raw body is required and documented per media type: %+v", method, path, op.RequestBody)
					}
				} else if op.RequestBody != nil {
					body := op.RequestBody.Content["application/json"].Schema
					for name := range inPath {
						if _, ok := body.Properties[name]; ok || slices.Contains(body.Required, name) {
							t.Errorf("%s %s: path parameter %s is in the body schema", method, path, name)
						}
					}
					// An absent body is read as {}: required when {} is not
					// valid (required members, or an anyOf of them:
					// maintenance.update's status or a schedule change).
					emptyValid := len(body.Required) == 0
					if len(body.AnyOf) > 0 {
						anyEmpty := false
						for _, alt := range body.AnyOf {
							anyEmpty = anyEmpty || len(alt.Required) == 0
						}
						emptyValid = emptyValid && anyEmpty
					}
					if op.RequestBody.Required == emptyValid {
						t.Errorf("%s %s: requestBody.required %v with required members %v, anyOf %v", method, path, op.RequestBody.Required, body.Required, body.AnyOf)
					}
				}
				for _, p := range op.Parameters {
					switch p.In {
					case "path":
						if !p.Required || !inPath[p.Name] {
							t.Errorf("%s %s: path parameter %s", method, path, p.Name)
						}
					case "query":
						if p.Required != slices.Contains(in.Required, p.Name) {
							t.Errorf("%s %s: query parameter %s required=%v, input schema says %v", method, path, p.Name, p.Required, in.Required)
						}
					}
				}
				if _, ok := op.Responses["default"]; ok {
					t.Errorf("%s %s: a default response hides undocumented statuses", method, path)
				}
				success := 0
				for status, r := range op.Responses {
					if strings.HasPrefix(status, "2") {
						success++
						continue
					}
					var ref struct {
						Ref string `json:"$ref"`
					}
					_ = json.Unmarshal(r, &ref)
					if _, ok := doc.Components.Responses[strings.TrimPrefix(ref.Ref, "#/components/responses/")]; !ok {
						t.Errorf("%s %s: response %s is not a shared problem (%s)", method, path, status, r)
					}
				}
				if success != 1 {
					t.Errorf("%s %s: %d success responses", method, path, success)
				}
				invalid := "422" // the platform's; a service or an action may say otherwise (contacts: 400, seed 002; webhooks: 400)
				if svc.InvalidInputStatus != 0 {
					invalid = strconv.Itoa(svc.InvalidInputStatus)
				}
				if a.InvalidStatus != 0 { // an action's own (the SDK-compatible routes: 400)
					invalid = strconv.Itoa(a.InvalidStatus)
				}
				if _, ok := op.Responses[invalid]; !ok {
					t.Errorf("%s %s: %s (invalid input) not documented", method, path, invalid)
				}
				if a.Body != nil {
					if _, ok := op.Responses["413"]; !ok {
						t.Errorf("%s %s: 413 not documented for a raw body", method, path)
					}
				}
				if a.AuthorizationMode != httpapi.AuthPublic {
					if _, ok := op.Responses["401"]; !ok {
						t.Errorf("%s %s: 401 not documented", method, path)
					}
				}
			}
		}
	}
}

// TestIdempotencyKeyWhereHonoured: a mutation's OpenAPI operation offers
// the Idempotency-Key header exactly when the router honours it (not on a
// NoIdempotencyKey action), and a mutation third parties call (Inbound: a
// provider's webhook, which dedupes by its own event id and knows nothing of
// the platform's keys) declares NoIdempotencyKey. Such an action still
// carries seed 000's agentAccess confirm of a mutation (the descriptor rules
// above): no agent calls it, and none should run it unasked.
func TestIdempotencyKeyWhereHonoured(t *testing.T) {
	for _, svc := range services(t) {
		raw, err := json.Marshal(httpapi.OpenAPI(svc))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Paths map[string]map[string]struct {
				OperationID string `json:"operationId"`
				Parameters  []struct {
					Name string `json:"name"`
					In   string `json:"in"`
				} `json:"parameters"`
			} `json:"paths"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		offered := map[string]bool{}
		for _, ops := range doc.Paths {
			for _, op := range ops {
				offered[op.OperationID] = slices.ContainsFunc(op.Parameters, func(p struct {
					Name string `json:"name"`
					In   string `json:"in"`
				}) bool {
					return p.In == "header" && p.Name == httpapi.HeaderIdempotencyKey
				})
			}
		}
		for _, a := range svc.Actions {
			where := svc.Name + " " + a.Name
			if honoured := !a.ReadOnly && !a.NoIdempotencyKey; offered[a.Name] != honoured {
				t.Errorf("%s: the OpenAPI offers Idempotency-Key %v, the router honours it %v", where, offered[a.Name], honoured)
			}
			if a.Inbound && !a.ReadOnly && !a.NoIdempotencyKey {
				t.Errorf("%s: a mutation third parties call takes no Idempotency-Key (set NoIdempotencyKey)", where)
			}
			if a.Inbound && !a.ReadOnly && (a.AgentAccess != "confirm" || !a.RequiresConfirmation) {
				t.Errorf("%s: an inbound mutation keeps agentAccess confirm (%q, confirmation %v)", where, a.AgentAccess, a.RequiresConfirmation)
			}
		}
	}
}
