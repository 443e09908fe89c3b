package socialfake

import (
	"strings"
	"sync"
	"time"
)

// Op is a kind of call a fault can be scripted for.
type Op string

const (
	// OpPost is the call that creates a post: X POST /2/tweets, LinkedIn
	// POST /rest/posts, Facebook POST /{page}/feed and /photos, Instagram
	// media_publish, TikTok publish init, Mastodon POST /api/v1/statuses.
	OpPost Op = "post"
	// OpMedia: media uploads and Instagram containers.
	OpMedia Op = "media"
	// OpStatus: processing polls (Instagram container, TikTok publish,
	// Mastodon media).
	OpStatus Op = "status"
	// OpLookup: reading our own recent posts.
	OpLookup Op = "lookup"
	// OpAccounts: who the token is, which pages it manages.
	OpAccounts Op = "accounts"
	// OpToken: the OAuth token endpoint (exchange and refresh).
	OpToken Op = "token"
)

// FaultKind is what a fake does instead of succeeding.
type FaultKind string

const (
	Succeed FaultKind = ""
	// RateLimit: 429 (or the network's rate code) with the network's reset
	// header; Fault.RetryAfter (default 1s).
	RateLimit FaultKind = "rate_limit"
	// ServerError: 500 in the network's error shape.
	ServerError FaultKind = "server_error"
	// TokenExpired: the network's expired-token answer, whatever the token.
	TokenExpired FaultKind = "token_expired"
	// Reject: the content is refused for good; Fault.Reason picks which
	// (duplicate, the default; too_long; media_invalid; blocked).
	Reject FaultKind = "reject"
	// AcceptThenTimeout (OpPost): the post is stored and counted, then the
	// fake answers nothing until the client gives up. Elsewhere it is Hang.
	AcceptThenTimeout FaultKind = "accept_then_timeout"
	// Hang: nothing is stored and nothing answered until the client gives
	// up.
	Hang FaultKind = "hang"
	// Malformed: 200 with a body that is not the network's JSON; nothing is
	// stored.
	Malformed FaultKind = "malformed"
	// GrantRevoked (OpToken): invalid_grant, as if the user removed the app.
	GrantRevoked FaultKind = "grant_revoked"
)

// Fault is one scripted answer.
type Fault struct {
	Kind       FaultKind
	Reason     string        // Reject: duplicate (default), too_long, media_invalid, blocked
	RetryAfter time.Duration // RateLimit: default 1s
}

// Wait is the rate-limit wait the fake announces.
func (f Fault) Wait() time.Duration {
	if f.RetryAfter <= 0 {
		return time.Second
	}
	return f.RetryAfter
}

// script decides each call's fault: first the op's queue, then the first
// When rule whose substring the call holds, then the op's standing fault.
type script struct {
	mu     sync.Mutex
	queue  map[Op][]Fault
	rules  []rule
	always map[Op]Fault
}

type rule struct {
	op       Op
	contains string
	fault    Fault
}

// Next makes the next n calls of op answer with f.
func (c *Core) Next(op Op, n int, f Fault) {
	c.script.mu.Lock()
	defer c.script.mu.Unlock()
	for range n {
		c.script.queue[op] = append(c.script.queue[op], f)
	}
}

// Then makes the next calls of op answer with these faults in order
// (Fault{} for a success between them).
func (c *Core) Then(op Op, faults ...Fault) {
	c.script.mu.Lock()
	defer c.script.mu.Unlock()
	c.script.queue[op] = append(c.script.queue[op], faults...)
}

// When makes every call of op whose body or query holds contains answer
// with f (until ResetFaults): a sandbox or a concurrent test can mark the
// posts that fail.
func (c *Core) When(op Op, contains string, f Fault) {
	c.script.mu.Lock()
	defer c.script.mu.Unlock()
	c.script.rules = append(c.script.rules, rule{op: op, contains: contains, fault: f})
}

// Always sets the standing answer of op.
func (c *Core) Always(op Op, f Fault) {
	c.script.mu.Lock()
	defer c.script.mu.Unlock()
	c.script.always[op] = f
}

// ResetFaults forgets everything scripted.
func (c *Core) ResetFaults() {
	c.script.mu.Lock()
	defer c.script.mu.Unlock()
	c.script.queue, c.script.rules, c.script.always = map[Op][]Fault{}, nil, map[Op]Fault{}
}

func (s *script) take(op Op, call string) Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	if q := s.queue[op]; len(q) > 0 {
		s.queue[op] = q[1:]
		return q[0]
	}
	for _, r := range s.rules {
		if r.op == op && strings.Contains(call, r.contains) {
			return r.fault
		}
	}
	return s.always[op]
}
