package identity

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"sync"
	"time"

	domain "github.com/platform/backend/domain/identity"
)

// answerCache keeps each credential's last accepted validation with the
// version of every stream it read (the key or session, its organization,
// user, creator chain, access stream and catalog: all of them, since
// current asks the head of any stream before reading it). An answer is a
// function of the secret, those streams and the time, so while the same
// secret is presented, every one of those heads stands, and the session's
// access has not expired, the answer is the same: a call then reads the
// heads (from the head watch's memory) and skips the decoding, the
// permission evaluation and the principal's assembly. A revocation, logout,
// role or bundle change moves a head, so the next call on this process
// recomputes, and every other process within the head watch's bound,
// exactly as without this cache. Refusals are never kept.
type answerCache struct {
	mu      sync.RWMutex
	entries map[answerKey]*answer
}

// answerKey is a credential: a key's or a session's id.
type answerKey struct{ streamType, id string }

type answer struct {
	secret    [sha256.Size]byte // the accepted secret's hash
	ids       []string
	versions  []int64   // the heads of ids the answer was computed at
	until     time.Time // the answer holds only before (a session's access expiry); zero: no time bound
	principal domain.Principal
}

// lookup answers a credential (its cache key and secret) from the cache
// when the same secret was accepted at the heads that are current now.
// A store that cannot answer the heads fails closed, as validation does.
func (c *answerCache) lookup(ctx context.Context, h *Handlers, key answerKey, secret string) (domain.Principal, bool, error) {
	c.mu.RLock()
	a := c.entries[key]
	c.mu.RUnlock()
	if a == nil {
		return domain.Principal{}, false, nil
	}
	sum := sha256.Sum256([]byte(secret))
	if subtle.ConstantTimeCompare(sum[:], a.secret[:]) != 1 || (!a.until.IsZero() && !h.now().Before(a.until)) {
		return domain.Principal{}, false, nil
	}
	heads, err := h.heads(ctx, a.ids...)
	if err != nil {
		return domain.Principal{}, false, err
	}
	for i, id := range a.ids {
		if heads[id] != a.versions[i] {
			return domain.Principal{}, false, nil
		}
	}
	return a.principal, true, nil
}

// put keeps an accepted answer computed at heads (every stream it read).
func (c *answerCache) put(key answerKey, secret string, heads map[string]int64, until time.Time, p domain.Principal) {
	a := &answer{secret: sha256.Sum256([]byte(secret)), ids: make([]string, 0, len(heads)),
		versions: make([]int64, 0, len(heads)), until: until, principal: p}
	for id, v := range heads {
		a.ids = append(a.ids, id)
		a.versions = append(a.versions, v)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) >= streamCacheMax {
		c.entries = make(map[answerKey]*answer)
	}
	c.entries[key] = a
}
