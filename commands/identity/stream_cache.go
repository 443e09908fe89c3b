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
// needs (from the head watch's memory, or one indexed query) and decodes
// only what changed. A revocation, logout or role change moves a head, so
// the next call on this process sees it, and every process within the head
// watch's bound; what is saved is decoding (measured: validation cost as
// much CPU as the status command it guarded).
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
//
// Entries are keyed by stream type and id, and a stream of another type
// reads as missing: a token naming some other stream's id (a session id
// presented as a key) is an unknown credential, and cannot plant a model
// of the wrong type under a victim's id.
func current[M any](ctx context.Context, h *Handlers, streamType, id string, heads map[string]int64, load func([]event.Recorded) (M, error)) (M, error) {
	var zero M
	key := cacheKey(streamType, id)
	version, asked := heads[id]
	if !asked {
		// Every stream read is in heads, at the version its model is at
		// least at: an answer computed from heads is then current while they
		// stand (answerCache).
		if err := h.moreHeads(ctx, heads, id); err != nil {
			return zero, err
		}
		version, asked = heads[id], true
	}
	if m, ok := h.cache.get(key, version); ok {
		if typed, ok := m.(M); ok {
			return typed, nil
		}
	}
	if asked && version == 0 { // the heads say it is empty: nothing to read
		return load(nil)
	}
	history, err := h.store.Load(ctx, id)
	if err != nil {
		return zero, errs.Unavailable("identity store unavailable", err)
	}
	if len(history) > 0 && history[0].StreamType != streamType {
		return load(nil)
	}
	m, err := load(commands.Recorded(history))
	if err != nil {
		return zero, err
	}
	if len(history) > 0 {
		h.cache.put(key, history[len(history)-1].StreamVersion, m)
	}
	return m, nil
}

func cacheKey(streamType, id string) string { return streamType + "\x00" + id }

// peekAs returns a cached model of a stream type at whatever version is
// cached: only for members that never change once written.
func peekAs[M any](h *Handlers, streamType, id string) (M, bool) {
	m, ok := h.cache.peek(cacheKey(streamType, id))
	typed, isM := m.(M)
	return typed, ok && isM
}

// heads reads the current versions of the streams a validation needs; a
// stream asked for that does not exist is present with version 0.
func (h *Handlers) heads(ctx context.Context, ids ...string) (map[string]int64, error) {
	var r HeadReader = h.store
	if h.headReader != nil {
		r = h.headReader
	}
	heads, err := r.Heads(ctx, ids...)
	if err != nil {
		return nil, errs.Unavailable("identity store unavailable", err)
	}
	for _, id := range ids {
		if _, ok := heads[id]; !ok {
			heads[id] = 0
		}
	}
	return heads, nil
}

// moreHeads adds the heads of the ids not asked for yet (one more query,
// only when the cache could not name them up front).
func (h *Handlers) moreHeads(ctx context.Context, heads map[string]int64, ids ...string) error {
	var missing []string
	for _, id := range ids {
		if _, ok := heads[id]; !ok {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	more, err := h.heads(ctx, missing...)
	for id, v := range more {
		heads[id] = v
	}
	return err
}

// permissionMemo keeps evaluated permissions per organization, member and
// role at the catalog's and the access stream's versions: evaluation
// matches every catalog scope against every pattern, and the inputs change
// rarely. A moved head is a new key.
type permissionMemo struct {
	mu      sync.Mutex
	entries map[permissionKey][]string
}

type permissionKey struct {
	catalog, access int64
	org, user, role string
	service         string
	keyVersion      int64  // keys: the key stream's version (scopes, bindings)
	creator         string // keys: their creator chain's standing (creatorStanding)
}

func (m *permissionMemo) get(k permissionKey, eval func() []string) []string {
	m.mu.Lock()
	p, ok := m.entries[k]
	m.mu.Unlock()
	if ok {
		return p
	}
	p = eval()
	m.mu.Lock()
	if m.entries == nil || len(m.entries) >= streamCacheMax {
		m.entries = make(map[permissionKey][]string)
	}
	m.entries[k] = p
	m.mu.Unlock()
	return p
}
