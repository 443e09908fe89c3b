package e2e

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/platform/backend/providers/social/socialfake"
	xfake "github.com/platform/backend/providers/social/x/fake"
)

// publishingClient is a platformd whose network_1 is a fake X the test
// owns (it survives restarts and counts what it receives), with a brand
// connected to it through the fake's OAuth server.
type publishingClient struct {
	t       *testing.T
	s       *Stack
	srv     *Server
	x       *xfake.Fake
	env     []string // the server's extra environment (the fake network's)
	brandID string
}

func startPublishing(t *testing.T, env ...string) *publishingClient {
	return startPublishingWith(t, nil, env...)
}

// startPublishingWith starts a platformd serving services (nil: every
// service and job worker).
func startPublishingWith(t *testing.T, services []string, env ...string) *publishingClient {
	t.Helper()
	s := NewStack(t)
	x := xfake.Start(socialfake.Options{Consent: socialfake.ConsentApprove})
	t.Cleanup(x.Close)
	env = append([]string{"PUBLISHING_NETWORK_1_BASE_URL=" + x.URL(), "PUBLISHING_NETWORK_1_CLIENT_ID=" + x.ClientID(),
		"PUBLISHING_NETWORK_1_CLIENT_SECRET=" + x.ClientSecret(), "TIMERS_POLL_INTERVAL=100ms"}, env...)
	c := &publishingClient{t: t, s: s, srv: s.StartServer(ServerOptions{Services: services, Env: env}), x: x, env: env}
	var brand struct {
		ID string `json:"id"`
	}
	c.call(http.MethodPost, "/api/brands", map[string]any{"name": "Acme"}, http.StatusCreated, &brand)
	c.brandID = brand.ID
	var started struct {
		AuthorizationURL string `json:"authorization_url"`
	}
	c.call(http.MethodPost, "/api/integrations/network_1/connect", map[string]any{"brandId": brand.ID}, http.StatusOK, &started)
	resp, err := http.Get(started.AuthorizationURL) // the fake approves and redirects to platformd's callback
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("connect callback: %v %v", resp, err)
	}
	resp.Body.Close()
	return c
}

// call sends a request with the stack's key and decodes the answer.
func (c *publishingClient) call(method, path string, body any, want int, out any, headers ...string) {
	c.t.Helper()
	h := map[string]string{}
	for i := 0; i+1 < len(headers); i += 2 {
		h[headers[i]] = headers[i+1]
	}
	res := do(c.t, Req{Method: method, URL: c.srv.URL("publishing") + path, Key: c.s.APIKey, Body: body, Headers: h})
	if res.Status != want {
		c.t.Fatalf("%s %s: %s, want %d", method, path, res, want)
	}
	if out != nil {
		if err := json.Unmarshal(res.Body, out); err != nil {
			c.t.Fatal(err)
		}
	}
}
