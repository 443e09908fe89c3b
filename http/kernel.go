package httpapi

import (
	"errors"
	"log/slog"
	"mime"
	"net/http"
	"os"
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
		w.Header().Set("X-Content-Type-Options", "nosniff")
		next.ServeHTTP(w, r)
	})
}

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

// AcceptsForms marks a route that takes HTML form posts
// (application/x-www-form-urlencoded) besides JSON: a browser page's form
// (the magic-link confirmation). Every other mutating route takes JSON only.
func AcceptsForms(h http.Handler) http.Handler { return formRoute{h} }

type formRoute struct{ http.Handler }

func (formRoute) accepts(mediaType string) bool {
	return mediaType == "application/x-www-form-urlencoded"
}

// requireJSON is 415 for a mutating request with a body that does not say it
// is JSON: the body is decoded as JSON whatever it claims, and a cross-site
// HTML form (text/plain, urlencoded) must not reach a JSON route without a
// CORS preflight. A request without a body needs no Content-Type.
func requireJSON(log *slog.Logger) mux.MiddlewareFunc {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !hasBody(r) || !mutating(r.Method) {
				next.ServeHTTP(w, r)
				return
			}
			mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
			json := err == nil && (mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
			other, accepted := false, "JSON (Content-Type: application/json or a +json type)"
			if route := mux.CurrentRoute(r); route != nil {
				if d, ok := route.GetHandler().(dialectRoute); ok {
					r = withDialect(r, d.dialect)
				}
				if m, ok := route.GetHandler().(mediaRoute); ok {
					other = err == nil && m.accepts(mt)
					if raw, isRaw := m.(rawRoute); isRaw {
						// A file route takes what it declares, not JSON.
						json, accepted = false, strings.Join(raw.types, " or ")
					}
				}
			}
			if !json && !other {
				WriteError(w, r, log, &kernelProblem{status: http.StatusUnsupportedMediaType, code: "unsupported_media_type",
					message: "the request body must be " + accepted,
					header:  http.Header{"Accept": {acceptHeader(accepted)}}})
				return
			}
			next.ServeHTTP(w, r)
		})
	}
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

// bodyReadError: a body that stops arriving before the listener's read
// timeout is the client's slowness (408, and the connection closes);
// anything else unreadable is invalid input.
func bodyReadError(err error) error {
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
			p := pointer + "/" + escapePointer(k)
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

// escapePointer escapes a member name as a JSON pointer token (RFC 6901).
func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
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
