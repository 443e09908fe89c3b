// Command platformctl is the operators' and API clients' command line
// (`platformctl help` lists the commands).
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
)

// usage is what `platformctl help` prints: the commands, and where their
// URLs and credential come from.
const usage = `platformctl: the platform's command line.

Usage: platformctl <command> [arguments]

Commands (over HTTP, as the holder of PLATFORM_API_KEY):
  actions list                          every action of every service
  actions get NAME                      one action's descriptor
  actions validate NAME JSON            check an input against the action's schema, locally
  actions plan NAME JSON                the HTTP request a call would send
  actions call NAME JSON [--confirm]    call it (state-changing actions need --confirm)
  history [--stream ID] [--type T] [--since RFC3339] [--until RFC3339] [--limit N] [--all] [--json]
                                        the audit view: a table for people, --json for scripts
  replay PROJECTION                     rebuild a read model from offset zero; switch when caught up

Commands (local, nothing called):
  services [--json]                     the services, their base URLs and what they serve

Commands (straight on the database, DATABASE_URL):
  bootstrap [--org-name N] [--slug S] [--email E] [--password P] [--administration=false] [--scopes a:b,...]
                                        an organization, its owner and an API key; by default the
                                        platform administration organization and an operator key
  key --org ID --user ID [--administration=false] [--scopes a:b,...] [--name N]
                                        another API key of an existing organization, as its user
  scopes [--administration=false]       the scopes a new key gets by default, comma-separated
  privacy-maintenance [--now RFC3339]   purge expired tombstones and audit records now

  help                                  this text; "platformctl <command> -h" shows a command's flags

Environment:
  PLATFORM_API_KEY           the credential of HTTP commands ("make run" prints an operator and a tenant key)
  PLATFORM_<SERVICE>_URL     a service's base URL (default http://<PLATFORM_<SERVICE>_ADDR or the platformd default>)
  DATABASE_URL               the database of bootstrap and privacy-maintenance
  PLATFORM_TOPIC_PREFIX      the deployment's topic prefix, for the database commands
`

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "platformctl:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	err := command(args)
	if errors.Is(err, flag.ErrHelp) {
		return nil // a command's -h: the flag set printed its flags
	}
	return err
}

func command(args []string) error {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return errors.New("a command is required")
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(os.Stdout, usage)
		return nil
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
	case "services":
		return services(args[1:])
	case "key":
		return key(args[1:])
	case "scopes":
		return scopes(args[1:])
	}
	return fmt.Errorf("unknown command %q (platformctl help lists the commands)", args[0])
}
