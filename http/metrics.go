package httpapi

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// Per-action request metrics: the rate, outcome and latency of every
// command and query of every service (the operators' dashboard,
// ops/grafana). Labels are the service, the action's name and the status
// class, never a path with ids in it.
var (
	actionRequests = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_http_requests_total",
		Help: "Action requests by service, action and status class (2xx, 4xx, 5xx).",
	}, []string{"service", "action", "class"})
	actionDuration = promauto.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "platform_http_request_duration_seconds",
		Help:    "Action request latency by service and action, until the answer (a stream: until its end).",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"service", "action"})
)

// statusRecorder keeps the status an action answered; Unwrap lets a
// stream's ResponseController reach the connection.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// instrumented counts and times an action's requests.
func instrumented(service, action string, next http.Handler) http.Handler {
	duration := actionDuration.WithLabelValues(service, action)
	// The counter of each status class, looked up on its first request and
	// kept: the label lookup (three labels hashed, a string made) was work
	// every request repeated. A class never answered has no series, as before.
	var classes [6]atomic.Pointer[prometheus.Counter]
	counter := func(status int) prometheus.Counter {
		class := status / 100
		if class < 1 || class >= len(classes) {
			return actionRequests.WithLabelValues(service, action, strconv.Itoa(class)+"xx")
		}
		if c := classes[class].Load(); c != nil {
			return *c
		}
		c := actionRequests.WithLabelValues(service, action, strconv.Itoa(class)+"xx")
		classes[class].Store(&c)
		return c
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		duration.Observe(time.Since(start).Seconds())
		status := rec.status
		if status == 0 {
			status = http.StatusOK
		}
		counter(status).Inc()
	})
}
