package app

import (
	"strings"
	"testing"

	"github.com/platform/backend/internal/leader"
	"github.com/platform/backend/internal/module"
)

// TestTheStartRefusesALockTwoModulesDeclare: two modules declaring one lock
// name (each would think it runs alone) stop the start, naming both, as
// the registry stopped two platform loops sharing a number.
func TestTheStartRefusesALockTwoModulesDeclare(t *testing.T) {
	shared := leader.Named("things.poller")
	err := declareLocks([]module.Module{{Name: "alpha", Locks: []leader.Lock{shared}}, {Name: "beta", Locks: []leader.Lock{shared}}})
	if err == nil || !strings.Contains(err.Error(), "module beta declares lock \"things.poller\", which module alpha declares too") {
		t.Fatalf("%v", err)
	}
	if err := declareLocks(Modules()); err != nil {
		t.Fatalf("the platform's modules: %v", err)
	}
}
