package modules_test

import (
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/platform/backend/internal/leader"
	"github.com/platform/backend/internal/module"
	"github.com/platform/backend/internal/modules"
)

// TestModulesAreDistinctAndPublished: modules, their services (and job
// workers) and their default listeners are distinct (two services on one default port would
// fail platformd's start), each module passes its own Check, and every
// default port is in the range the compose file publishes, which names no
// service (a port outside it would be served but unreachable there).
func TestModulesAreDistinctAndPublished(t *testing.T) {
	compose, err := os.ReadFile("../../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`"(\d+)-(\d+):(\d+)-(\d+)"`).FindSubmatch(compose)
	if m == nil {
		t.Fatal("docker-compose.yml publishes no port range")
	}
	low, _ := strconv.Atoi(string(m[3]))
	high, _ := strconv.Atoi(string(m[4]))
	names, services, ports := map[string]bool{}, map[string]bool{}, map[string]string{}
	for _, mod := range modules.All() {
		if err := mod.Check(); err != nil {
			t.Error(err)
		}
		if names[mod.Name] {
			t.Errorf("module %s is listed twice", mod.Name)
		}
		names[mod.Name] = true
		var listeners [][2]string // name, default address
		if mod.Service != nil {
			listeners = append(listeners, [2]string{mod.Service.Name, mod.Service.DefaultAddr})
		}
		if mod.Jobs != nil {
			listeners = append(listeners, [2]string{module.JobsService(mod.Name), mod.Jobs.DefaultAddr})
		}
		for _, l := range listeners {
			name, addr := l[0], l[1]
			if services[name] {
				t.Errorf("module %s: service name %s is taken", mod.Name, name)
			}
			services[name] = true
			_, port, err := net.SplitHostPort(addr)
			if err != nil {
				t.Errorf("module %s: default address %q: %v", mod.Name, addr, err)
				continue
			}
			if other, ok := ports[port]; ok {
				t.Errorf("module %s: default port %s is %s's", mod.Name, port, other)
			}
			ports[port] = name
			if n, _ := strconv.Atoi(port); n < low || n > high {
				t.Errorf("module %s: default port %s is outside the compose file's published range %d-%d", mod.Name, port, low, high)
			}
		}
	}
}

// TestModuleLocksAreStable: a lock's name and key are part of the deployment
// contract (old and new processes of a rolling upgrade must take the same
// lock), so the modules' locks are pinned like the platform's
// (internal/leader); a new lock needs no entry, a renamed one fails here.
// And the modules' locks pass the start's check together.
func TestModuleLocksAreStable(t *testing.T) {
	pinned := map[string]int32{"status.poller": 1380907973, "identity.privacy_maintenance": 248440501,
		"gateway.reservation_sweeper": 1452595817, "gateway.credential_canary": 252436649,
		"publishing.token_refresher": 940099688} // publishing.reconciler (1501445452) is retired: jobs need no leader
	declared := map[string]int32{}
	var all []leader.Declaration
	for _, m := range modules.All() {
		for _, l := range m.Locks {
			declared[l.Name()] = l.Key()
			all = append(all, leader.Declaration{Module: m.Name, Lock: l})
		}
	}
	for name, key := range pinned {
		if got, ok := declared[name]; !ok || got != key {
			t.Errorf("lock %q: declared %v with key %d, pinned %d: a deployed lock was renamed or rehashed", name, ok, got, key)
		}
	}
	if err := leader.Declare(all); err != nil {
		t.Fatal(err)
	}
}

// TestTestEnvIsTheModulesOwn: a module's test settings are variables of its
// own section (STATUS_ of status), which apptest reads into that section
// only and the e2e harness keeps apart from the developer's environment.
func TestTestEnvIsTheModulesOwn(t *testing.T) {
	for _, m := range modules.All() {
		for k := range m.TestEnv {
			if !strings.HasPrefix(k, module.EnvPrefix(m)) || m.NewConfig == nil {
				t.Errorf("module %s: test setting %s is not a variable of its section (%s...)", m.Name, k, module.EnvPrefix(m))
			}
		}
	}
}
