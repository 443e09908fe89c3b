package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"

	dto "github.com/prometheus/client_model/go"
)

// instrumented counts each answer in its status class, and keeps each
// class's counter instead of looking its labels up on every request: the
// request costs the status recorder and nothing more.
func TestInstrumentedCountsByClassWithoutLookups(t *testing.T) {
	status := http.StatusOK
	h := instrumented("metrics-test", "things.update", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(status)
	}))
	req := httptest.NewRequest(http.MethodPatch, "/things/1", nil)
	w := httptest.NewRecorder()
	serve := func(s, times int) {
		status = s
		for range times {
			h.ServeHTTP(w, req)
		}
	}
	serve(http.StatusOK, 3)
	serve(http.StatusUnprocessableEntity, 2)
	serve(http.StatusServiceUnavailable, 1)
	for class, want := range map[string]float64{"2xx": 3, "4xx": 2, "5xx": 1} {
		var m dto.Metric
		if err := actionRequests.WithLabelValues("metrics-test", "things.update", class).Write(&m); err != nil {
			t.Fatal(err)
		}
		if got := m.GetCounter().GetValue(); got != want {
			t.Fatalf("%s: %v requests counted, want %v", class, got, want)
		}
	}
	status = http.StatusOK
	if n := testing.AllocsPerRun(100, func() { h.ServeHTTP(w, req) }); n > 1 {
		t.Fatalf("%v allocations a request, want the status recorder's one", n)
	}
}
