package leader

import (
	"errors"
	"fmt"
	"sync"
)

// A context's locks are declared by its module (module.Module.Locks), not
// in locks.go: adding a context is its own files plus one line. The
// registry's guarantee stays: at start the app declares every module's
// locks at once (Declare), which refuses a name declared twice or a key
// another name has taken, among them and against the platform's own locks
// (locks.go), and Run takes only a lock registered or declared so.

// Named is the lock of a name, for a module to declare:
//
//	var PollerLock = leader.Named("status.poller")
//	... Module{Locks: []leader.Lock{statuscmd.PollerLock}}
//
// A name is part of the deployment contract like the platform's (locks.go).
func Named(name string) Lock { return Lock{name: name, key: KeyOf(name)} }

// Declaration is a lock and the module that declares it.
type Declaration struct {
	Module string
	Lock   Lock
}

// declared are the locks Declare has admitted (a process may start several
// platforms, tests do: each declares the same locks again).
var declared = struct {
	mu  sync.Mutex
	set map[Lock]bool
}{set: map[Lock]bool{}}

// Declare checks every module's locks together, before anything runs, and
// lets Run take them: a name declared twice (by two modules, or one and the
// platform) or two names of one key is an error naming both, never a
// shared lock.
func Declare(all []Declaration) error {
	owner := map[string]string{}
	byKey := map[int32]string{}
	for _, l := range locks.all() {
		owner[l.name], byKey[l.key] = "the platform (internal/leader/locks.go)", l.name
	}
	var problems []error
	for _, d := range all {
		l := d.Lock
		switch other, taken := owner[l.name]; {
		case l.name == "" || l.key != KeyOf(l.name):
			problems = append(problems, fmt.Errorf("leader: module %s declares a lock not made by leader.Named (%q)", d.Module, l.name))
		case taken:
			problems = append(problems, fmt.Errorf("leader: module %s declares lock %q, which %s declares too", d.Module, l.name, other))
		case byKey[l.key] != "":
			problems = append(problems, fmt.Errorf("leader: lock %q of module %s hashes to key %d, already taken by %q: pick another name",
				l.name, d.Module, l.key, byKey[l.key]))
		default:
			owner[l.name], byKey[l.key] = "module "+d.Module, l.name
		}
	}
	if len(problems) > 0 {
		return errors.Join(problems...)
	}
	declared.mu.Lock()
	defer declared.mu.Unlock()
	for _, d := range all {
		declared.set[d.Lock] = true
	}
	return nil
}

func isDeclared(l Lock) bool {
	declared.mu.Lock()
	defer declared.mu.Unlock()
	return declared.set[l]
}
