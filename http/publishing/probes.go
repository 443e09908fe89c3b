package publishing

import (
	"net/http"

	"github.com/gorilla/mux"

	httpapi "github.com/platform/backend/http"
)

// probeRoutes are the seed's liveness (/healthz: the process answers) and
// readiness (/readyz: its dependencies answer; 503 otherwise) routes.
func (d Deps) probeRoutes(r *mux.Router) {
	r.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		httpapi.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok", "service": "publishing"})
	}).Methods(http.MethodGet)
	r.HandleFunc("/readyz", func(w http.ResponseWriter, req *http.Request) {
		if d.Ready == nil {
			httpapi.WriteJSON(w, http.StatusOK, map[string]string{"status": "ready", "service": "publishing"})
			return
		}
		status, body := d.Ready(req.Context())
		httpapi.WriteJSON(w, status, body)
	}).Methods(http.MethodGet)
}
