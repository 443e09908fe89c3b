package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	domain "github.com/platform/backend/domain/dashboard"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/principal"
	httpapi "github.com/platform/backend/http"
)

// The launcher answers POST /api/widgets and the /dashboard page: it fans
// out, in parallel, to the widget of each app installed in the caller's
// active context, each within its budget, and serves what it got through
// the cache's rules (domain.Cached, domain.AfterFetch).
//
// The cache lives in this process's memory, keyed by person, active context
// and app. That is enough: a payload is 45 s of figures any app recomputes
// on demand, so a restart or a second process costs one fetch per app, and
// the only thing lost is a stale payload for an app that fails in the first
// minutes after a restart (it shows the catalog's overview instead). Sharing
// it in PostgreSQL would put a write on every answer for that. It never
// answers by itself: the caller is authenticated by the kernel on every call
// and each app's permission is checked for that caller before its cached
// payload is served.

// App is one catalog app as the dashboard knows it: its metadata (the
// overview tile when nothing else can be shown), and how its widget is read.
type App struct {
	AppID        string
	Name         string
	SurfaceKind  string
	SurfaceGroup string
	Launchable   bool
	// URL is its entrypoint (<apps base URL>/<app id>).
	URL string
	// Widget is its tile (nil: it has none: installable, never fetched).
	Widget *httpapi.Widget
	// Remote, when set, is the base URL of the service that serves the
	// widget: it is fetched as GET <Remote>/api/widget with the caller's
	// credential instead of in-process.
	Remote string
	// ActionItems are what a person must resolve in it (nil: none).
	ActionItems *httpapi.ActionItems
}

// Summary is the app's one-line description (its widget's summary).
func (a App) Summary() string {
	if a.Widget != nil && a.Widget.Summary != "" {
		return a.Widget.Summary
	}
	return a.Name
}

// LauncherConfig bounds the fan-out.
type LauncherConfig struct {
	// AppBudget is how long one app's widget may take (1.5 s).
	AppBudget time.Duration
	// Deadline bounds the whole answer (2 s): no app is waited for past it.
	Deadline time.Duration
	// MaxEntries bounds the cache (100,000 payloads): past it, expired
	// entries are swept, and a payload that still does not fit is not kept.
	MaxEntries int
}

func (c LauncherConfig) WithDefaults() LauncherConfig {
	if c.AppBudget <= 0 {
		c.AppBudget = 1500 * time.Millisecond
	}
	if c.Deadline <= 0 {
		c.Deadline = 2 * time.Second
	}
	if c.MaxEntries <= 0 {
		c.MaxEntries = 100_000
	}
	return c
}

// Caller is who asks: the principal the kernel validated for this call, and
// the credential it presented (forwarded to remote widgets).
type Caller struct {
	Principal  principal.Principal
	Credential string
}

// Batch is POST /api/widgets' answer: seed 000's widget summary (success,
// widgets[] with appId) of every app shown, and per app how its tiles were
// obtained and how old they are.
type Batch struct {
	Success     bool              `json:"success"`
	Context     string            `json:"context"`
	GeneratedAt time.Time         `json:"generatedAt"`
	Widgets     []json.RawMessage `json:"widgets"`
	Apps        []AppTiles        `json:"apps"`
	Omitted     []Omitted         `json:"omitted"`
}

// AppTiles is one installed app in an answer.
type AppTiles struct {
	AppID string `json:"appId"`
	Name  string `json:"name"`
	URL   string `json:"url"`
	// State: fresh, cached, stale or fallback.
	State string `json:"state"`
	// AgeSeconds is how old the tiles are (0 when fresh or fallback).
	AgeSeconds int `json:"ageSeconds"`
	// FetchedAt is when the tiles were fetched (null for the overview).
	FetchedAt *time.Time `json:"fetchedAt"`
	// Reason is why a fetch failed (stale and fallback only).
	Reason  string            `json:"reason,omitempty"`
	Widgets []json.RawMessage `json:"widgets"`
}

// Omitted is an installed app the answer leaves out, and why
// (permission_denied: the caller may not see its widget).
type Omitted struct {
	AppID  string `json:"appId"`
	Reason string `json:"reason"`
}

// Launcher fans out over the installed apps' widgets.
type Launcher struct {
	cfg       LauncherConfig
	installed func(ctx context.Context, c domain.Context) (map[string]time.Time, error)
	client    *http.Client
	cache     *widgetCache

	mu   sync.RWMutex
	apps []App
	now  func() time.Time
}

// NewLauncher makes a launcher over apps; installed reads a context's
// installed apps; client fetches remote widgets (the platform's own
// services, configured: not the outbound client for tenant URLs).
func NewLauncher(cfg LauncherConfig, apps []App, installed func(context.Context, domain.Context) (map[string]time.Time, error), client *http.Client) *Launcher {
	cfg = cfg.WithDefaults()
	if client == nil {
		client = &http.Client{}
	}
	return &Launcher{cfg: cfg, installed: installed, client: client, apps: apps, now: time.Now,
		cache: &widgetCache{max: cfg.MaxEntries, entries: map[string]cached{}}}
}

// Config is the launcher's bounds.
func (l *Launcher) Config() LauncherConfig { return l.cfg }

// Add puts an app in the catalog (an app outside the modules; tests add
// slow and failing ones). An app of the same id is replaced.
func (l *Launcher) Add(a App) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range l.apps {
		if l.apps[i].AppID == a.AppID {
			l.apps[i] = a
			return
		}
	}
	l.apps = append(l.apps, a)
}

// Apps is the catalog, in order.
func (l *Launcher) Apps() []App {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return append([]App(nil), l.apps...)
}

// AppIDs are the catalog's app ids (what may be installed).
func (l *Launcher) AppIDs() []string {
	apps := l.Apps()
	out := make([]string, len(apps))
	for i, a := range apps {
		out[i] = a.AppID
	}
	return out
}

// SetClock sets the clock of the cache's rules (tests cross the 45 s and
// five-minute edges without sleeping).
func (l *Launcher) SetClock(now func() time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.now = now
}

// Now is the launcher's clock.
func (l *Launcher) Now() time.Time {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.now()
}

// Installed is the context's installed apps.
func (l *Launcher) Installed(ctx context.Context, c domain.Context) (map[string]time.Time, error) {
	return l.installed(ctx, c)
}

// fetched is one app's fetch outcome.
type fetched struct {
	app     int
	widgets []json.RawMessage
	err     error
}

// Load answers the caller's widgets in its active context of kind at now.
func (l *Launcher) Load(ctx context.Context, caller Caller, kind string, now time.Time) (Batch, error) {
	p := caller.Principal
	c, err := domain.ContextOf(p, kind)
	if err != nil {
		return Batch{}, err
	}
	installed, err := l.installed(ctx, c)
	if err != nil {
		return Batch{}, err
	}
	out := Batch{Success: true, Context: c.Kind, GeneratedAt: now, Widgets: []json.RawMessage{}, Apps: []AppTiles{}, Omitted: []Omitted{}}
	var shown []App
	for _, a := range l.Apps() {
		if _, ok := installed[a.AppID]; !ok || a.Widget == nil {
			continue // merely available, or nothing to show
		}
		if !p.Allows(principal.Qualify(a.AppID, a.Widget.Permission)) {
			out.Omitted = append(out.Omitted, Omitted{AppID: a.AppID, Reason: "permission_denied"})
			continue
		}
		shown = append(shown, a)
	}
	who := cacheOwner(p)
	tiles := make([]AppTiles, len(shown))
	hits := make([]cached, len(shown))
	found := make([]bool, len(shown))
	results := make(chan fetched, len(shown))
	deadline := time.NewTimer(l.cfg.Deadline)
	defer deadline.Stop()
	pending := 0
	for i, a := range shown {
		tiles[i] = AppTiles{AppID: a.AppID, Name: a.Name, URL: a.URL}
		hits[i], found[i] = l.cache.get(cacheKey(who, c, a.AppID))
		if found[i] && domain.Cached(hits[i].at, now) {
			tiles[i].State, tiles[i].Widgets = domain.StateCached, hits[i].widgets
			at := hits[i].at
			tiles[i].FetchedAt, tiles[i].AgeSeconds = &at, int(now.Sub(at)/time.Second)
			continue
		}
		pending++
		go func() {
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.cfg.AppBudget)
			defer cancel()
			done := make(chan fetched, 1)
			go func() {
				w, err := l.fetch(fctx, a, caller, c)
				done <- fetched{app: i, widgets: w, err: err}
			}()
			select {
			case r := <-done:
				results <- r
			case <-fctx.Done():
				results <- fetched{app: i, err: errBudget}
			}
		}()
	}
	got := make([]*fetched, len(shown))
wait:
	for pending > 0 {
		select {
		case r := <-results:
			got[r.app] = &r
			pending--
		case <-deadline.C:
			break wait
		}
	}
	for i, a := range shown {
		if tiles[i].State != "" {
			continue
		}
		r := got[i]
		if r == nil {
			r = &fetched{app: i, err: errBudget}
		}
		key := cacheKey(who, c, a.AppID)
		if r.err != nil && errs.KindOf(r.err) == errs.KindPermissionDenied {
			l.cache.drop(key)
			out.Omitted = append(out.Omitted, Omitted{AppID: a.AppID, Reason: "permission_denied"})
			tiles[i].State = "omitted"
			continue
		}
		switch tiles[i].State = domain.AfterFetch(r.err == nil, found[i], hits[i].at, now); tiles[i].State {
		case domain.StateFresh:
			l.cache.put(key, cached{widgets: r.widgets, at: now}, now)
			at := now
			tiles[i].Widgets, tiles[i].FetchedAt = r.widgets, &at
		case domain.StateStale:
			at := hits[i].at
			tiles[i].Widgets, tiles[i].FetchedAt, tiles[i].AgeSeconds = hits[i].widgets, &at, int(now.Sub(at)/time.Second)
			tiles[i].Reason = failure(r.err)
		default:
			tiles[i].Widgets, tiles[i].Reason = []json.RawMessage{overview(a)}, failure(r.err)
		}
	}
	for _, t := range tiles {
		if t.State == "omitted" {
			continue
		}
		out.Apps = append(out.Apps, t)
		out.Widgets = append(out.Widgets, t.Widgets...)
	}
	return out, nil
}

var errBudget = errors.New("no answer within its time budget")

// failure says in a few words why a fetch failed (never raw error text:
// the answer goes to a browser).
func failure(err error) string {
	switch {
	case errors.Is(err, errBudget):
		return "timeout"
	case errs.KindOf(err) == errs.KindUnavailable:
		return "unavailable"
	case errs.KindOf(err) == errs.KindAuthenticationRequired:
		return "authentication_required"
	}
	return "error"
}

// overview is the metadata-backed tile of an app whose widget failed with
// no stale payload: what the catalog says of it.
func overview(a App) json.RawMessage {
	raw, _ := json.Marshal(map[string]any{"appId": a.AppID, "title": a.Name, "overview": true, "summary": a.Summary(),
		"surfaceGroup": a.SurfaceGroup, "url": a.URL})
	return raw
}

// fetch reads one app's tiles: in-process through Widget.Load, or over
// HTTP from its service with the caller's credential.
func (l *Launcher) fetch(ctx context.Context, a App, caller Caller, c domain.Context) ([]json.RawMessage, error) {
	if a.Remote == "" {
		s, err := a.Widget.Load(ctx, a.AppID, caller.Principal)
		if err != nil {
			return nil, err
		}
		out := make([]json.RawMessage, len(s.Widgets))
		for i, t := range s.Widgets {
			if out[i], err = json.Marshal(t); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return l.fetchRemote(ctx, a, caller, c)
}

// maxRemoteWidget bounds a remote widget's answer.
const maxRemoteWidget = 256 << 10

// HeaderActiveContext carries the caller's active context to a remote
// widget: only personal or organization is ever forwarded.
const HeaderActiveContext = "X-Platform-Active-Context"

func (l *Launcher) fetchRemote(ctx context.Context, a App, caller Caller, c domain.Context) ([]json.RawMessage, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(a.Remote, "/")+httpapi.WidgetPath, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+caller.Credential)
	req.Header.Set("Accept", "application/json")
	req.Header.Set(HeaderActiveContext, c.Kind)
	res, err := l.client.Do(req)
	if err != nil {
		return nil, errs.Unavailable("widget of "+a.AppID+" unreachable", err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxRemoteWidget+1))
	switch {
	case err != nil:
		return nil, errs.Unavailable("widget of "+a.AppID+" cut off", err)
	case res.StatusCode == http.StatusForbidden:
		return nil, errs.PermissionDenied("widget of " + a.AppID)
	case res.StatusCode == http.StatusUnauthorized:
		return nil, errs.AuthenticationRequired("widget of " + a.AppID)
	case res.StatusCode != http.StatusOK:
		return nil, errs.Unavailable(fmt.Sprintf("widget of %s answered %d", a.AppID, res.StatusCode), nil)
	case len(body) > maxRemoteWidget:
		return nil, fmt.Errorf("widget of %s: answer over %d bytes", a.AppID, maxRemoteWidget)
	}
	var s struct {
		Success bool              `json:"success"`
		Widgets []json.RawMessage `json:"widgets"`
	}
	if err := json.Unmarshal(body, &s); err != nil || !s.Success {
		return nil, fmt.Errorf("widget of %s: not a widget summary", a.AppID)
	}
	for _, w := range s.Widgets {
		var t struct {
			AppID string `json:"appId"`
		}
		if json.Unmarshal(w, &t) != nil || t.AppID != a.AppID {
			return nil, fmt.Errorf("widget of %s: a tile of another app", a.AppID)
		}
	}
	return s.Widgets, nil
}

// cacheOwner is the person the cache keeps payloads for (a session's user,
// the user a key acts as), else the principal itself.
func cacheOwner(p principal.Principal) string {
	if u := domain.PersonOf(p); u != "" {
		return "user:" + u
	}
	return p.Type + ":" + p.ID
}

func cacheKey(who string, c domain.Context, appID string) string {
	return who + "|" + c.Key() + "|" + appID
}

// widgetCache keeps successful payloads in memory (see the top of the file).
type widgetCache struct {
	mu      sync.Mutex
	max     int
	entries map[string]cached
}

type cached struct {
	widgets []json.RawMessage
	at      time.Time
}

func (c *widgetCache) get(key string) (cached, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	return e, ok
}

func (c *widgetCache) put(key string, e cached, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; !ok && len(c.entries) >= c.max {
		for k, old := range c.entries {
			if !domain.Stale(old.at, now) {
				delete(c.entries, k)
			}
		}
		if len(c.entries) >= c.max {
			return
		}
	}
	c.entries[key] = e
}

func (c *widgetCache) drop(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, key)
}
