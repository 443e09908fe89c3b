package app

import (
	"github.com/platform/backend/internal/leader"
	"github.com/platform/backend/internal/module"
)

// declareLocks checks every module's leader locks against each other and
// the platform's before anything starts (leader.Declare): a name or key
// taken twice fails the start, naming both owners.
func declareLocks(mods []module.Module) error {
	var all []leader.Declaration
	for _, m := range mods {
		for _, l := range m.Locks {
			all = append(all, leader.Declaration{Module: m.Name, Lock: l})
		}
	}
	return leader.Declare(all)
}
