package whatsapp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/platform/backend/providers/delivery"
	"github.com/platform/backend/providers/message"
	"github.com/platform/backend/providers/outcome"
)

// Client sends through one WhatsApp Business connection. Safe for
// concurrent use.
type Client struct {
	cfg Config
	ep  delivery.Endpoint
}

var _ message.Provider = (*Client)(nil)

// New builds a client from a configuration (defaults applied, then
// validated).
func New(cfg Config) (*Client, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Client{cfg: cfg, ep: delivery.Endpoint{Provider: Provider, Client: cfg.HTTPClient, Timeout: cfg.Timeout,
		RequestIDHeader: "X-Fb-Trace-Id"}}, nil
}

// Deliver sends one text or template message. The Graph API answers 200
// with the message's wamid id in messages[0].id.
func (c *Client) Deliver(ctx context.Context, m message.Outgoing) (delivery.Receipt, error) {
	if err := m.Validate(Provider); err != nil {
		return delivery.Receipt{}, err
	}
	from := m.PhoneNumberID
	if from == "" {
		from = c.cfg.PhoneNumberID
	}
	if !phoneNumberIDPattern.MatchString(from) {
		return delivery.Receipt{}, delivery.Fail(Provider, outcome.Invalid, "phone_number_id: digits required")
	}
	h := http.Header{}
	h.Set("Authorization", "Bearer "+c.cfg.AccessToken)
	endpoint := strings.TrimRight(c.cfg.BaseURL, "/") + "/" + c.cfg.Version + "/" + url.PathEscape(from) + "/messages"
	ans, err := c.ep.PostJSON(ctx, endpoint, h, toWire(m))
	if err != nil {
		return delivery.Receipt{}, err
	}
	if ans.Status/100 != 2 {
		return delivery.Receipt{}, classify(ans, time.Now())
	}
	var resp sendResponse
	if err := json.Unmarshal(ans.Body, &resp); err != nil || len(resp.Messages) == 0 || resp.Messages[0].ID == "" {
		return delivery.Receipt{}, ans.Malformed(Provider)
	}
	return delivery.Receipt{Provider: Provider, MessageID: resp.Messages[0].ID, RequestID: ans.RequestID,
		Units: delivery.Units{Messages: 1, Characters: m.Characters()}}, nil
}
