// Package verification is the human-verification challenge behind the
// public website assistant (seed 002: "human-verification session
// clearance"): a site renders the provider's widget with its site key, the
// visitor's browser gets a token, and the platform verifies the token on the
// server, never trusting the browser's word. Adapters: turnstile (the
// siteverify wire protocol; a fake server beside it) and Sandbox (a local
// fake for development and tests, clearly named).
package verification

import (
	"context"
	"time"
)

// MaxToken bounds a token (Turnstile's tokens are at most 2048 characters).
const MaxToken = 2048

// Verifier verifies a challenge's token on the server.
type Verifier interface {
	// Kind names the provider ("turnstile", "sandbox").
	Kind() string
	// SiteKey is the public key the site renders the widget with.
	SiteKey() string
	// Verify asks the provider about a token. idempotencyKey lets the call
	// be retried for one token (a token is valid once). An error is an
	// outage (the provider did not answer): the caller answers 503, never
	// "verified".
	Verify(ctx context.Context, token, remoteIP, idempotencyKey string) (Result, error)
}

// Result is the provider's verdict.
type Result struct {
	Success bool
	// Hostname and Action are where and for what the challenge was solved;
	// CData is what the site bound into it (the chat session's id).
	Hostname    string
	Action      string
	CData       string
	ChallengeAt time.Time
	// Codes are the provider's reasons for a refusal.
	Codes []string
}
