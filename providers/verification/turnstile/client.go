// Package turnstile is a Turnstile-compatible verifier: the siteverify wire
// protocol (POST <base>/turnstile/v0/siteverify, form-encoded secret,
// response, remoteip and idempotency_key; a JSON verdict with success,
// challenge_ts, hostname, action, cdata and error-codes). Cloudflare's
// Turnstile speaks it (base https://challenges.cloudflare.com); fake/ is a
// local server that speaks it for tests.
package turnstile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/platform/backend/providers/verification"
)

// DefaultBaseURL is Cloudflare's.
const DefaultBaseURL = "https://challenges.cloudflare.com"

// SiteverifyPath is the verification endpoint under the base URL.
const SiteverifyPath = "/turnstile/v0/siteverify"

// Config is a site's keys and where the provider is.
type Config struct {
	BaseURL   string
	SiteKey   string
	SecretKey string
	// Hostnames, when set, are the sites' hostnames a verdict must name
	// (a token solved on another site is refused).
	Hostnames []string
	Timeout   time.Duration // one call (default 5s)
}

// Client verifies tokens with siteverify.
type Client struct {
	cfg  Config
	http *http.Client
}

var _ verification.Verifier = (*Client)(nil)

// New makes a client; the secret key is required.
func New(cfg Config, client *http.Client) (*Client, error) {
	if cfg.SecretKey == "" || cfg.SiteKey == "" {
		return nil, errors.New("turnstile: a site key and a secret key are required")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	if client == nil {
		client = &http.Client{}
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	return &Client{cfg: cfg, http: client}, nil
}

func (c *Client) Kind() string    { return "turnstile" }
func (c *Client) SiteKey() string { return c.cfg.SiteKey }

// answer is siteverify's verdict.
type answer struct {
	Success     bool     `json:"success"`
	ChallengeTS string   `json:"challenge_ts"`
	Hostname    string   `json:"hostname"`
	ErrorCodes  []string `json:"error-codes"`
	Action      string   `json:"action"`
	CData       string   `json:"cdata"`
}

// Verify asks siteverify about a token. A verdict (success or refusal) is a
// Result; no verdict (the provider down, an answer that does not decode,
// its internal-error) is an error.
func (c *Client) Verify(ctx context.Context, token, remoteIP, idempotencyKey string) (verification.Result, error) {
	if token == "" || len(token) > verification.MaxToken {
		return verification.Result{Codes: []string{"invalid-input-response"}}, nil
	}
	form := url.Values{"secret": {c.cfg.SecretKey}, "response": {token}}
	if remoteIP != "" {
		form.Set("remoteip", remoteIP)
	}
	if idempotencyKey != "" {
		form.Set("idempotency_key", idempotencyKey)
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.BaseURL+SiteverifyPath, strings.NewReader(form.Encode()))
	if err != nil {
		return verification.Result{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := c.http.Do(req)
	if err != nil {
		return verification.Result{}, fmt.Errorf("turnstile: siteverify unreachable")
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return verification.Result{}, fmt.Errorf("turnstile: siteverify answer cut")
	}
	var a answer
	if resp.StatusCode >= 500 || json.Unmarshal(body, &a) != nil {
		return verification.Result{}, fmt.Errorf("turnstile: siteverify answered %d without a verdict", resp.StatusCode)
	}
	for _, code := range a.ErrorCodes {
		if code == "internal-error" {
			return verification.Result{}, fmt.Errorf("turnstile: siteverify internal-error")
		}
		if code == "missing-input-secret" || code == "invalid-input-secret" {
			// Our configuration, not the visitor: an outage to them.
			return verification.Result{}, fmt.Errorf("turnstile: the secret key is refused (%s)", code)
		}
	}
	r := verification.Result{Success: a.Success, Hostname: a.Hostname, Action: a.Action, CData: a.CData, Codes: a.ErrorCodes}
	if r.Codes == nil {
		r.Codes = []string{}
	}
	if t, err := time.Parse(time.RFC3339Nano, a.ChallengeTS); err == nil {
		r.ChallengeAt = t
	}
	if r.Success && len(c.cfg.Hostnames) > 0 && !contains(c.cfg.Hostnames, r.Hostname) {
		r.Success, r.Codes = false, append(r.Codes, "hostname-mismatch")
	}
	return r, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
