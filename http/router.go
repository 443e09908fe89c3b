package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	pathpkg "path"
	"runtime/trace"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gorilla/mux"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/projections"
)

// Header names of the platform's HTTP conventions.
const (
	HeaderIdempotencyKey = "Idempotency-Key"
	HeaderReplayed       = "Idempotent-Replayed"
	HeaderPosition       = "X-Platform-Position"     // on command answers
	HeaderMinPosition    = "X-Platform-Min-Position" // on queries: wait for this
	HeaderRequestID      = "X-Request-Id"
	HeaderAPIKey         = "X-Api-Key"
)

const maxBody = 1 << 20

// Service is one seed service on its own listener.
type Service struct {
	Name string
	// AppID is the service's identity app id: an action's short permission
	// (`status:read`) is checked as the full string `<AppID>.status:read`.
	AppID   string
	Actions []Action
	// Routes adds routes that are not actions (pages).
	Routes func(r *mux.Router)
	// Exact are plain routes (any method) served ahead of the router on
	// their exact path, with the same checks as every route: for a route
	// every request of the platform calls (identity's /validate), which
	// the router would reach only after trying every action's pattern (a
	// sixth of /validate's server CPU). A path here must match no other
	// route: NewHandler refuses one that does.
	Exact map[string]http.Handler
	// HealthPath is the liveness route the kernel serves (default
	// /api/health; seed 001's gateway and seed 002's publishing and
	// contacts APIs name /health).
	HealthPath string
	// InvalidInputStatus is the status of invalid input (default 422, the
	// platform's; seed 002's contacts API says 400). The body is the same
	// problem with the same code and pointers.
	InvalidInputStatus int
	// Health, when set, answers the health route: its status and body (a
	// service whose seed asks for dependency checks, 503 when one fails).
	Health func(ctx context.Context) (int, any)
}

// DefaultHealthPath is the liveness route of seed 000 and most services.
const DefaultHealthPath = "/api/health"

// Deps are what every service's router needs.
type Deps struct {
	Validator Validator
	Limiter   *Limiter
	// Attempts limits credential attempts per client address (actions
	// marked CredentialAttempt, magic links); nil: no such limit.
	Attempts *Limiter
	// Inbound limits calls of public routes third parties make without a
	// credential (Action.Inbound, Inbound: providers' webhooks, OAuth
	// callbacks) per client address; nil: no such limit.
	Inbound *Limiter
	Reader  *projections.Reader
	Log     *slog.Logger
	// CORS is the first-party origin policy (nil: local development origins).
	CORS *CORSPolicy
	// MaxHeaderBytes: a larger request line and header block is a 431
	// problem (0: ServerConfig's default).
	MaxHeaderBytes int
	// CheckOutput validates every success answer of an action against its
	// output schema before it is written; a mismatch is logged and answered
	// as a 500 (code output_schema_violation) naming the failing members.
	// A debug check: the tests (apptest, e2e) and the fuzzing gate turn it
	// on, so every answer they see is one the OpenAPI document describes.
	CheckOutput bool
}

// NewHandler builds a service's handler: its actions, its descriptors at
// GET /api/actions, its OpenAPI document at GET /api/openapi.json.
func NewHandler(svc Service, d Deps) (http.Handler, error) {
	if d.Log == nil {
		d.Log = slog.Default()
	}
	if d.MaxHeaderBytes == 0 {
		d.MaxHeaderBytes = ServerConfig{}.WithDefaults().MaxHeaderBytes
	}
	r := mux.NewRouter()
	r.Use(routeChecks(d))
	for i := range svc.Actions {
		a := &svc.Actions[i]
		if err := a.withDefaults(); err != nil {
			return nil, err
		}
		route := r.NewRoute()
		if shadowed := literalSiblings(svc.Actions, a.Path); len(shadowed) > 0 {
			// GET /api/api-keys/options is not PATCH /api/api-keys/{keyId} with
			// keyId "options": another method on a literal path is a 405. One
			// matcher for the path and the exclusion, ahead of the others:
			// mux forgets an earlier route's method mismatch whenever one of a
			// later route's matchers succeeds, so a route that matched the
			// literal path and was refused afterwards (or a matcher that
			// passed any path) would turn TRACE on a declared path into a 404.
			tpl := mux.NewRouter().NewRoute().Path(a.Path)
			route.MatcherFunc(func(req *http.Request, _ *mux.RouteMatch) bool {
				return !slices.Contains(shadowed, req.URL.Path) && tpl.Match(req, &mux.RouteMatch{})
			})
		}
		traits := routeTraits{Handler: instrumented(svc.Name, a.Name, d.serveAction(a, svc.AppID)), invalidStatus: a.InvalidStatus,
			inbound: a.Inbound, dialect: a.Errors}
		if a.Body != nil {
			traits.raw = a.Body.MediaTypes
		}
		route.Path(a.Path).Methods(a.Method).Handler(traits)
	}
	r.HandleFunc("/api/actions", func(w http.ResponseWriter, _ *http.Request) {
		WriteJSON(w, http.StatusOK, map[string]any{"service": svc.Name, "actions": svc.Actions})
	}).Methods(http.MethodGet)
	r.HandleFunc("/api/openapi.json", func(w http.ResponseWriter, _ *http.Request) {
		WriteJSON(w, http.StatusOK, OpenAPI(svc))
	}).Methods(http.MethodGet)
	docsRoutes(r, svc.Name) // GET /docs: the OpenAPI document for people (docs.go)
	health := svc.HealthPath
	if health == "" {
		health = DefaultHealthPath
	}
	r.HandleFunc(health, func(w http.ResponseWriter, req *http.Request) {
		if svc.Health != nil {
			status, body := svc.Health(req.Context())
			WriteJSON(w, status, body)
			return
		}
		WriteJSON(w, http.StatusOK, map[string]string{"status": "ok", "service": svc.Name,
			"timestamp": time.Now().UTC().Format(time.RFC3339Nano)})
	}).Methods(http.MethodGet)
	if svc.Routes != nil {
		svc.Routes(r)
	}
	r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		WriteError(w, req, d.Log, errs.NotFound("route "+req.URL.Path))
	})
	r.MethodNotAllowedHandler = allowHandler(r, d.Log)
	routed, err := withExact(r, svc.Exact, routeChecks(d))
	if err != nil {
		return nil, err
	}
	handler := withSecurityHeaders(withRequestID(withRecover(withHeaderLimit(withCORS(routed, d.CORS), d.MaxHeaderBytes, d.Log), d.Log)))
	return withInvalidInputStatus(handler, svc.InvalidInputStatus), nil
}

// withExact serves the exact routes ahead of the router r, each behind
// checks (the router's own middleware: a route without traits gets exactly
// what it would get from the router). A path the router would also match,
// by any method, is refused: serving it first would change which route
// answers.
func withExact(r *mux.Router, exact map[string]http.Handler, checks mux.MiddlewareFunc) (http.Handler, error) {
	if len(exact) == 0 {
		return r, nil
	}
	served := make(map[string]http.Handler, len(exact))
	for path, h := range exact {
		if !strings.HasPrefix(path, "/") || pathpkg.Clean(path) != path {
			return nil, fmt.Errorf("exact route %q: not a clean absolute path", path)
		}
		for _, method := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
			http.MethodDelete, http.MethodOptions, http.MethodTrace, http.MethodConnect} {
			req, err := http.NewRequest(method, path, nil)
			if err != nil {
				return nil, fmt.Errorf("exact route %q: %w", path, err)
			}
			var m mux.RouteMatch
			if r.Match(req, &m) && m.MatchErr != mux.ErrNotFound {
				return nil, fmt.Errorf("exact route %s is also a route of the router (%s)", path, method)
			}
		}
		served[path] = checks(h)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if h, ok := served[req.URL.Path]; ok {
			h.ServeHTTP(w, req)
			return
		}
		r.ServeHTTP(w, req)
	}), nil
}

func (d Deps) serveAction(a *Action, appID string) http.Handler {
	permission := ""
	if a.Permission != "" {
		permission = principal.Qualify(appID, a.Permission)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fail := func(err error) { WriteError(w, r, d.Log, err) }
		ctx := r.Context()
		var p principal.Principal
		if a.AuthorizationMode != AuthPublic {
			token := Credential(r)
			if token == "" {
				fail(ErrAuthRequired)
				return
			}
			var err error
			authenticating := trace.StartRegion(ctx, "http.authenticate")
			p, err = d.Validator.Validate(ctx, token)
			authenticating.End()
			if err != nil {
				// Failed credentials spend the client address's bucket, so
				// guessing keys is rate limited too.
				if errs.KindOf(err) == errs.KindAuthenticationRequired {
					if lerr := d.Limiter.Allow(limitKey(principal.Principal{}, r)); lerr != nil {
						err = lerr
					}
				}
				fail(err)
				return
			}
		}
		if err := d.Limiter.Allow(limitKey(p, r)); err != nil {
			fail(err)
			return
		}
		if a.CredentialAttempt {
			if err := d.Attempts.AllowAttempt(r); err != nil {
				fail(err)
				return
			}
		}
		// A runtime-authorized action with allowed services is decided by
		// who calls (a listed service identity), not by a permission the
		// service identity cannot hold.
		runtimeService := a.AuthorizationMode == AuthRuntime && len(a.AllowedServices) > 0 && p.Type == "service"
		if permission != "" && !runtimeService && !p.Allows(permission) {
			fail(errs.PermissionDenied("the credential lacks permission " + permission))
			return
		}
		// Only a service identity names a calling service: an API key's or a
		// session's Service is the service it targets, not who calls.
		if len(a.AllowedServices) > 0 && (p.Type != "service" || !slices.Contains(a.AllowedServices, p.Service)) {
			fail(errs.PermissionDenied("this action accepts only the services " + strings.Join(a.AllowedServices, ", ")))
			return
		}
		var body io.Reader
		var mediaType string
		if a.Body != nil {
			var err error
			if body, mediaType, err = a.openBody(w, r); err != nil {
				fail(err)
				return
			}
		}
		input, value, err := a.assembleInput(r)
		if err != nil {
			fail(err)
			return
		}
		if err := a.validateInput(input, value); err != nil {
			fail(err)
			return
		}
		if a.ReadOnly && a.ReadModel != "" {
			if raw := r.Header.Get(HeaderMinPosition); raw != "" {
				if err := headerText(HeaderMinPosition, raw); err != nil {
					fail(err)
					return
				}
				pos, err := eventstore.ParsePositions(raw)
				if err != nil {
					fail(errs.InvalidField("/header/"+HeaderMinPosition, err.Error()))
					return
				}
				if err := d.Reader.WaitForCaller(ctx, a.ReadModel, pos, waitsFor(p)); err != nil {
					fail(err)
					return
				}
			}
		}
		call := &Call{Input: input, Principal: p, Request: r, Body: body, MediaType: mediaType, Meta: commands.Meta{
			OrganizationID: p.OrganizationID,
			Actor:          eventstore.Actor{ID: p.ID, Type: p.Type},
			ActingUser:     p.ActingUser(),
			CorrelationID:  RequestID(ctx),
		}}
		if !a.ReadOnly && !a.NoIdempotencyKey {
			if key := r.Header.Get(HeaderIdempotencyKey); key != "" {
				if len(key) > 255 {
					fail(errs.InvalidField("/header/"+HeaderIdempotencyKey, "must be at most 255 characters"))
					return
				}
				if err := headerText(HeaderIdempotencyKey, key); err != nil {
					fail(err)
					return
				}
				call.Meta.IdempotencyKey = key
				// A raw body is not part of the fingerprint (it is read once,
				// while the action runs); its media type is.
				call.Meta.RequestHash = eventstore.HashRequest([]byte(a.Name), []byte(r.URL.Path), input, []byte(mediaType))
			}
		}
		// Every command the action runs records its position here, so the
		// answer covers all the streams it wrote (commands.Track).
		hctx, tracked := ctx, func() eventstore.Positions { return nil }
		if !a.ReadOnly {
			hctx, tracked = commands.Track(ctx)
		}
		reply, err := a.Handle(hctx, call)
		if err != nil {
			fail(err)
			return
		}
		var positions eventstore.Positions
		if reply.Position != nil {
			// A handler that answers no position (an answer that must not
			// tell whether it wrote) gets none added.
			positions = eventstore.Positions{*reply.Position}
			for _, p := range tracked() {
				positions = positions.Add(p)
			}
		}
		if reply.Stream != nil {
			ew := newEventWriter(w)
			if err := reply.Stream(ctx, ew); err != nil {
				if !ew.Started() {
					fail(err)
				} else {
					ew.fail(r, d.Log, err)
				}
			}
			return
		}
		if a.SuccessStatus == http.StatusNoContent {
			for k, vs := range reply.Header {
				w.Header()[k] = vs
			}
			if positions != nil {
				w.Header().Set(HeaderPosition, positions.String())
			}
			w.WriteHeader(http.StatusNoContent) // no body (RFC 9110): the command's answer is not shown
			return
		}
		if d.CheckOutput && reply.Content == nil {
			if err := a.checkOutput(reply.Body); err != nil {
				d.Log.Error("output schema violation", "err", err, "request_id", RequestID(ctx))
				fail(&kernelProblem{status: http.StatusInternalServerError, code: "output_schema_violation", message: err.Error()})
				return
			}
		}
		for k, vs := range reply.Header {
			w.Header()[k] = vs
		}
		if positions != nil {
			w.Header().Set(HeaderPosition, positions.String())
			if !a.ReadOnly && a.ReadModel != "" {
				// Bounded; past the bound the answer goes out all the same
				// (the events are durable, the read model will follow).
				_ = d.Reader.WaitFor(ctx, a.ReadModel, positions...)
			}
		}
		if reply.Replayed {
			w.Header().Set(HeaderReplayed, "true")
		}
		if reply.Content != nil {
			writeContent(w, r, d.Log, a.SuccessStatus, reply)
			return
		}
		WriteJSON(w, a.SuccessStatus, reply.Body)
	})
}

// literalSiblings are the paths of other actions without parameters that the
// parameterized path also matches (a segment's value equal to their literal).
func literalSiblings(actions []Action, path string) []string {
	if !strings.Contains(path, "{") {
		return nil
	}
	tpl := mux.NewRouter().NewRoute().Path(path)
	var out []string
	for _, b := range actions {
		if strings.Contains(b.Path, "{") || slices.Contains(out, b.Path) {
			continue
		}
		probe, err := http.NewRequest(http.MethodGet, b.Path, nil)
		if err == nil && tpl.Match(probe, &mux.RouteMatch{}) {
			out = append(out, b.Path)
		}
	}
	return out
}

// Credential reads a bearer token or a platform API key.
func Credential(r *http.Request) string {
	if h := r.Header.Get("Authorization"); len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return strings.TrimSpace(r.Header.Get(HeaderAPIKey))
}

func limitKey(p principal.Principal, r *http.Request) string {
	if p.ID != "" {
		return "p:" + p.ID
	}
	return "ip:" + ClientAddress(r)
}

// assembleInput merges the JSON body, the path parameters and the query
// parameters into the one input object the action's schema describes.
// Query values are strings on the wire; they become numbers or booleans
// where the schema's property says so. Beside its encoding it returns the
// object itself when that is exactly what the encoding decodes to (every
// text UTF-8, no float from the query), so validateInput checks it without
// parsing the encoding again; nil otherwise.
func (a *Action) assembleInput(r *http.Request) ([]byte, any, error) {
	input := map[string]any{}
	exact := true // the body is UTF-8 (checked below) and decoded with json.Number
	var body []byte
	var err error
	if a.Body == nil { // a raw body is the handler's to read
		// routeChecks bounded it (MaxBytesReader): past 1 MiB this is 413.
		body, err = io.ReadAll(r.Body)
	}
	if err != nil {
		return nil, nil, bodyReadError(err)
	}
	if len(body) > maxBody {
		return nil, nil, errTooLarge(maxBody)
	}
	if !utf8.Valid(body) {
		// encoding/json would replace each invalid byte with U+FFFD and the
		// call would go on with text the client never sent.
		return nil, nil, errs.Invalid(invalidUTF8Fields(body)...)
	}
	if len(bytes.TrimSpace(body)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		// Decoded as any, not into the map: a JSON null would leave a nil map
		// (the parameters below then panicked writing into it), and an array or
		// a scalar deserves the same answer as null.
		var doc any
		if err := dec.Decode(&doc); err != nil {
			return nil, nil, errs.InvalidField("", "the body must be a JSON object: "+err.Error())
		}
		if dec.More() {
			return nil, nil, errs.InvalidField("", "the body must hold one JSON object")
		}
		obj, ok := doc.(map[string]any)
		if !ok {
			return nil, nil, errs.InvalidField("", "the body must be a JSON object, not "+jsonKind(doc))
		}
		input = obj
	}
	if r.URL.RawQuery != "" {
		// The schema is decoded for its property types only when a query
		// string needs them: a JSON body carries its own types, and the
		// decode was measured at 6% of the gateway's CPU per completion.
		types := a.propertyTypes()
		for k, vs := range r.URL.Query() {
			if len(vs) > 0 {
				v := coerce(vs[len(vs)-1], types[k])
				input[k] = v
				if _, float := v.(float64); float || !utf8.ValidString(k) || !utf8.ValidString(vs[len(vs)-1]) {
					exact = false
				}
			}
		}
	}
	for k, v := range mux.Vars(r) {
		input[k] = v
		exact = exact && utf8.ValidString(v)
	}
	if fields := nulFields("", input, nil); len(fields) > 0 {
		return nil, nil, errs.Invalid(fields...)
	}
	doc := integralNumbers(input)
	raw, err := encodeInput(doc)
	if err != nil || !exact {
		return raw, nil, err
	}
	return raw, doc, nil
}

// invalidUTF8Fields names the members of a body that is not UTF-8: those
// whose value or name decodes with U+FFFD (encoding/json's replacement of an
// invalid byte). A body that does not decode at all, or whose bad bytes sit
// in no member, is refused at the root.
func invalidUTF8Fields(body []byte) []errs.Field {
	var doc any
	var found []errs.Field
	if json.Unmarshal(body, &doc) == nil {
		found = replacedFields("", doc, nil)
	}
	if len(found) == 0 {
		return []errs.Field{{Pointer: "", Detail: "the body must be valid UTF-8"}}
	}
	return found
}

func replacedFields(pointer string, v any, out []errs.Field) []errs.Field {
	const replacement = "\uFFFD"
	switch v := v.(type) {
	case string:
		if strings.Contains(v, replacement) {
			out = append(out, errs.Field{Pointer: pointer, Detail: "must be valid UTF-8"})
		}
	case map[string]any:
		for k, m := range v {
			p := errs.MemberPointer(pointer, k)
			if strings.Contains(k, replacement) {
				out = append(out, errs.Field{Pointer: p, Detail: "a member name must be valid UTF-8"})
				continue
			}
			out = replacedFields(p, m, out)
		}
	case []any:
		for i, m := range v {
			out = replacedFields(pointer+"/"+strconv.Itoa(i), m, out)
		}
	}
	if pointer == "" {
		sort.Slice(out, func(i, j int) bool { return out[i].Pointer < out[j].Pointer })
	}
	return out
}

// integralNumbers writes numbers with an integral value (1295.0, 1.2e3) as
// integers: JSON Schema's "integer" admits them, and the handlers decode
// integer members into Go ints, which refuse a fraction or an exponent.
func integralNumbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		s := v.String()
		if !strings.ContainsAny(s, ".eE") {
			return v
		}
		if f, err := v.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return json.Number(strconv.FormatInt(int64(f), 10))
		}
	case map[string]any:
		for k, m := range v {
			v[k] = integralNumbers(m)
		}
	case []any:
		for i, m := range v {
			v[i] = integralNumbers(m)
		}
	}
	return v
}

// jsonKind names a decoded JSON value's type for a client's error message.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	default:
		return "a number"
	}
}

func (a *Action) propertyTypes() map[string]string {
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(a.InputSchema, &s)
	out := map[string]string{}
	for k, p := range s.Properties {
		if t, ok := p.Type.(string); ok {
			out[k] = t
		}
	}
	return out
}

func coerce(v, typ string) any {
	switch typ {
	case "integer":
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return n
		}
	case "number":
		if n, err := strconv.ParseFloat(v, 64); err == nil {
			return n
		}
	case "boolean":
		if b, err := strconv.ParseBool(v); err == nil {
			return b
		}
	}
	return v
}
