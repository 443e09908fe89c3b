package module

import (
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"reflect"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/commands/jobs"
	"github.com/platform/backend/eventstore"
	httpapi "github.com/platform/backend/http"
	"github.com/platform/backend/internal/keyring"
	"github.com/platform/backend/internal/objectstore"
	"github.com/platform/backend/internal/outbound"
	"github.com/platform/backend/projections"
)

// Platform is what every module builds against: the shared stores and
// clients, the platform-wide settings, and what earlier modules provided.
type Platform struct {
	Log   *slog.Logger
	Pool  *pgxpool.Pool
	Store *eventstore.Store
	// Reader serves queries from the projections' active generations.
	Reader *projections.Reader
	// Engine runs every module's projections. It is set after every module
	// is built: read it in Service or a worker, never in Build.
	Engine *projections.Engine
	// Outbound is the one client for URLs a tenant can influence.
	Outbound *outbound.Client
	// Objects is the object store (exports, media, attachments, assets).
	Objects objectstore.Store
	// KeyRing seals every context's secrets at rest (provider credentials,
	// network tokens), one configuration and one rotation for all
	// (PLATFORM_KEYRING). A context seals with Sealer(its purpose); the
	// zero ring seals nothing (503).
	KeyRing keyring.Ring
	Topics  eventstore.Topics
	// Kafka is the brokers' configuration (health checks).
	Kafka eventstore.KafkaConfig
	// AuthBaseURL: when set, credentials are validated by that identity
	// service over HTTP instead of in-process.
	AuthBaseURL string
	// Addrs are the services' listeners, by service name.
	Addrs map[string]string
	// Sections are every module's configuration.
	Sections Sections
	// Modules are every module of the process, in order (ops reads the
	// history of every context with a topic).
	Modules []Module
	// Validator checks every service's credentials. The identity module
	// sets it; the app refuses to start without it.
	Validator httpapi.Validator
	// Now is the clock of timed work (nil: time.Now).
	Now func() time.Time
	// Widgets are the tiles of every module that declares one, in module
	// order: the dashboard fans out over them (Widget.Load with the
	// caller's principal, or GET /api/widget of the service with the
	// caller's credential). Set once every module is built: read it in
	// Service or a worker, never in Build.
	Widgets []AppWidget
	// Jobs are the commands on durable jobs: a module defines its kinds of
	// jobs on them (jobs.Define(p.Jobs, ...)) and lists them in Parts.Jobs.
	Jobs *jobs.Commands
	// ActionItems are the action-item declarations of every module that
	// has some, in module order (the dashboard's /actions). Set with
	// Widgets.
	ActionItems []AppActionItems

	provided map[reflect.Type]any
}

// AppWidget is one module's tile with the app and service it belongs to.
type AppWidget struct {
	Module  string
	AppID   string // its permission is checked in this app
	Service string // the service that serves it as GET /api/widget
	Widget  *httpapi.Widget
}

// AppActionItems is one module's action items with the app they are
// checked in.
type AppActionItems struct {
	Module string
	AppID  string
	Items  *httpapi.ActionItems
}

// Sealer is the key ring for one purpose (the context's name): a value
// sealed for one context never opens as another's.
func (p *Platform) Sealer(purpose string) *keyring.Sealer {
	return keyring.NewSealer(p.KeyRing, purpose)
}

// Provide makes v available to later modules under its static type T
// (a module's commands, for another module's reactor or tests).
func Provide[T any](p *Platform, v T) {
	if p.provided == nil {
		p.provided = map[reflect.Type]any{}
	}
	p.provided[reflect.TypeFor[T]()] = v
}

// Lookup returns what an earlier module provided as T.
func Lookup[T any](p *Platform) (T, error) {
	v, ok := p.provided[reflect.TypeFor[T]()]
	if !ok {
		var zero T
		return zero, fmt.Errorf("nothing provides %s: is the module that does listed before this one?", reflect.TypeFor[T]())
	}
	return v.(T), nil
}

// Contexts are the names of the modules with a topic, in order.
func (p *Platform) Contexts() []string {
	var out []string
	for _, m := range p.Modules {
		if m.Topic {
			out = append(out, m.Name)
		}
	}
	return out
}

// Apps are the catalog entries of every module that declares one.
func (p *Platform) Apps() []App {
	var out []App
	for _, m := range p.Modules {
		if m.App != nil {
			out = append(out, *m.App)
		}
	}
	return out
}

// LocalURL is the base URL of a listener for the defaults that point a
// client at it (magic links, the local object store's signed URLs): a
// listener on every interface (0.0.0.0, ::, an empty host, as
// PLATFORM_LISTEN_HOST=0.0.0.0 makes in a container) is reached on
// loopback, not at the unspecified address.
func LocalURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if ip, err := netip.ParseAddr(host); host == "" || (err == nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}
