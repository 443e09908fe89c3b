package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"

	httpapi "github.com/platform/backend/http"
	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/schema"
)

// descriptor is an action descriptor as served at GET /api/actions.
type descriptor struct {
	httpapi.Action
	Service string `json:"-"`
	BaseURL string `json:"-"`
}

func serviceURL(service string) string {
	if v := os.Getenv("PLATFORM_" + strings.ToUpper(service) + "_URL"); v != "" {
		return strings.TrimRight(v, "/")
	}
	for _, m := range app.Modules() {
		if m.Service != nil && m.Service.Name == service {
			if v := os.Getenv(app.AddrEnv(service)); v != "" {
				return "http://" + v
			}
			return "http://" + m.Service.DefaultAddr
		}
	}
	return ""
}

var client = &http.Client{Timeout: 30 * time.Second}

// fetchActions reads every service's descriptors.
func fetchActions() ([]descriptor, error) {
	var out []descriptor
	for _, svc := range app.Services() {
		base := serviceURL(svc)
		resp, err := client.Get(base + "/api/actions")
		if err != nil {
			return nil, fmt.Errorf("%s service at %s: %w", svc, base, err)
		}
		var body struct {
			Actions []httpapi.Action `json:"actions"`
		}
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("%s service: %w", svc, err)
		}
		for _, a := range body.Actions {
			out = append(out, descriptor{Action: a, Service: svc, BaseURL: base})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Service+out[i].Name < out[j].Service+out[j].Name })
	return out, nil
}

func findAction(name string) (descriptor, error) {
	all, err := fetchActions()
	if err != nil {
		return descriptor{}, err
	}
	var found []descriptor
	for _, d := range all {
		if d.Name == name || d.Service+"."+d.Name == name {
			found = append(found, d)
		}
	}
	switch len(found) {
	case 0:
		return descriptor{}, fmt.Errorf("no action %q (try: platformctl actions list)", name)
	case 1:
		return found[0], nil
	}
	return descriptor{}, fmt.Errorf("action %q exists in several services: prefix it with the service, e.g. %s.%s", name, found[0].Service, name)
}

// validate checks a payload against the action's input schema locally.
func (d descriptor) validate(input []byte) error {
	c := schema.NewCompiler()
	var doc any
	if err := json.Unmarshal(d.InputSchema, &doc); err != nil {
		return err
	}
	if err := c.AddResource("input.json", doc); err != nil {
		return err
	}
	s, err := c.Compile("input.json")
	if err != nil {
		return err
	}
	if problems := schema.Validate(s, input); len(problems) > 0 {
		var b strings.Builder
		b.WriteString("invalid_input:")
		for _, p := range problems {
			fmt.Fprintf(&b, "\n  %s: %s", p.Pointer, p.Message)
		}
		return fmt.Errorf("%s", b.String())
	}
	return nil
}

var param = regexp.MustCompile(`\{([^}]+)\}`)

// plan is the HTTP request a call makes: path parameters go into the path,
// the rest into the query (reads) or the body (writes).
type plan struct {
	Method               string          `json:"method"`
	URL                  string          `json:"url"`
	Body                 json.RawMessage `json:"body,omitempty"`
	Permission           string          `json:"permission,omitempty"`
	RequiresConfirmation bool            `json:"requiresConfirmation"`
	Destructive          bool            `json:"destructive"`
}

func (d descriptor) plan(input []byte) (plan, error) {
	members := map[string]any{}
	if len(bytes.TrimSpace(input)) > 0 {
		if err := json.Unmarshal(input, &members); err != nil {
			return plan{}, fmt.Errorf("input must be a JSON object: %w", err)
		}
	}
	path := param.ReplaceAllStringFunc(d.Path, func(m string) string {
		name := m[1 : len(m)-1]
		v := fmt.Sprint(members[name])
		delete(members, name)
		return url.PathEscape(v)
	})
	p := plan{Method: d.Method, URL: d.BaseURL + path, Permission: d.Permission,
		RequiresConfirmation: d.RequiresConfirmation, Destructive: d.Destructive}
	if d.ReadOnly {
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

// do sends a request with the caller's credential and prints the answer.
func do(method, target string, body []byte, headers map[string]string) ([]byte, int, error) {
	req, err := http.NewRequest(method, target, bytes.NewReader(body))
	if err != nil {
		return nil, 0, err
	}
	if key := os.Getenv("PLATFORM_API_KEY"); key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if len(body) > 0 {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return out, resp.StatusCode, err
}
