package gateway

// Client is the gateway as a library: the metered operations other
// contexts (publishing, studio, design, agent) call in-process, the same
// methods the gateway's HTTP routes call. Every method goes through
// Handlers.Metered. The module provides it (module.Provide); a context in
// another process calls the HTTP routes with a service token instead.
type Client struct {
	h *Handlers
	// areas of the client hold their providers (client_ai.go: AI
	// connections; email, messages and payments add theirs).
	ai AIConnections
	// edge sends email and instant messages and invokes payments
	// (client_edge.go).
	edge *Edge
	// answers keep the answers of keyed calls (keyed.go).
	answers *Answers
}

// NewClient makes the client over the handlers and the AI connections.
func NewClient(h *Handlers, ai AIConnections) *Client { return &Client{h: h, ai: ai} }

// Handlers are the client's commands (the metered path).
func (c *Client) Handlers() *Handlers { return c.h }
