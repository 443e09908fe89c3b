package gateway

import (
	"encoding/json"
	"time"

	"github.com/platform/backend/domain/event"
)

// StreamHealth is a provider's health as one organization sees it: one
// stream per organization and provider (HealthStreamID). Only transitions
// are events, so a healthy provider costs no write per call.
const StreamHealth = "gateway.provider_health"

// Health event types: named as the contracts they map to.
const (
	ProviderDegraded  = "gateway.provider.degraded"
	ProviderRecovered = "gateway.provider.recovered"
)

// HealthEventTypes are the health area's event types.
var HealthEventTypes = []string{ProviderDegraded, ProviderRecovered}

// HealthStreamID is the health stream of an organization's provider.
func HealthStreamID(org, provider string) string { return "health:" + org + ":" + provider }

// Health states.
const (
	HealthUnknown  = "unknown"
	HealthHealthy  = "healthy"
	HealthDegraded = "degraded"
)

// ProviderHealthV1 is the payload of both transitions.
type ProviderHealthV1 struct {
	Provider     string    `json:"provider"`
	Status       string    `json:"status"`
	Error        string    `json:"error"`
	LatencyMS    int64     `json:"latency_ms"`
	ConnectionID string    `json:"connection_id,omitempty"`
	RequestID    string    `json:"request_id,omitempty"`
	At           time.Time `json:"at"`
}

// Health is the write model of one health stream.
type Health struct {
	Status string `json:"status"`
}

// LoadHealth folds a health stream.
func LoadHealth(history []event.Recorded) (*Health, error) {
	h := &Health{Status: HealthUnknown}
	for _, r := range history {
		switch r.Type {
		case event.SnapshotType:
			if err := json.Unmarshal(r.Payload, h); err != nil {
				return nil, err
			}
		case ProviderDegraded:
			h.Status = HealthDegraded
		case ProviderRecovered:
			h.Status = HealthHealthy
		}
	}
	return h, nil
}

// Attempt is one provider-caused failure or one success, as health sees it.
type Attempt struct {
	Provider     string
	OK           bool
	Error        string // a few words
	LatencyMS    int64
	ConnectionID string
	RequestID    string
}

// Record decides a transition: healthy or unknown -> degraded on a failure,
// degraded -> healthy on a success; anything else records nothing.
func (h *Health) Record(a Attempt, now time.Time) []event.Change {
	p := ProviderHealthV1{Provider: a.Provider, Error: a.Error, LatencyMS: max(a.LatencyMS, 0), ConnectionID: a.ConnectionID,
		RequestID: a.RequestID, At: now}
	switch {
	case !a.OK && h.Status != HealthDegraded:
		p.Status = HealthDegraded
		if p.Error == "" {
			p.Error = "provider error"
		}
		return []event.Change{event.New(ProviderDegraded, p)}
	case a.OK && h.Status == HealthDegraded:
		p.Status = HealthHealthy
		return []event.Change{event.New(ProviderRecovered, p)}
	}
	return nil
}

// Disagrees reports whether an attempt could move a stream in state: what a
// process checks against the last state it saw before it issues a command.
func Disagrees(state string, ok bool) bool {
	if ok {
		return state == HealthDegraded
	}
	return state != HealthDegraded
}
