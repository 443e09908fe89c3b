package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"runtime/trace"

	"github.com/google/uuid"
)

type requestIDKey struct{}

// RequestID is the id of the request being served (also the correlation id
// of the events it causes).
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

var safeRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

func withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(HeaderRequestID)
		if !safeRequestID.MatchString(id) {
			id = uuid.Must(uuid.NewV7()).String()
		}
		w.Header().Set(HeaderRequestID, id)
		ctx := context.WithValue(r.Context(), requestIDKey{}, id)
		if trace.IsEnabled() {
			// Under the execution tracer (go tool trace), a request is a
			// task, so a slow one's regions and waits show together.
			var task *trace.Task
			ctx, task = trace.NewTask(ctx, "http.request")
			trace.Log(ctx, "route", r.Method+" "+r.URL.Path)
			defer task.End()
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

func withRecover(next http.Handler, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				WriteError(w, r, log, fmt.Errorf("panic: %v", v))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// withCORS lets first-party browser apps (the policy's origins) send the
// platform's headers with credentials, preflight included. Other origins get
// no CORS headers, so browsers keep them out.
func withCORS(next http.Handler, policy *CORSPolicy) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && policy.Allows(origin) {
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Set("Vary", "Origin")
			h.Set("Access-Control-Allow-Credentials", "true")
			h.Set("Access-Control-Expose-Headers", "X-Platform-Position, X-Request-Id, Retry-After, Idempotent-Replayed")
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS")
				h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Idempotency-Key, X-Api-Key, X-Brand-ID, X-Platform-Auth, X-App-ID, X-Platform-Min-Position, X-Request-Id")
				h.Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
