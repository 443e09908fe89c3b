package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	identitycmd "github.com/platform/backend/commands/identity"
)

// allServices builds every service's descriptors without dependencies (the
// handlers are never called here).
func allServices() []Service {
	return []Service{
		StatusService(StatusDeps{}),
		OpsService(OpsDeps{}),
		IdentityService(IdentityDeps{},
			IdentityAccessPart(AccessDeps{Access: &identitycmd.Access{}}),
			IdentityRecoveryPart(RecoveryDeps{Access: &identitycmd.Access{}}),
			IdentitySecurityPart(SecurityDeps{Access: &identitycmd.Access{}})),
	}
}

// TestEveryActionDeclaresItsOutput: every action of every service has a
// real output schema (an object schema with members, or a closed one), and
// NewHandler compiles them all.
func TestEveryActionDeclaresItsOutput(t *testing.T) {
	for _, svc := range allServices() {
		if _, err := NewHandler(svc, Deps{}); err != nil {
			t.Fatalf("%s: %v", svc.Name, err)
		}
		for _, a := range svc.Actions {
			var out map[string]any
			if err := json.Unmarshal(a.OutputSchema, &out); err != nil {
				t.Errorf("%s: output schema: %v", a.Name, err)
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
	for _, svc := range allServices() {
		h, err := NewHandler(svc, Deps{})
		if err != nil {
			t.Fatal(err)
		}
		_ = h
		raw, err := json.Marshal(OpenAPI(svc))
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
		byName := map[string]Action{}
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
				if op.RequestBody != nil {
					body := op.RequestBody.Content["application/json"].Schema
					for name := range inPath {
						if _, ok := body.Properties[name]; ok || contains(body.Required, name) {
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
						if p.Required != contains(in.Required, p.Name) {
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
				if _, ok := op.Responses["422"]; !ok {
					t.Errorf("%s %s: 422 not documented", method, path)
				}
				if a.AuthorizationMode != AuthPublic {
					if _, ok := op.Responses["401"]; !ok {
						t.Errorf("%s %s: 401 not documented", method, path)
					}
				}
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestOutputOf: members follow encoding/json (omitempty optional, pointers
// nullable, embedded structs inline), options refine them, and an option
// naming no member panics.
func TestOutputOf(t *testing.T) {
	type inner struct {
		A string `json:"a"`
	}
	type sample struct {
		inner
		B  *time.Time `json:"b"`
		C  string     `json:"c,omitempty"`
		D  []inner    `json:"d"`
		E  *string    `json:"e,omitempty"`
		no string
	}
	got := string(outputOf(sample{}, enumOf("d[].a", "x", "y"), nullable("d")))
	want := `{"additionalProperties":false,"properties":{"a":{"type":"string"},"b":{"format":"date-time","type":["string","null"]},` +
		`"c":{"type":"string"},"d":{"items":{"additionalProperties":false,"properties":{"a":{"enum":["x","y"],"type":"string"}},` +
		`"required":["a"],"type":"object"},"type":["array","null"]},"e":{"type":"string"}},"required":["a","b","d"],"type":"object"}`
	if got != want {
		t.Fatalf("outputOf:\n got %s\nwant %s", got, want)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("an option naming no member did not panic")
		}
	}()
	outputOf(sample{}, enumOf("nope", "x"))
}

// TestCheckOutput: the debug check turns an answer that its schema refuses
// into a 500 naming the member; without it the answer goes out as it is.
func TestCheckOutput(t *testing.T) {
	body := map[string]any{"n": "not a number"}
	svc := Service{Name: "t", Actions: []Action{{Name: "t.get", Method: http.MethodGet, Path: "/t", ReadOnly: true,
		OutputSchema: objectOf(map[string]json.RawMessage{"n": raw(intOut)}),
		Handle:       func(context.Context, *Call) (Reply, error) { return OK(body), nil }}}}
	for _, check := range []bool{true, false} {
		h, err := NewHandler(svc, Deps{Limiter: NewLimiter(RateLimitConfig{}), CheckOutput: check,
			Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/t", nil))
		switch {
		case check && (rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "output_schema_violation") ||
			!strings.Contains(rec.Body.String(), "/n")):
			t.Fatalf("checked: %d %s", rec.Code, rec.Body)
		case !check && rec.Code != http.StatusOK:
			t.Fatalf("unchecked: %d %s", rec.Code, rec.Body)
		}
	}
	body = map[string]any{"n": 3}
	h, _ := NewHandler(svc, Deps{Limiter: NewLimiter(RateLimitConfig{}), CheckOutput: true})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/t", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("a conforming answer: %d %s", rec.Code, rec.Body)
	}
}
