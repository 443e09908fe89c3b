package gateway

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"

	"github.com/gorilla/mux"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	"github.com/platform/backend/domain/errs"
	httpapi "github.com/platform/backend/http"
)

// maxWebhookBody bounds an inbound webhook (providers send a few KiB).
const maxWebhookBody = 1 << 20

// webhookRoutes are the providers' inbound webhooks: public routes (the
// provider authenticates with the connection's secret, not a platform
// credential), POST /webhooks/{provider}/{connectionId} for each provider
// that sends them (stripe, postmark, resend, whatsapp) and WhatsApp's GET
// subscription handshake. Unverified: 400 and nothing stored.
func webhookRoutes(e *gatewaycmd.Edge, log *slog.Logger) func(r *mux.Router) {
	return func(r *mux.Router) {
		r.HandleFunc("/webhooks/{provider}/{connectionId}", func(w http.ResponseWriter, req *http.Request) {
			vars := mux.Vars(req)
			body, err := io.ReadAll(io.LimitReader(req.Body, maxWebhookBody+1))
			if err != nil || len(body) > maxWebhookBody {
				webhookProblem(w, req, log, errs.InvalidField("", "the body is unreadable or larger than 1 MiB"))
				return
			}
			ans, err := e.ReceiveWebhook(req.Context(), gatewaycmd.InboundWebhook{Segment: vars["provider"], ConnectionID: vars["connectionId"],
				Header: req.Header, Body: body})
			if err != nil {
				webhookProblem(w, req, log, err)
				return
			}
			httpapi.WriteJSON(w, http.StatusOK, ans)
		}).Methods(http.MethodPost)
		r.HandleFunc("/webhooks/{provider}/{connectionId}", func(w http.ResponseWriter, req *http.Request) {
			vars := mux.Vars(req)
			challenge, err := e.SubscribeWebhook(req.Context(), vars["provider"], vars["connectionId"], req.URL.Query())
			if err != nil {
				webhookProblem(w, req, log, err)
				return
			}
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, challenge)
		}).Methods(http.MethodGet)
	}
}

// webhookProblem answers a refused webhook: its check failed (400: the
// provider's own retries cannot help, and nothing was stored), or the
// usual problem of the error.
func webhookProblem(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	var e *errs.Error
	if errors.As(err, &e) && e.Kind == errs.KindInvalidInput {
		w.Header().Set("Content-Type", "application/problem+json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]any{"type": "about:blank", "title": "Bad Request", "status": http.StatusBadRequest,
			"detail": e.Message, "code": firstNonEmpty(e.Code, "invalid_input"), "request_id": httpapi.RequestID(r.Context())})
		return
	}
	httpapi.WriteError(w, r, log, err)
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
