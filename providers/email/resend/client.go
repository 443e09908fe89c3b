package resend

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/platform/backend/providers/delivery"
	"github.com/platform/backend/providers/email"
)

// Client sends through one Resend API key. Safe for concurrent use.
type Client struct {
	cfg Config
	ep  delivery.Endpoint
}

var _ email.Provider = (*Client)(nil)

// New builds a client from a configuration (defaults applied, then
// validated).
func New(cfg Config) (*Client, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Client{cfg: cfg, ep: delivery.Endpoint{Provider: Provider, Client: cfg.HTTPClient, Timeout: cfg.Timeout}}, nil
}

// Deliver sends one message; Resend answers 200 {id}.
func (c *Client) Deliver(ctx context.Context, m email.Outgoing) (delivery.Receipt, error) {
	if err := m.Validate(Provider); err != nil {
		return delivery.Receipt{}, err
	}
	h := http.Header{}
	h.Set("Authorization", "Bearer "+c.cfg.APIKey)
	if m.IdempotencyKey != "" {
		h.Set("Idempotency-Key", m.IdempotencyKey)
	}
	ans, err := c.ep.PostJSON(ctx, strings.TrimRight(c.cfg.BaseURL, "/")+"/emails", h, toWire(m))
	if err != nil {
		return delivery.Receipt{}, err
	}
	if ans.Status/100 != 2 {
		return delivery.Receipt{}, classify(ans, time.Now())
	}
	var resp sendResponse
	if err := json.Unmarshal(ans.Body, &resp); err != nil || resp.ID == "" {
		return delivery.Receipt{}, ans.Malformed(Provider)
	}
	return delivery.Receipt{Provider: Provider, MessageID: resp.ID, RequestID: ans.RequestID,
		Units: delivery.Units{Messages: m.Recipients()}}, nil
}
