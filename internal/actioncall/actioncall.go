// Package actioncall calls platform actions by their descriptors (seed
// 000), as a client of the platform's own HTTP API: read a service's
// descriptors (GET /api/actions), check an input against an action's input
// schema, and plan the HTTP request the input makes (path parameters into
// the path, the rest into the query of a read or the body of a write).
// platformctl's `actions` commands and the agent's flow steps call actions
// this one way.
package actioncall

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	httpapi "github.com/platform/backend/http"
	"github.com/platform/backend/internal/schema"
)

// Descriptor is an action descriptor as a service serves it at
// GET /api/actions, with the service and the base URL it was read from.
type Descriptor struct {
	httpapi.Action
	Service string `json:"-"`
	BaseURL string `json:"-"`
}

// maxDescriptors bounds a service's /api/actions answer.
const maxDescriptors = 8 << 20

// Fetch reads a service's descriptors from base (its base URL).
func Fetch(ctx context.Context, client *http.Client, service, base string) ([]Descriptor, error) {
	base = strings.TrimRight(base, "/")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/actions", nil)
	if err != nil {
		return nil, fmt.Errorf("%s service at %s: %w", service, base, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s service at %s: %w", service, base, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s service at %s: GET /api/actions answered %d", service, base, resp.StatusCode)
	}
	var body struct {
		Actions []httpapi.Action `json:"actions"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxDescriptors)).Decode(&body); err != nil {
		return nil, fmt.Errorf("%s service: %w", service, err)
	}
	out := make([]Descriptor, len(body.Actions))
	for i, a := range body.Actions {
		out[i] = Descriptor{Action: a, Service: service, BaseURL: base}
	}
	return out, nil
}

// Problem is one member of an input the schema refuses.
type Problem struct {
	Pointer string `json:"pointer"`
	Message string `json:"detail"`
}

// Check validates an input against the action's input schema (nil: valid).
func (d Descriptor) Check(input []byte) ([]Problem, error) {
	c := schema.NewCompiler()
	var doc any
	if err := json.Unmarshal(d.InputSchema, &doc); err != nil {
		return nil, err
	}
	if err := c.AddResource("input.json", doc); err != nil {
		return nil, err
	}
	s, err := c.Compile("input.json")
	if err != nil {
		return nil, err
	}
	var out []Problem
	for _, p := range schema.Validate(s, input) {
		out = append(out, Problem{Pointer: p.Pointer, Message: p.Message})
	}
	return out, nil
}

var param = regexp.MustCompile(`\{([^}]+)\}`)

// Plan is the HTTP request a call makes: path parameters go into the path,
// the rest into the query (reads) or the body (writes).
type Plan struct {
	Method               string          `json:"method"`
	URL                  string          `json:"url"`
	Body                 json.RawMessage `json:"body,omitempty"`
	Permission           string          `json:"permission,omitempty"`
	RequiresConfirmation bool            `json:"requiresConfirmation"`
	Destructive          bool            `json:"destructive"`
}

// Plan plans the request an input (a JSON object) makes.
func (d Descriptor) Plan(input []byte) (Plan, error) {
	return PlanCall(d.BaseURL, d.Method, d.Path, d.ReadOnly, d.Permission, d.RequiresConfirmation, d.Destructive, input)
}

// PlanCall plans a request from what a descriptor says (a caller that kept
// only those members of it, as a flow's step does).
func PlanCall(base, method, path string, readOnly bool, permission string, confirm, destructive bool, input []byte) (Plan, error) {
	members := map[string]any{}
	if len(bytes.TrimSpace(input)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(input))
		dec.UseNumber()
		if err := dec.Decode(&members); err != nil || members == nil {
			return Plan{}, fmt.Errorf("input must be a JSON object")
		}
	}
	var missing []string
	target := param.ReplaceAllStringFunc(path, func(m string) string {
		name := m[1 : len(m)-1]
		v, ok := members[name]
		if !ok || v == nil {
			missing = append(missing, name)
			return m
		}
		delete(members, name)
		return url.PathEscape(fmt.Sprint(v))
	})
	if len(missing) > 0 {
		return Plan{}, fmt.Errorf("input has no %s for the path %s", strings.Join(missing, ", "), path)
	}
	p := Plan{Method: method, URL: strings.TrimRight(base, "/") + target, Permission: permission, RequiresConfirmation: confirm,
		Destructive: destructive}
	if readOnly {
		q := url.Values{}
		for k, v := range members {
			q.Set(k, fmt.Sprint(v))
		}
		if len(q) > 0 {
			p.URL += "?" + q.Encode()
		}
	} else if len(members) > 0 {
		p.Body, _ = json.Marshal(members)
	}
	return p, nil
}
