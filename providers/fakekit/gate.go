package fakekit

import (
	"context"
	"sync"
	"sync/atomic"
)

// Gate holds what waits at it (a call under Hold, a stream's next delta)
// until the test lets it through, so a test can act while a call is
// provably in flight. Safe for concurrent use.
type Gate struct {
	tokens    chan struct{}
	open      chan struct{}
	entered   chan struct{}
	openOnce  sync.Once
	enterOnce sync.Once
	passed    atomic.Int64
}

// NewGate makes a closed gate.
func NewGate() *Gate {
	return &Gate{tokens: make(chan struct{}, 1<<12), open: make(chan struct{}), entered: make(chan struct{})}
}

// Entered is closed once something waits at the gate.
func (g *Gate) Entered() <-chan struct{} { return g.entered }

// Release lets one waiter through (the next one, when none waits yet).
func (g *Gate) Release() {
	select {
	case g.tokens <- struct{}{}:
	default:
	}
}

// Open lets every waiter through, from now on.
func (g *Gate) Open() { g.openOnce.Do(func() { close(g.open) }) }

// Passed counts what went through the gate (Wait and Pass), each counted
// as it goes, before it does what it waited to do.
func (g *Gate) Passed() int { return int(g.passed.Load()) }

// Pass counts one that needs no wait (a stream's first delta).
func (g *Gate) Pass() { g.passed.Add(1) }

// Wait blocks until the gate lets the caller through (true) or ctx ends
// (false).
func (g *Gate) Wait(ctx context.Context) bool {
	g.enterOnce.Do(func() { close(g.entered) })
	select {
	case <-g.tokens:
	case <-g.open:
	case <-ctx.Done():
		return false
	}
	g.passed.Add(1)
	return true
}
