package bench

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/platform/backend/commands"
	pubcmd "github.com/platform/backend/commands/publishing"
	statuscmd "github.com/platform/backend/commands/status"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
)

// streamLengths are the stream lengths BenchmarkCommandByStreamLength
// times a command at.
var streamLengths = []int{3, 32, 96, 1000}

// streamLengthCommands is how many commands are timed at each length.
const streamLengthCommands = 200

// BenchmarkCommandByStreamLength times one command on a stream of 3, 32, 96
// and 1,000 events, for the aggregates whose streams grow: an incident
// update, a post edit (which also loads the post's brand) and a brand
// transfer. The commands run in-process, one at a time (no HTTP, no
// background workers: the platform serves nothing else), so the figures are
// the command's own: the stream's read from PostgreSQL, its decoding, the
// decision and the append. Each is the mean of 200 commands on a stream
// built to that length first (untimed). A command reads the stream's
// snapshot and the events after it, so its cost should not depend on the
// length (us/cmd flat across events=N; Go and PostgreSQL CPU per command
// are logged).
func BenchmarkCommandByStreamLength(b *testing.B) {
	h := startPlatform(b, true)
	ctx := context.Background()
	meta := commands.Meta{OrganizationID: h.OrgID, Actor: eventstore.Actor{ID: "bench", Type: "user"}}
	status := apptest.Provided[*statuscmd.Handlers](h)
	pub := apptest.Provided[*pubcmd.Handlers](h)
	otherOrg, _ := h.NewOrganization(b, "Bench other", "bench-other-"+fmt.Sprint(time.Now().UnixNano()), "status:read")
	pub.SetOrganizationAccess(func(context.Context, string, string) (bool, error) { return true, nil })
	db := h.App.Pool.Config().ConnConfig.Database

	type aggregate struct {
		name   string
		create func() (string, error)       // a new stream (its first event)
		step   func(id string, k int) error // one more event
	}
	brandOrg := map[string]string{} // where each brand is now
	var brandMu sync.Mutex
	aggregates := []aggregate{
		{"incident", func() (string, error) {
			r, err := status.CreateIncident(ctx, meta, statuscmd.CreateIncident{Title: "Elevated error rate",
				Message: "We are investigating.", Severity: "major"})
			return r.Value.IncidentID, err
		}, func(id string, k int) error {
			_, err := status.UpdateIncident(ctx, meta, statuscmd.UpdateIncident{IncidentID: id,
				Status: []string{"identified", "monitoring", "investigating"}[k%3], Message: fmt.Sprintf("Update %d: rolling out the fix.", k)})
			return err
		}},
		{"post", func() (string, error) {
			brand, err := pub.CreateBrand(ctx, meta, pubcmd.CreateBrand{Name: "Bench"})
			if err != nil {
				return "", err
			}
			r, err := pub.CreatePost(ctx, meta, pubcmd.CreatePost{BrandID: brand.Value.BrandID, Text: "Launch day",
				Targets: []pubcmd.TargetIn{{Network: "network_1"}}})
			return r.Value.PostID, err
		}, func(id string, k int) error {
			text := fmt.Sprintf("Launch day, take %d", k)
			_, err := pub.UpdatePost(ctx, meta, pubcmd.UpdatePost{PostID: id, Text: &text})
			return err
		}},
		{"brand", func() (string, error) {
			r, err := pub.CreateBrand(ctx, meta, pubcmd.CreateBrand{Name: "Bench"})
			brandMu.Lock()
			brandOrg[r.Value.BrandID] = h.OrgID
			brandMu.Unlock()
			return r.Value.BrandID, err
		}, func(id string, _ int) error {
			brandMu.Lock()
			from := brandOrg[id]
			brandMu.Unlock()
			to := otherOrg
			if from == otherOrg {
				to = h.OrgID
			}
			m := meta
			m.OrganizationID = from
			if _, err := pub.TransferBrand(ctx, m, pubcmd.TransferBrand{BrandID: id, OrganizationID: to}); err != nil {
				return err
			}
			brandMu.Lock()
			brandOrg[id] = to
			brandMu.Unlock()
			return nil
		}},
	}
	for _, a := range aggregates {
		// Every length's stream is built first, side by side (untimed).
		ids := make([]string, len(streamLengths))
		var wg sync.WaitGroup
		errc := make(chan error, len(streamLengths))
		for i, n := range streamLengths {
			wg.Go(func() {
				id, err := a.create()
				for k := 1; err == nil && k < n; k++ {
					err = a.step(id, k)
				}
				ids[i] = id
				errc <- err
			})
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			must(b, err)
		}
		for i, n := range streamLengths {
			b.Run(fmt.Sprintf("%s/events=%d", a.name, n), func(b *testing.B) {
				var per time.Duration
				var cpu cpuUse
				for range b.N {
					must(b, a.step(ids[i], 0)) // warm: the stream's head holds a snapshot now
					cpu0 := sampleCPU(db)
					start := time.Now()
					for k := range streamLengthCommands {
						must(b, a.step(ids[i], k))
					}
					per = time.Since(start) / streamLengthCommands
					cpu = cpu0.to(sampleCPU(db))
				}
				b.ReportMetric(float64(per.Microseconds()), "us/cmd")
				b.ReportMetric(cpu.self*1e6/streamLengthCommands, "go-us/cmd")
				b.ReportMetric(cpu.postgres*1e6/streamLengthCommands, "pg-us/cmd")
				b.Logf("%s on a stream of %d events: %d µs a command; %s", a.name, n, per.Microseconds(), cpu.perOp(streamLengthCommands, "command"))
			})
		}
	}
}
