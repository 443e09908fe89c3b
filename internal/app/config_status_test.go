package app

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/internal/module"
	statusmod "github.com/platform/backend/internal/modules/status"
)

// TestStatusAndOutboundFromEnv: the status limits and the outbound client
// read their variables over the defaults, and bad values fail the start.
func TestStatusAndOutboundFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		check   func(t *testing.T, c Config)
		wantErr string
	}{
		{
			name: "defaults: nothing internal is allowed",
			check: func(t *testing.T, c Config) {
				s := module.SectionOf[*statusmod.Config](c.Modules).Checks
				if s.CheckTimeout != 5*time.Second || s.Workers != 16 || s.OrgConcurrency != 4 || s.OrgBudget != 20*time.Second ||
					s.MaxComponents != 100 || s.ManualPollInterval != 10*time.Second {
					t.Fatalf("status defaults: %+v", s)
				}
				if len(c.Outbound.AllowNetworks) != 0 || c.Outbound.Timeout != 10*time.Second || c.Outbound.MaxBodyBytes != 1<<20 ||
					c.Outbound.MaxRedirects != 5 {
					t.Fatalf("outbound defaults: %+v", c.Outbound)
				}
			},
		},
		{
			name: "overrides",
			env: map[string]string{"STATUS_CHECK_TIMEOUT": "2s", "STATUS_POLL_WORKERS": "32", "STATUS_ORG_CONCURRENCY": "8",
				"STATUS_ORG_BUDGET": "10s", "STATUS_MAX_COMPONENTS": "250", "STATUS_MANUAL_POLL_INTERVAL": "-1s",
				"OUTBOUND_ALLOW_NETWORKS": "10.20.0.0/16, fd12:3456::/48", "OUTBOUND_TIMEOUT": "3s", "OUTBOUND_MAX_BODY_BYTES": "4096",
				"OUTBOUND_MAX_REDIRECTS": "2"},
			check: func(t *testing.T, c Config) {
				s := module.SectionOf[*statusmod.Config](c.Modules).Checks
				if s.CheckTimeout != 2*time.Second || s.Workers != 32 || s.OrgConcurrency != 8 || s.OrgBudget != 10*time.Second ||
					s.MaxComponents != 250 || s.ManualPollInterval != -time.Second {
					t.Fatalf("status: %+v", s)
				}
				want := []netip.Prefix{netip.MustParsePrefix("10.20.0.0/16"), netip.MustParsePrefix("fd12:3456::/48")}
				if !slices.Equal(c.Outbound.AllowNetworks, want) || c.Outbound.Timeout != 3*time.Second ||
					c.Outbound.MaxBodyBytes != 4096 || c.Outbound.MaxRedirects != 2 {
					t.Fatalf("outbound: %+v", c.Outbound)
				}
			},
		},
		{name: "unparsable network", env: map[string]string{"OUTBOUND_ALLOW_NETWORKS": "10.0.0.0/33"}, wantErr: "10.0.0.0/33"},
		{name: "allow everything", env: map[string]string{"OUTBOUND_ALLOW_NETWORKS": "0.0.0.0/0"}, wantErr: "every address"},
		{name: "unparsable duration", env: map[string]string{"STATUS_ORG_BUDGET": "soon"}, wantErr: "soon"},
		{name: "no workers", env: map[string]string{"STATUS_POLL_WORKERS": "-1"}, wantErr: "at least 1"},
		{name: "organization above the pool", env: map[string]string{"STATUS_POLL_WORKERS": "2", "STATUS_ORG_CONCURRENCY": "3"},
			wantErr: "must not exceed"},
		{name: "no components", env: map[string]string{"STATUS_MAX_COMPONENTS": "-5"}, wantErr: "max components"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("DATABASE_URL", "postgres://localhost/test")
			t.Setenv("KAFKA_BROKERS", "127.0.0.1:9092")
			for _, k := range []string{"STATUS_CHECK_TIMEOUT", "STATUS_POLL_WORKERS", "STATUS_ORG_CONCURRENCY", "STATUS_ORG_BUDGET",
				"STATUS_MAX_COMPONENTS", "STATUS_MANUAL_POLL_INTERVAL", "OUTBOUND_ALLOW_NETWORKS", "OUTBOUND_TIMEOUT",
				"OUTBOUND_MAX_BODY_BYTES", "OUTBOUND_MAX_REDIRECTS"} {
				t.Setenv(k, "")
			}
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			c, err := FromEnv()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("FromEnv() = %v, want an error naming %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}
