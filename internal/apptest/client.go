package apptest

import (
	"net/http"
	"sync"
	"testing"
	"time"
)

// Client calls a service with one credential and reads its own writes: a
// read first waits until each service's read model applied every command
// the harness's clients sent before it. The machine is loaded, so a
// command's own bounded wait may pass before the read model applied it; the
// positions are the harness's (not a client's) because a test reads as one
// client what another wrote.
type Client struct {
	t       testing.TB
	h       *Harness
	service string
	token   string
}

// NewClient is a client of a service with token ("" the harness key).
func (h *Harness) NewClient(t testing.TB, service, token string) *Client {
	return &Client{t: t, h: h, service: service, token: token}
}

// On is the same credential calling another service; its commands are
// waited for by the reads of every client of the harness.
func (c *Client) On(service string) *Client {
	return &Client{t: c.t, h: c.h, service: service, token: c.token}
}

// pending are the positions of the commands a harness's clients sent that
// no read has waited for yet, by service.
type pending struct {
	mu        sync.Mutex
	positions map[string][]string
}

// Do sends a request (body nil for none) and checks the status; a read
// waits for the commands before it.
func (c *Client) Do(method, path string, body any, want int, headers ...string) Response {
	c.t.Helper()
	if method == http.MethodGet {
		c.h.Settle(c.t)
	}
	res := c.h.Do(c.t, c.service, method, path, c.token, body, headers...)
	Must(c.t, res, want, method+" "+path)
	if pos := res.Header.Get("X-Platform-Position"); pos != "" && method != http.MethodGet {
		c.h.pending.mu.Lock()
		if c.h.pending.positions == nil {
			c.h.pending.positions = map[string][]string{}
		}
		c.h.pending.positions[c.service] = append(c.h.pending.positions[c.service], pos)
		c.h.pending.mu.Unlock()
	}
	return res
}

// JSON sends a request, checks the status and decodes the answer into v
// (nil: not decoded).
func (c *Client) JSON(method, path string, body any, want int, v any, headers ...string) {
	c.t.Helper()
	res := c.Do(method, path, body, want, headers...)
	if v != nil {
		res.JSON(c.t, v)
	}
}

// Problem sends a request and checks the problem answer (ExpectProblem); a
// read waits for the commands before it.
func (c *Client) Problem(method, path string, body any, status int, code string, headers ...string) Problem {
	c.t.Helper()
	if method == http.MethodGet {
		c.h.Settle(c.t)
	}
	return ExpectProblem(c.t, c.h.Do(c.t, c.service, method, path, c.token, body, headers...), status, code)
}

// Settle waits until the read models applied every command the harness's
// clients sent so far: each service's widget route (every module declares
// one) waits for a position like any read.
func (h *Harness) Settle(t testing.TB) {
	t.Helper()
	h.pending.mu.Lock()
	list := h.pending.positions
	h.pending.positions = nil
	h.pending.mu.Unlock()
	for svc, positions := range list {
		for _, pos := range positions {
			Eventually(t, 30*time.Second, svc+"'s read model at "+pos, func() bool {
				return h.Do(t, svc, http.MethodGet, "/api/widget", h.APIKey, nil, "X-Platform-Min-Position", pos).Status == http.StatusOK
			})
		}
	}
}
