package identity

import (
	"context"
	"sync"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// streamCache keeps write models decoded at a stream version, for
// validation. Streams only grow, so a model is current exactly while its
// stream's head has not moved: each call reads the heads of the streams it
// needs in one indexed query and decodes only what changed. A revocation,
// logout or role change moves a head, so the next call sees it, as before;
// what is saved is decoding (measured: validation cost as much CPU as the
// status command it guarded).
type streamCache struct {
	mu      sync.Mutex
	entries map[string]cacheEntry
}

type cacheEntry struct {
	version int64
	model   any
}

// streamCacheMax bounds memory: past it the cache starts over.
const streamCacheMax = 100_000

func (c *streamCache) get(id string, version int64) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[id]
	if !ok || version == 0 || e.version != version {
		return nil, false
	}
	return e.model, true
}

// peek returns a model at whatever version is cached: only for members that
// never change once written (a key's or a session's organization).
func (c *streamCache) peek(id string) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[id]
	return e.model, ok
}

func (c *streamCache) put(id string, version int64, model any) {
	if version == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) >= streamCacheMax {
		c.entries = make(map[string]cacheEntry)
	}
	c.entries[id] = cacheEntry{version: version, model: model}
}

// current returns the write model of a stream at the given head, decoded
// again only when the head moved. Models from here are shared: read only.
func current[M any](ctx context.Context, h *Handlers, id string, heads map[string]int64, load func([]event.Recorded) (M, error)) (M, error) {
	var zero M
	if m, ok := h.cache.get(id, heads[id]); ok {
		return m.(M), nil
	}
	history, err := h.store.Load(ctx, id)
	if err != nil {
		return zero, errs.Unavailable("identity store unavailable", err)
	}
	m, err := load(commands.Recorded(history))
	if err != nil {
		return zero, err
	}
	if len(history) > 0 {
		h.cache.put(id, history[len(history)-1].StreamVersion, m)
	}
	return m, nil
}

// heads reads the current versions of the streams a validation needs.
func (h *Handlers) heads(ctx context.Context, ids ...string) (map[string]int64, error) {
	heads, err := h.store.Heads(ctx, ids...)
	if err != nil {
		return nil, errs.Unavailable("identity store unavailable", err)
	}
	return heads, nil
}
