// Command platformctl is the operators' and API clients' command line:
//
//	platformctl bootstrap --org-name N --slug S --email E [--scopes a:b,...]   (database: first org, user, key)
//	platformctl actions list|get NAME|validate NAME JSON|plan NAME JSON|call NAME JSON [--confirm]
//	platformctl history [--stream ID] [--type T] [--since RFC3339] [--limit N]
//	platformctl replay PROJECTION
//	platformctl privacy-maintenance [--now RFC3339]                           (database: purge expired tombstones and audit records)
//
// Service URLs come from PLATFORM_<SERVICE>_URL (default the platformd
// listeners), the credential from PLATFORM_API_KEY.
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "platformctl:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: platformctl bootstrap|actions|history|replay|privacy-maintenance ... (see the package comment)")
	}
	switch args[0] {
	case "bootstrap":
		return bootstrap(args[1:])
	case "actions":
		return actions(args[1:])
	case "history":
		return historyCmd(args[1:])
	case "replay":
		return replay(args[1:])
	case "privacy-maintenance":
		return privacyMaintenance(args[1:])
	}
	return fmt.Errorf("unknown command %q", args[0])
}
