package httpapi

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServerConfig: defaults are valid and reach the server; bounds that
// would cut promised answers are refused.
func TestServerConfig(t *testing.T) {
	def := ServerConfig{}.WithDefaults()
	for _, c := range []struct {
		name string
		edit func(*ServerConfig)
		want string // "" = valid
	}{
		{"defaults", func(*ServerConfig) {}, ""},
		{"zero read timeout", func(c *ServerConfig) { c.ReadTimeout = -1 }, "must be positive"},
		{"header timeout over read timeout", func(c *ServerConfig) { c.ReadHeaderTimeout = time.Minute }, "exceeds the read timeout"},
		{"write timeout within a read and a wait", func(c *ServerConfig) { c.WriteTimeout = c.ReadTimeout + time.Second }, "must exceed the read timeout"},
		{"tiny header limit", func(c *ServerConfig) { c.MaxHeaderBytes = 100 }, "max header bytes"},
		{"header limit over net/http's", func(c *ServerConfig) { c.MaxHeaderBytes = 2 << 20 }, "max header bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := def
			c.edit(&cfg)
			err := cfg.Validate()
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("Validate() = %v, want %q", err, c.want)
			}
		})
	}
	var s http.Server
	ServerConfig{}.Configure(&s)
	if s.ReadHeaderTimeout != def.ReadHeaderTimeout || s.ReadTimeout != def.ReadTimeout || s.WriteTimeout != def.WriteTimeout ||
		s.IdleTimeout != def.IdleTimeout || s.MaxHeaderBytes != 2*def.MaxHeaderBytes {
		t.Fatalf("configured server: read header %s, read %s, write %s, idle %s, max header bytes %d",
			s.ReadHeaderTimeout, s.ReadTimeout, s.WriteTimeout, s.IdleTimeout, s.MaxHeaderBytes)
	}
}
