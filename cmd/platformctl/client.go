package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/platform/backend/internal/actioncall"
	"github.com/platform/backend/internal/app"
)

// descriptor is an action descriptor as served at GET /api/actions.
type descriptor = actioncall.Descriptor

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
		ds, err := actioncall.Fetch(context.Background(), client, svc, serviceURL(svc))
		if err != nil {
			return nil, err
		}
		out = append(out, ds...)
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
func validate(d descriptor, input []byte) error {
	problems, err := d.Check(input)
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		var b strings.Builder
		b.WriteString("invalid_input:")
		for _, p := range problems {
			fmt.Fprintf(&b, "\n  %s: %s", p.Pointer, p.Message)
		}
		return fmt.Errorf("%s", b.String())
	}
	return nil
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
