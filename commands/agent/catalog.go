package agent

import (
	"context"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/internal/actioncall"
)

// Catalog is the platform's actions as flows call them: each service's
// descriptors read from its own GET /api/actions (the same the OpenAPI
// documents and platformctl read), kept a short while. A flow's step names
// a service and an action; the step keeps what the descriptor says of it
// when the flow is saved.
type Catalog struct {
	client *http.Client
	urls   map[string]string // service -> base URL
	apps   map[string]string // service -> app id
	ttl    time.Duration

	mu    sync.Mutex
	cache map[string]cached
}

type cached struct {
	at          time.Time
	descriptors []actioncall.Descriptor
}

// Service is one service flows may call: its base URL and its app.
type Service struct {
	Name, BaseURL, AppID string
}

// NewCatalog reads the services' descriptors with client (the platform's
// own services, configured by the operator: not the outbound client for
// tenant URLs, which refuses loopback).
func NewCatalog(client *http.Client, services []Service, ttl time.Duration) *Catalog {
	c := &Catalog{client: client, urls: map[string]string{}, apps: map[string]string{}, ttl: ttl, cache: map[string]cached{}}
	for _, s := range services {
		c.urls[s.Name], c.apps[s.Name] = strings.TrimRight(s.BaseURL, "/"), s.AppID
	}
	return c
}

// BaseURL is a service's base URL ("" for none).
func (c *Catalog) BaseURL(service string) string { return c.urls[service] }

// Services are the services flows may call, sorted.
func (c *Catalog) Services() []string {
	out := make([]string, 0, len(c.urls))
	for s := range c.urls {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func (c *Catalog) descriptors(ctx context.Context, service string, fresh bool) ([]actioncall.Descriptor, error) {
	base, ok := c.urls[service]
	if !ok {
		return nil, errs.NotFound("service " + service)
	}
	c.mu.Lock()
	e, hit := c.cache[service]
	c.mu.Unlock()
	if hit && !fresh && time.Since(e.at) < c.ttl {
		return e.descriptors, nil
	}
	fctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	ds, err := actioncall.Fetch(fctx, c.client, service, base)
	if err != nil {
		return nil, errs.Unavailable("the "+service+" service's actions could not be read", err)
	}
	c.mu.Lock()
	c.cache[service] = cached{at: time.Now(), descriptors: ds}
	c.mu.Unlock()
	return ds, nil
}

// Find is an action of a service by its descriptor's name, with the app
// its permission is checked in. A name missing from a cached list is
// looked up again (a service upgraded since).
func (c *Catalog) Find(ctx context.Context, service, action string) (actioncall.Descriptor, string, error) {
	for _, fresh := range []bool{false, true} {
		ds, err := c.descriptors(ctx, service, fresh)
		if err != nil {
			return actioncall.Descriptor{}, "", err
		}
		for _, d := range ds {
			if d.Name == action {
				return d, c.apps[service], nil
			}
		}
	}
	return actioncall.Descriptor{}, "", errs.NotFound("action " + action + " of service " + service)
}

// Callable reports why a descriptor cannot be a step ("" when it can): a
// streamed answer is not one JSON document a run could keep.
func Callable(d actioncall.Descriptor) string {
	if d.Streams {
		return "the action answers a stream of events; a step keeps one JSON answer"
	}
	return ""
}

// Listed is one callable action, as flows.actions lists it.
type Listed struct {
	Service              string `json:"service"`
	Action               string `json:"action"`
	Method               string `json:"method"`
	Path                 string `json:"path"`
	Permission           string `json:"permission"`
	Summary              string `json:"summary"`
	ReadOnly             bool   `json:"readOnly"`
	Destructive          bool   `json:"destructive"`
	RequiresConfirmation bool   `json:"requiresConfirmation"`
}

// List is every callable action of every service (a service that does not
// answer is left out and named).
func (c *Catalog) List(ctx context.Context) ([]Listed, []string) {
	out := []Listed{}
	unavailable := []string{}
	for _, s := range c.Services() {
		ds, err := c.descriptors(ctx, s, false)
		if err != nil {
			unavailable = append(unavailable, s)
			continue
		}
		for _, d := range ds {
			if Callable(d) != "" {
				continue
			}
			out = append(out, Listed{Service: s, Action: d.Name, Method: d.Method, Path: d.Path, Permission: d.Permission,
				Summary: d.Summary, ReadOnly: d.ReadOnly, Destructive: d.Destructive, RequiresConfirmation: d.RequiresConfirmation})
		}
	}
	return out, unavailable
}
