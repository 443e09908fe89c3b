// Package leader runs work in exactly one process of a deployment: the one
// that holds a named PostgreSQL session advisory lock.
//
// Every lock name is in one registry, so that two jobs can never share a
// lock by accident: before the registry, the notification dispatcher and
// privacy maintenance used the same hand-picked number, the dispatcher held
// it for good, and scheduled maintenance never ran. The platform's own
// locks are declared here; a context's by its module (declared.go), and
// the app checks them all against each other at start.
package leader

import (
	"errors"
	"fmt"
	"hash/fnv"
	"sort"
	"sync"
)

// Namespace is the first key of every leader lock (PostgreSQL's two-key
// advisory lock form). Two-key locks live in a key space of their own, apart
// from the one-key locks the platform also takes (stream and idempotency
// locks hashed with hashtextextended, the migration lock 7_310_001), so a
// name's hash can never meet one of those.
const Namespace int32 = 7310

// The platform's leader locks (the contexts' are their modules'). A name is
// part of the deployment contract: renaming one (or changing the hash)
// gives old and new processes different locks during a rolling upgrade, so
// both would lead for a while.
var (
	Relay      = mustRegister("eventstore.relay")
	Dispatcher = mustRegister("notifications.dispatcher")
)

// Lock is a registered lock name and its advisory lock key. The zero Lock is
// not registered and Run refuses it.
type Lock struct {
	name string
	key  int32
}

func (l Lock) Name() string { return l.name }

// Key is the second key of the lock, beside Namespace (as pg_locks shows
// it: classid = Namespace, objid = Key, objsubid = 2).
func (l Lock) Key() int32 { return l.key }

func (l Lock) String() string { return fmt.Sprintf("%s (%d, %d)", l.name, Namespace, l.key) }

// KeyOf hashes a name to its lock key: FNV-1a, 31 bits, so the key is the
// same positive number in Go, in the lock call and in pg_locks (an oid column).
func KeyOf(name string) int32 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(name))
	return int32(h.Sum32() & 0x7fff_ffff)
}

// registry holds the names and keys taken so far.
type registry struct {
	mu     sync.Mutex
	byName map[string]Lock
	byKey  map[int32]string
}

func newRegistry() *registry {
	return &registry{byName: map[string]Lock{}, byKey: map[int32]string{}}
}

func (r *registry) add(name string) (Lock, error) {
	if name == "" {
		return Lock{}, errors.New("leader: a lock needs a name")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, taken := r.byName[name]; taken {
		return Lock{}, fmt.Errorf("leader: lock %q is registered twice", name)
	}
	key := KeyOf(name)
	if other, taken := r.byKey[key]; taken {
		return Lock{}, fmt.Errorf("leader: lock %q hashes to key %d, already taken by %q: pick another name", name, key, other)
	}
	l := Lock{name: name, key: key}
	r.byName[name] = l
	r.byKey[key] = name
	return l, nil
}

func (r *registry) registered(l Lock) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	got, ok := r.byName[l.name]
	return ok && got == l
}

func (r *registry) all() []Lock {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Lock, 0, len(r.byName))
	for _, l := range r.byName {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

var locks = newRegistry()

// Register adds a lock name to the registry; a name (or a key) that is taken
// already is an error, never a shared lock. Declare platform locks in the
// var block above, and a context's in its module (Named, Declare).
func Register(name string) (Lock, error) { return locks.add(name) }

// mustRegister stops the binary at initialisation when a declared name is
// taken: a duplicate is a programming error that must never reach a
// deployment (the same contract as promauto's metric registration).
func mustRegister(name string) Lock {
	l, err := locks.add(name)
	if err != nil {
		panic(err)
	}
	return l
}

// Registered lists every registered lock, by name.
func Registered() []Lock { return locks.all() }
