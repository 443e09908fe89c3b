package httpcall

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/platform/backend/domain/text"
	"github.com/platform/backend/providers/ai"
)

// DefaultTimeout bounds a call (or a stream's silences) when a Config sets none.
const DefaultTimeout = 60 * time.Second

// Connection is the part every adapter Config shares.
type Connection struct {
	BaseURL      string
	APIKey       string
	Timeout      time.Duration
	HTTPClient   *http.Client
	Capabilities ai.Capability
}

// transport is the adapters' shared connection pool. Go's default keeps 2
// idle connections per host: with more calls in flight to one provider,
// every call past the second closed its connection after the answer and the
// next one dialed (and shook hands with TLS) again. It keeps as many idle as
// calls are usually in flight.
var transport = func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns, t.MaxIdleConnsPerHost = 256, 64
	return t
}()

// WithDefaults fills the empty members.
func (c Connection) WithDefaults(baseURL string, all ai.Capability) Connection {
	if c.BaseURL == "" {
		c.BaseURL = baseURL
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.HTTPClient == nil {
		// No redirects: a provider API does not redirect, and Go forwards
		// custom key headers (x-api-key, x-goog-api-key) to wherever a
		// redirect points. A 3xx is reported as a provider fault.
		c.HTTPClient = &http.Client{Transport: transport, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if c.Capabilities == 0 {
		c.Capabilities = all
	}
	return c
}

// Validate checks a connection after WithDefaults: an absolute http(s) base
// URL without credentials in it, a key, a positive timeout, and capabilities
// the protocol has.
func (c Connection) Validate(protocol string, all ai.Capability) error {
	if _, problem := text.ParseURL(c.BaseURL, text.URLRules{NoQuery: true}); problem != "" {
		return fmt.Errorf("ai %s: base URL %s", protocol, problem)
	}
	if strings.TrimSpace(c.APIKey) == "" {
		return fmt.Errorf("ai %s: API key is required", protocol)
	}
	if c.Timeout < 0 {
		return fmt.Errorf("ai %s: timeout must not be negative", protocol)
	}
	if extra := c.Capabilities &^ all; extra != 0 {
		return fmt.Errorf("ai %s: the protocol cannot do %s", protocol, extra)
	}
	return nil
}

// Caller builds the caller of a validated connection.
func (c Connection) Caller(protocol string, requestIDHeaders []string, decode func(int, http.Header, []byte) Upstream) *Caller {
	return &Caller{Protocol: protocol, Client: c.HTTPClient, Timeout: c.Timeout,
		RequestIDHeaders: requestIDHeaders, DecodeError: decode}
}
