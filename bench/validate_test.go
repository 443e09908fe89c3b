package bench

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/testenv"
)

const (
	validateRequests = 20_000 // per credential kind
	validateClients  = 16
)

// BenchmarkValidate times the identity service's /validate over HTTP, as
// every backend calls it on every request, for an API key and for a
// session access token, with the whole platform running. Each call reads
// the current heads of the credential's streams (so a revocation, a logout
// or a role change applies to the next call) and decodes only streams that
// moved. The load comes from wireClient (a lean HTTP/1.1 client, as the
// ceiling's pgx is a lean PostgreSQL one), then again from net/http's
// client for comparison.
//
// The ceiling, measured in the same benchmark, is PostgreSQL answering the
// same number of single-row primary-key lookups (on es_streams) from the
// same number of clients over pgx: validation cannot beat one round trip to
// the database.
func BenchmarkValidate(b *testing.B) {
	h := startPlatform(b, false)
	ctx := context.Background()
	key, err := h.Identity().CreateAPIKey(ctx, commands.Meta{OrganizationID: h.OrgID, Actor: eventstore.Actor{ID: "bench", Type: "system"}},
		identitycmd.CreateAPIKey{Name: "bench", Scopes: []string{"status:read"}})
	if err != nil {
		b.Fatal(err)
	}
	reg, err := h.Identity().Register(ctx, commands.Meta{Actor: eventstore.Actor{ID: "bench", Type: "anonymous"}}, identitycmd.Register{
		Email: testenv.UniqueName("bench") + "@example.com", Password: "correct horse battery staple",
		OrganizationName: "Bench", OrganizationSlug: "bench-" + strings.ToLower(uuid.NewString()[:8]), CreateOrganization: true})
	if err != nil {
		b.Fatal(err)
	}
	db := h.App.Pool.Config().ConnConfig.Database
	var raw, apiKey, session, netKey, netSession loadResult
	var rawCPU, keyCPU, sessionCPU, netKeyCPU, netSessionCPU cpuUse
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		for _, run := range []struct {
			token string
			wire  bool // the load generator: wireClient (the bar's) or net/http's client (for comparison)
			out   *loadResult
			cpu   *cpuUse
		}{{key.Value.Token, true, &apiKey, &keyCPU}, {reg.Session.AccessToken, true, &session, &sessionCPU},
			{key.Value.Token, false, &netKey, &netKeyCPU}, {reg.Session.AccessToken, false, &netSession, &netSessionCPU}} {
			var client loadClient
			var closeClient func()
			if run.wire {
				wc, err := newWireClient(h.URLs["identity"], run.token, 2*validateClients)
				if err != nil {
					b.Fatal(err)
				}
				client, closeClient = wc, wc.close
			} else {
				hc := &httpClient{c: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
					MaxIdleConns: 2 * validateClients, MaxIdleConnsPerHost: 2 * validateClients}}, base: h.URLs["identity"], token: run.token}
				client, closeClient = hc, hc.c.CloseIdleConnections
			}
			closedLoop(b, validateClients, 2*validateClients, func(int) error { // warm-up: connections, caches
				_, err := client.do(http.MethodGet, "/validate", nil, http.StatusOK)
				return err
			})
			cpu0 := sampleCPU(db)
			*run.out = closedLoop(b, validateClients, validateRequests, func(int) error {
				_, err := client.do(http.MethodGet, "/validate", nil, http.StatusOK)
				return err
			})
			*run.cpu = cpu0.to(sampleCPU(db))
			closeClient()
		}
		// The ceiling last, once the platform's start-up work (consumer
		// groups joining, JIT) is over.
		pool := poolOn(b, h.Config.DatabaseURL, validateClients)
		heads := []string{key.Value.KeyID, h.OrgID, reg.Session.SessionID}
		cpu0 := sampleCPU(db)
		raw = closedLoop(b, validateClients, validateRequests, func(k int) error {
			var v int64
			return pool.QueryRow(ctx, `SELECT version FROM es_streams WHERE stream_id = $1`, heads[k%len(heads)]).Scan(&v)
		})
		rawCPU = cpu0.to(sampleCPU(db))
		pool.Close()
	}
	b.ReportMetric(apiKey.rate, "key-validations/s")
	b.ReportMetric(ms(apiKey.p99), "key-p99-ms")
	b.ReportMetric(session.rate, "session-validations/s")
	b.ReportMetric(ms(session.p99), "session-p99-ms")
	b.ReportMetric(raw.rate, "raw-lookups/s")
	b.ReportMetric(apiKey.rate/raw.rate, "key-ratio")
	b.ReportMetric(session.rate/raw.rate, "session-ratio")
	b.ReportMetric(netKey.rate/raw.rate, "key-ratio-nethttp")
	b.ReportMetric(netSession.rate/raw.rate, "session-ratio-nethttp")
	b.Logf("raw PostgreSQL point lookups, %d by %d clients: %.0f/s (p50 %.2f ms, p99 %.2f ms); %s",
		validateRequests, validateClients, raw.rate, ms(raw.p50), ms(raw.p99), rawCPU.perOp(validateRequests, "lookup"))
	for _, r := range []struct {
		name string
		res  loadResult
		cpu  cpuUse
	}{{"an API key", apiKey, keyCPU}, {"a session access token", session, sessionCPU},
		{"an API key, net/http's client", netKey, netKeyCPU}, {"a session access token, net/http's client", netSession, netSessionCPU}} {
		b.Logf("GET /validate with %s, %d by %d clients: %.0f/s (p50 %.2f ms, p99 %.2f ms), ratio to raw lookups %.2f; %s",
			r.name, validateRequests, validateClients, r.res.rate, ms(r.res.p50), ms(r.res.p99), r.res.rate/raw.rate,
			r.cpu.perOp(validateRequests, "validation"))
	}
}
