package gateway

import (
	"context"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/gateway"
)

// healthActor is the actor of health transitions.
const healthActor = "gateway.health"

// recordHealth feeds one attempt to the provider's health per organization.
// Only a success or a failure the provider caused counts (a caller's
// deadline, bad input, a 429 or one connection's refused key do not). The
// process keeps the last state it saw per stream and issues the transition
// command only when the attempt disagrees with it; the command re-decides
// under the stream lock. So a healthy provider costs no write per call.
func (h *Handlers) recordHealth(ctx context.Context, call Call, a Attempt, latencyMS int64) {
	ok := a.Outcome == domain.OutcomeOK
	if !ok && !domain.ProviderCaused(a.Outcome) {
		return
	}
	result := "ok"
	if !ok {
		result = "failed"
	}
	providerAttempts.WithLabelValues(call.Provider, result).Inc()
	org := call.Caller.OrganizationID
	stream := domain.HealthStreamID(org, call.Provider)
	state, known := h.lastHealth(stream)
	if !known {
		history, err := h.store.Load(ctx, stream)
		if err != nil {
			h.log.Warn("gateway: provider health not read", "stream", stream, "err", err)
			return
		}
		model, err := domain.LoadHealth(commands.Recorded(history))
		if err != nil {
			h.log.Error("gateway: provider health not decoded", "stream", stream, "err", err)
			return
		}
		state = model.Status
		h.setHealth(stream, state)
	}
	if !domain.Disagrees(state, ok) {
		return
	}
	word := a.Error
	if word == "" && !ok {
		word = a.Outcome
	}
	res, err := run(ctx, h, systemMeta(org, healthActor, call.Caller.CorrelationID), domain.StreamHealth, stream, domain.LoadHealth,
		func(m *domain.Health) ([]event.Change, error) {
			return m.Record(domain.Attempt{Provider: call.Provider, OK: ok, Error: word, LatencyMS: latencyMS,
				ConnectionID: call.ConnectionID, RequestID: a.ProviderRequestID}, h.now()), nil
		}, func(m *domain.Health) domain.Health { return *m })
	if err != nil {
		h.log.Warn("gateway: provider health transition not recorded", "stream", stream, "err", err)
		return
	}
	if res.Value.Status != state {
		providerTransitions.WithLabelValues(call.Provider, res.Value.Status).Inc()
	}
	h.setHealth(stream, res.Value.Status)
}

func (h *Handlers) lastHealth(stream string) (string, bool) {
	h.healthMu.Lock()
	defer h.healthMu.Unlock()
	s, ok := h.health[stream]
	return s, ok
}

func (h *Handlers) setHealth(stream, state string) {
	h.healthMu.Lock()
	defer h.healthMu.Unlock()
	h.health[stream] = state
}
