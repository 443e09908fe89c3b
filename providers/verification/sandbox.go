package verification

import (
	"context"
	"strings"
	"time"
)

// SandboxPass is the token prefix the sandbox verifier accepts: a token
// "pass:<cdata>" is verified (bound to <cdata>), anything else refused.
// Development and tests only: it proves nothing about a visitor.
const SandboxPass = "pass:"

// Sandbox is the clearly named local verifier.
type Sandbox struct{}

var _ Verifier = Sandbox{}

func (Sandbox) Kind() string    { return "sandbox" }
func (Sandbox) SiteKey() string { return "sandbox-site-key" }

func (Sandbox) Verify(_ context.Context, token, _, _ string) (Result, error) {
	cdata, ok := strings.CutPrefix(token, SandboxPass)
	if !ok {
		return Result{Codes: []string{"invalid-input-response"}}, nil
	}
	return Result{Success: true, Hostname: "localhost", CData: cdata, ChallengeAt: time.Now().UTC()}, nil
}
