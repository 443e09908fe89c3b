package postmark

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/platform/backend/providers/delivery"
	"github.com/platform/backend/providers/email"
)

// Client sends through one Postmark server. Safe for concurrent use.
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

// Deliver sends one message. Postmark answers 200 with a MessageID, or an
// error code (mostly 422) that classify reads.
func (c *Client) Deliver(ctx context.Context, m email.Outgoing) (delivery.Receipt, error) {
	if err := m.Validate(Provider); err != nil {
		return delivery.Receipt{}, err
	}
	h := http.Header{}
	h.Set("X-Postmark-Server-Token", c.cfg.ServerToken)
	ans, err := c.ep.PostJSON(ctx, strings.TrimRight(c.cfg.BaseURL, "/")+"/email", h, toWire(m))
	if err != nil {
		return delivery.Receipt{}, err
	}
	var resp sendResponse
	decodeErr := json.Unmarshal(ans.Body, &resp)
	if ans.Status != http.StatusOK || resp.ErrorCode != 0 {
		return delivery.Receipt{}, classify(ans, resp, decodeErr == nil, time.Now())
	}
	if decodeErr != nil || resp.MessageID == "" {
		return delivery.Receipt{}, ans.Malformed(Provider)
	}
	return delivery.Receipt{Provider: Provider, MessageID: resp.MessageID, RequestID: ans.RequestID,
		Units: delivery.Units{Messages: m.Recipients()}}, nil
}
