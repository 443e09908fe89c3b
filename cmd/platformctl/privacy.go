package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/platform/backend/projections"
	identityview "github.com/platform/backend/projections/identity"
)

// privacyMaintenance runs the identity service's privacy maintenance once,
// straight on the database (like bootstrap), as of --now (default: now):
// tombstones older than 30 days and audit records older than 365 days are
// purged in batches of 100. platformd also runs it periodically, as leader.
func privacyMaintenance(args []string) error {
	fs := flag.NewFlagSet("privacy-maintenance", flag.ContinueOnError)
	nowFlag := fs.String("now", "", "RFC 3339 time to run as (default: the current time)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	now := time.Now().UTC()
	if *nowFlag != "" {
		t, err := time.Parse(time.RFC3339, *nowFlag)
		if err != nil {
			return fmt.Errorf("--now: %w", err)
		}
		now = t
	}
	ctx := context.Background()
	h, pool, err := openIdentity(ctx)
	if err != nil {
		return err
	}
	defer pool.Close()
	h.SetDirectory(identityview.NewQueries(pool, projections.NewReader(pool, nil), h.Keys()))
	rep, err := h.PurgeExpired(ctx, now)
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(rep)
}
