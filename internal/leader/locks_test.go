package leader

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// TestRegisteredLocksAreUnique: every platform lock has its own name and its
// own key, and the key is its name's hash.
func TestRegisteredLocksAreUnique(t *testing.T) {
	all := Registered()
	for _, want := range []Lock{Relay, Dispatcher} {
		found := false
		for _, l := range all {
			found = found || l == want
		}
		if !found {
			t.Errorf("%s is not in the registry", want)
		}
	}
	names, keys := map[string]bool{}, map[int32]string{}
	for _, l := range all {
		if names[l.Name()] {
			t.Errorf("name %q registered twice", l.Name())
		}
		names[l.Name()] = true
		if other, dup := keys[l.Key()]; dup {
			t.Errorf("%q and %q share key %d", l.Name(), other, l.Key())
		}
		keys[l.Key()] = l.Name()
		if l.Key() != KeyOf(l.Name()) || l.Key() < 0 {
			t.Errorf("%s: key is not the name's hash", l)
		}
	}
}

// TestKeysAreStable: a lock's key is part of the deployment contract (old
// and new processes of a rolling upgrade must take the same lock), so the
// keys of the platform's locks are pinned (the modules' are pinned in
// internal/modules).
func TestKeysAreStable(t *testing.T) {
	for l, want := range map[Lock]int32{Relay: 2040579459, Dispatcher: 1825329122} {
		if l.Key() != want {
			t.Errorf("%s: key %d, pinned %d", l.Name(), l.Key(), want)
		}
	}
}

// TestDuplicateRegistrationFails: a taken name is an error, never a
// shared lock.
func TestDuplicateRegistrationFails(t *testing.T) {
	if _, err := Register(Dispatcher.Name()); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("registering %q again: %v, want an error", Dispatcher.Name(), err)
	}
	if _, err := Register(""); err == nil {
		t.Fatal("an empty name was accepted")
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("mustRegister of a taken name did not stop initialisation")
			}
		}()
		mustRegister(Relay.Name())
	}()
}

// TestKeyCollisionFails: two names whose hashes collide cannot both be
// registered (31-bit keys collide after ~50k names; find a pair).
func TestKeyCollisionFails(t *testing.T) {
	seen := map[int32]string{}
	var a, b string
	for i := 0; a == ""; i++ {
		name := fmt.Sprintf("job.%d", i)
		if other, ok := seen[KeyOf(name)]; ok {
			a, b = other, name
		}
		seen[KeyOf(name)] = name
	}
	r := newRegistry()
	if _, err := r.add(a); err != nil {
		t.Fatal(err)
	}
	if _, err := r.add(b); err == nil || !strings.Contains(err.Error(), "already taken") {
		t.Fatalf("%q collides with %q: %v, want an error", b, a, err)
	}
}

// TestDeclareRefusesCollisions: the locks modules declare are checked
// together at start: a name two modules declare, a module's name the
// platform has, two names of one key, a lock not made by Named, each an
// error naming the owners; a refused set is not admitted (Run refuses its
// locks), an accepted one is, and declaring it again (a second platform in
// one process) is fine.
func TestDeclareRefusesCollisions(t *testing.T) {
	seen := map[int32]string{}
	var a, b string
	for i := 0; a == ""; i++ {
		name := fmt.Sprintf("module.job.%d", i)
		if other, ok := seen[KeyOf(name)]; ok {
			a, b = other, name
		}
		seen[KeyOf(name)] = name
	}
	poller := Named("things.poller")
	for want, decls := range map[string][]Declaration{
		"which module alpha declares too": {{"alpha", poller}, {"beta", poller}},
		"which the platform":              {{"alpha", Named(Relay.Name())}},
		"already taken by":                {{"alpha", Named(a)}, {"beta", Named(b)}},
		"not made by leader.Named":        {{"alpha", Lock{name: "rogue", key: 1}}},
	} {
		err := Declare(decls)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: %v, want an error with %q", decls, err, want)
		}
	}
	work := func(context.Context) error { return nil }
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := Run(context.Background(), nil, poller, Config{}, log, work); err == nil || !strings.Contains(err.Error(), "declared") {
		t.Fatalf("a lock of a refused declaration ran: %v", err)
	}
	ok := []Declaration{{"alpha", poller}, {"beta", Named("things.sweeper")}}
	if err := Declare(ok); err != nil {
		t.Fatal(err)
	}
	if err := Declare(ok); err != nil {
		t.Fatalf("the same locks declared again: %v", err)
	}
	if err := Run(context.Background(), nil, poller, Config{}, log, work); err == nil || strings.Contains(err.Error(), "declared") {
		t.Fatalf("a declared lock: %v, want only the missing pool refused", err)
	}
}

func TestRunRefusesUnregisteredLockAndBadConfig(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	work := func(context.Context) error { return nil }
	if err := Run(context.Background(), nil, Lock{name: "rogue", key: 1}, Config{}, log, work); err == nil {
		t.Fatal("an unregistered lock was accepted")
	}
	if err := Run(context.Background(), nil, Relay, Config{Retry: -time.Second}, log, work); err == nil {
		t.Fatal("a negative retry was accepted")
	}
	if err := (Config{}).WithDefaults().Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestBackoffDoublesUpToTheCeiling(t *testing.T) {
	cfg := Config{Backoff: 100 * time.Millisecond, MaxBackoff: time.Second}.WithDefaults()
	for n, want := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond, 10: time.Second} {
		for range 20 {
			if got := backoff(cfg, n); got < want/2 || got > want {
				t.Fatalf("backoff after %d errors: %s, want within [%s, %s]", n, got, want/2, want)
			}
		}
	}
}

func counterValue(t *testing.T, l Lock) float64 {
	t.Helper()
	var m dto.Metric
	if err := lost.WithLabelValues(l.Name()).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}
