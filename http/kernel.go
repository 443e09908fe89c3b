package httpapi

import (
	"errors"
	"log/slog"
	"mime"
	"net/http"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gorilla/mux"

	"github.com/platform/backend/domain/errs"
)

// The HTTP kernel's protocol checks, shared by every service's router: what
// a request must be before any route looks at it, and the answers net/http
// would otherwise write as plain text.

// withSecurityHeaders marks every answer, problems and plain routes
// (/metrics, HTML pages) alike: browsers must not sniff a JSON or text
// answer into HTML or script.
func withSecurityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["X-Content-Type-Options"] = nosniff
		next.ServeHTTP(w, r)
	})
}

// nosniff is one value shared by every answer, not one allocated for each:
// net/http copies the header when the answer starts, and Set and Add
// replace or grow a value, never write into it.
var nosniff = []string{"nosniff"}

// withHeaderLimit answers a request line and header block larger than limit
// with a 431 problem. net/http refuses what exceeds its own MaxHeaderBytes in
// plain text before any handler runs, so the listener's limit is set above
// this one (ServerConfig.Configure) and this check is the one clients meet.
func withHeaderLimit(next http.Handler, limit int, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if headerBytes(r) > limit {
			w.Header().Set("Connection", "close")
			WriteError(w, r, log, &kernelProblem{status: http.StatusRequestHeaderFieldsTooLarge, code: "request_header_too_large",
				message: "the request line and headers exceed " + strconv.Itoa(limit) + " bytes"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// headerBytes is about what the client sent for the request line and headers
// (net/http counts the same bytes against MaxHeaderBytes).
func headerBytes(r *http.Request) int {
	n := len(r.Method) + len(r.RequestURI) + len(r.Proto) + 4 + len("Host: ") + len(r.Host) + 2
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	return n
}

// routeTraits is what the kernel knows of a route beyond its handler, for
// the checks every route gets before it runs (routeChecks): the media types
// it takes besides JSON, or instead of JSON (a raw body), the status of its
// invalid input, and whether third parties call it without a credential
// (the per-address inbound limit). Actions get theirs from their
// descriptor; plain routes from AcceptsForms, Inbound and InvalidInputStatus.
type routeTraits struct {
	http.Handler
	forms         bool     // HTML form posts besides JSON
	raw           []string // a raw body's media types, in place of JSON
	invalidStatus int      // 0: the service's
	inbound       bool
	dialect       *ErrorDialect // an SDK-compatible route's error shape (nil: problem+json)
}

// traitsOf is a route handler's traits (none for a bare handler).
func traitsOf(h http.Handler) routeTraits {
	if t, ok := h.(routeTraits); ok {
		return t
	}
	return routeTraits{Handler: h}
}

// AcceptsForms marks a route that takes HTML form posts
// (application/x-www-form-urlencoded) besides JSON: a browser page's form
// (the magic-link confirmation). Every other mutating route takes JSON only.
func AcceptsForms(h http.Handler) http.Handler {
	t := traitsOf(h)
	t.forms = true
	return t
}

// Inbound marks a public route that third parties call without a platform
// credential (a provider's webhook, an OAuth network's redirect): each call
// takes from its client address's inbound bucket (RateLimitConfig's
// Inbound*), 429 rate_limited with Retry-After past it. Action.Inbound says
// the same of an action.
func Inbound(h http.Handler) http.Handler {
	t := traitsOf(h)
	t.inbound = true
	return t
}

// InvalidInputStatus makes a plain route's invalid input (its own and the
// kernel's checks of its parameters) answer status instead of the service's
// (Action.InvalidStatus says the same of an action).
func InvalidInputStatus(status int, h http.Handler) http.Handler {
	t := traitsOf(h)
	t.invalidStatus = status
	return t
}

// routeChecks are the kernel's checks of every matched route, actions and
// plain routes alike, before the route runs: the inbound limit of public
// routes, the media type (415), the body's size (413), and the path and
// query parameters (NUL and invalid UTF-8: 422 at the parameter, as a body
// member would be). Unmatched paths (404) and methods (405) never get here.
func routeChecks(d Deps) mux.MiddlewareFunc {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var t routeTraits
			if route := mux.CurrentRoute(r); route != nil {
				t = traitsOf(route.GetHandler())
			}
			if t.dialect != nil {
				r = withDialect(r, t.dialect)
			}
			if t.invalidStatus != 0 {
				r = InvalidInputAs(r, t.invalidStatus)
			}
			if t.inbound {
				if err := d.Inbound.AllowAddress(r); err != nil {
					WriteError(w, r, d.Log, err)
					return
				}
			}
			if err := checkMediaType(r, t); err != nil {
				WriteError(w, r, d.Log, err)
				return
			}
			if t.raw == nil {
				// A raw body has its own bound (RawBody.MaxBytes); every other
				// body is JSON input or a form, at most 1 MiB whoever reads it.
				if r.ContentLength > maxBody {
					WriteError(w, r, d.Log, errTooLarge(maxBody))
					return
				}
				r.Body = http.MaxBytesReader(w, r.Body, maxBody)
			}
			if fields := paramProblems(r); len(fields) > 0 {
				WriteError(w, r, d.Log, errs.Invalid(fields...))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// checkMediaType is 415 for a mutating request with a body that does not say
// it is JSON: the body is decoded as JSON whatever it claims, and a
// cross-site HTML form (text/plain, urlencoded) must not reach a JSON route
// without a CORS preflight. A request without a body needs no Content-Type.
// A file route takes what it declares, not JSON.
func checkMediaType(r *http.Request, t routeTraits) error {
	if !hasBody(r) || !mutating(r.Method) {
		return nil
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	json := err == nil && (mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
	other := err == nil && t.forms && mt == "application/x-www-form-urlencoded"
	accepted := "JSON (Content-Type: application/json or a +json type)"
	if t.raw != nil {
		json, other, accepted = false, err == nil && slices.Contains(t.raw, mt), strings.Join(t.raw, " or ")
	}
	if json || other {
		return nil
	}
	return &kernelProblem{status: http.StatusUnsupportedMediaType, code: "unsupported_media_type",
		message: "the request body must be " + accepted,
		header:  http.Header{"Accept": {acceptHeader(accepted)}}}
}

// paramProblems are the path and query parameters a body member with the
// same value would be refused for: U+0000 (PostgreSQL's text cannot hold
// it: a lookup by such an id failed as a 500) and invalid UTF-8 (text
// columns refuse it, and JSON would turn it into U+FFFD silently). The
// pointer names the parameter, as the action's input does.
func paramProblems(r *http.Request) []errs.Field {
	var out []errs.Field
	check := func(name, value string) {
		p := errs.MemberPointer("", name)
		switch {
		case !utf8.ValidString(name) || !utf8.ValidString(value):
			out = append(out, errs.Field{Pointer: p, Detail: "must be valid UTF-8"})
		case strings.IndexByte(name, 0) >= 0:
			out = append(out, errs.Field{Pointer: p, Detail: "a member name must not contain U+0000 (NUL)"})
		case strings.IndexByte(value, 0) >= 0:
			out = append(out, errs.Field{Pointer: p, Detail: "must not contain U+0000 (NUL)"})
		}
	}
	for name, value := range mux.Vars(r) {
		check(name, value)
	}
	if r.URL.RawQuery != "" {
		for name, values := range r.URL.Query() {
			for _, v := range values {
				check(name, v)
			}
		}
	}
	if len(out) < 2 { // every request passes here: sort.Slice allocates even for none
		return out
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pointer < out[j].Pointer })
	return slices.CompactFunc(out, func(a, b errs.Field) bool { return a.Pointer == b.Pointer })
}

// errTooLarge is the answer to a body past its bound.
func errTooLarge(limit int64) error {
	return errs.TooLarge("payload_too_large", "the request body is larger than "+strconv.FormatInt(limit, 10)+" bytes")
}

// acceptHeader is the Accept of a 415: the media types a route takes.
func acceptHeader(accepted string) string {
	if strings.HasPrefix(accepted, "JSON") {
		return "application/json"
	}
	return strings.ReplaceAll(accepted, " or ", ", ")
}

// hasBody: ContentLength is -1 when the length is unknown (chunked), which
// may carry a body.
func hasBody(r *http.Request) bool { return r.ContentLength != 0 }

func mutating(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// allowHandler answers a declared path with an undeclared method: 405 with
// the methods the path's routes declare in Allow (RFC 9110 requires it).
func allowHandler(router *mux.Router, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var allow []string
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			probe := r.WithContext(r.Context())
			probe.Method = m
			var match mux.RouteMatch
			if router.Match(probe, &match) && match.MatchErr == nil {
				allow = append(allow, m)
			}
		}
		WriteError(w, r, log, &kernelProblem{status: http.StatusMethodNotAllowed, code: "method_not_allowed",
			message: r.Method + " is not served at " + r.URL.Path + "; allowed: " + strings.Join(allow, ", "),
			header:  http.Header{"Allow": {strings.Join(allow, ", ")}}})
	})
}

// bodyReadError: a body past its bound is 413; a body that stops arriving
// before the listener's read deadline is the client's slowness (408, and the
// connection closes); anything else unreadable is invalid input.
func bodyReadError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return errTooLarge(tooLarge.Limit)
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return &kernelProblem{status: http.StatusRequestTimeout, code: "request_timeout",
			message: "the request body did not arrive in time", header: http.Header{"Connection": {"close"}}}
	}
	return errs.InvalidField("", "the request body could not be read")
}

// nulFields lists the members of an assembled input whose value or name
// holds U+0000, sorted by pointer. PostgreSQL's text and jsonb cannot store
// it, so every action refuses it here instead of failing in the database
// (a 500) or, worse, succeeding on a read with a truncated comparison.
func nulFields(pointer string, v any, out []errs.Field) []errs.Field {
	switch v := v.(type) {
	case string:
		if strings.IndexByte(v, 0) >= 0 {
			out = append(out, errs.Field{Pointer: pointer, Detail: "must not contain U+0000 (NUL)"})
		}
	case map[string]any:
		for k, m := range v {
			p := errs.MemberPointer(pointer, k)
			if strings.IndexByte(k, 0) >= 0 {
				out = append(out, errs.Field{Pointer: p, Detail: "a member name must not contain U+0000 (NUL)"})
				continue
			}
			out = nulFields(p, m, out)
		}
	case []any:
		for i, m := range v {
			out = nulFields(pointer+"/"+strconv.Itoa(i), m, out)
		}
	}
	if pointer == "" {
		sort.Slice(out, func(i, j int) bool { return out[i].Pointer < out[j].Pointer })
	}
	return out
}

// headerText refuses a header value that is not UTF-8: the platform's
// headers that reach the database (Idempotency-Key, X-Platform-Min-Position)
// are text columns there. The pointer names the header: /header/<Name>.
func headerText(name, value string) error {
	if !utf8.ValidString(value) {
		return errs.InvalidField("/header/"+name, "must be valid UTF-8")
	}
	return nil
}
