package fakekit

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"
)

// Protocol says faults the way one provider does.
type Protocol interface {
	// Say answers the call with f in the provider's shapes (its status,
	// headers and error body) and reports true, or reports false for a
	// fault the fake plays on its answer instead (Malformed, Cut,
	// AcceptThenTimeout, a family's stream kinds). op is the call's
	// operation (Begin's).
	Say(w http.ResponseWriter, r *http.Request, op string, f Fault) bool
}

// Options shape a kit.
type Options struct {
	// Protocol says the faults Begin does not play itself; nil says none
	// (for a fake that plays its faults on its own, with Take).
	Protocol Protocol
	// Now is the fake's clock (records, and the fake's own use); default
	// time.Now.
	Now func() time.Time
}

// Kit is one fake's shared state: its script, its record, its sequences
// and its server. The embedded Script holds the faults of any call; On
// names the faults of one operation. Safe for concurrent use.
type Kit struct {
	Script

	proto   Protocol
	now     func() time.Time
	closing context.Context
	close   context.CancelFunc
	server  *httptest.Server

	mu    sync.Mutex
	ops   map[string]*Script
	log   []*Request
	calls int
	seq   map[string]int
}

// New makes a kit.
func New(opts Options) *Kit {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Kit{proto: opts.Protocol, now: opts.Now, closing: ctx, close: cancel,
		ops: map[string]*Script{}, seq: map[string]int{}}
}

// Now is the fake's clock.
func (k *Kit) Now() time.Time { return k.now() }

// On is the script of one operation's calls (a fake's Begin and Take name
// the operation): its queue and rules come before those of any call.
func (k *Kit) On(op string) *Script {
	k.mu.Lock()
	defer k.mu.Unlock()
	s, ok := k.ops[op]
	if !ok {
		s = &Script{}
		k.ops[op] = s
	}
	return s
}

// Reset forgets every fault scripted, for any call and every operation.
func (k *Kit) Reset() {
	k.Script.Reset()
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, s := range k.ops {
		s.Reset()
	}
}

// Take decides a call's fault, consuming a queued one: the operation's
// queue, then any call's; the operation's rules, then any call's; the
// operation's standing fault when set, else any call's. A rule matches one
// of subjects, or, when none is given, the request's body and query
// ("body?query").
func (k *Kit) Take(r *http.Request, op string, subjects ...string) Fault {
	own := k.On(op)
	if f, ok := own.queued(); ok {
		return f
	}
	if f, ok := k.queued(); ok {
		return f
	}
	if len(subjects) == 0 {
		subjects = []string{string(k.body(r)) + "?" + r.URL.RawQuery}
	}
	if f, ok := own.matched(subjects); ok {
		return f
	}
	if f, ok := k.matched(subjects); ok {
		return f
	}
	if f := own.standing(); f.Kind != Succeed {
		return f
	}
	return k.standing()
}

// Seq is the next number of a named sequence (1, 2, 3 ...) that a fake
// formats into its deterministic ids.
func (k *Kit) Seq(name string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.seq[name]++
	return k.seq[name]
}

// Serve serves h on 127.0.0.1 (recording every call, see Handler) until
// Close, and answers its base URL.
func (k *Kit) Serve(h http.Handler) string {
	srv := httptest.NewServer(k.Handler(h))
	k.mu.Lock()
	k.server = srv
	k.mu.Unlock()
	return srv.URL
}

// URL is the base URL Serve answered ("" when the fake is mounted
// elsewhere).
func (k *Kit) URL() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.server == nil {
		return ""
	}
	return k.server.URL
}

// Close ends the calls that wait (hangs, holds, gates) first, then stops
// the server.
func (k *Kit) Close() {
	k.close()
	k.mu.Lock()
	srv := k.server
	k.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
}
