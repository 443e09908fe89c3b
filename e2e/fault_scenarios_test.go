package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/projections"
)

// TestFaults runs each fault scenario under load and prints the suite's
// table; every scenario fails on its own when anything was lost, doubled or
// reordered.
func TestFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("the fault suite takes minutes")
	}
	var table []string
	record := func(r faultResult) {
		table = append(table, r.String())
		t.Logf("%s: %d commands acknowledged", r.scenario, r.commands)
	}
	t.Cleanup(func() {
		t.Logf("fault suite:\n%s%s", faultTableHeader, strings.Join(table, "\n"))
	})

	t.Run("broker restarts under load", func(t *testing.T) {
		infra := faultStack(t)
		record(scenario(t, "broker stop/start x2", 0, func(t *testing.T, s *Stack, srv *Server) {
			for range 2 {
				down := infra.StopKafka(t)
				time.Sleep(3 * time.Second)
				up := infra.StartKafka(t)
				t.Logf("broker: stop took %s, start %s", down.Round(time.Millisecond), up.Round(time.Millisecond))
				time.Sleep(2 * time.Second)
			}
		}))
	})

	t.Run("database restarts under load and during a rebuild", func(t *testing.T) {
		infra := faultStack(t)
		record(scenario(t, "postgres stop/start x2 (one mid-rebuild)", 0, func(t *testing.T, s *Stack, srv *Server) {
			infra.StopPostgres(t)
			time.Sleep(1500 * time.Millisecond)
			infra.StartPostgres(t)
			time.Sleep(2 * time.Second)
			for _, name := range []string{"status", "history"} {
				if _, err := projections.RequestRebuild(context.Background(), s.Pool(), name); err != nil {
					t.Fatalf("rebuild %s: %v", name, err)
				}
			}
			time.Sleep(300 * time.Millisecond)
			infra.StopPostgres(t)
			time.Sleep(1500 * time.Millisecond)
			infra.StartPostgres(t)
		}))
	})

	t.Run("platformd kill -9 under load", func(t *testing.T) {
		record(scenario(t, "platformd kill -9 + restart", 0, func(t *testing.T, s *Stack, srv *Server) {
			time.Sleep(time.Second)
			srv.Kill9()
			time.Sleep(500 * time.Millisecond)
			srv.Start()
		}))
	})

	t.Run("gateway retries under a database stop", func(t *testing.T) {
		gatewayRetriesUnderDatabaseStop(t)
	})

	t.Run("gateway settles held through a database stop outlive kill -9", func(t *testing.T) {
		gatewaySettlesOutliveKill9(t)
	})

	t.Run("clients that give up at once and retry with the same key", func(t *testing.T) {
		record(scenario(t, "first attempt times out after 5 ms, retried with its key", 5*time.Millisecond, func(t *testing.T, s *Stack, srv *Server) {
			time.Sleep(4 * time.Second)
		}))
	})
}
