package design

import (
	"strings"
	"testing"
)

// TestInsightsSiteKey: the web component's INSIGHTS_SITE_KEY is read and
// must be plain text of at most 256 characters (it is written into the
// pages).
func TestInsightsSiteKey(t *testing.T) {
	for value, ok := range map[string]bool{"": true, "site-123_abc": true, `x"><script>`: false, strings.Repeat("k", 257): false} {
		var c Config
		if err := c.FromEnv(func(name string) string {
			if name == "INSIGHTS_SITE_KEY" {
				return value
			}
			return ""
		}); err != nil {
			t.Fatal(err)
		}
		c.Defaults()
		if c.InsightsSiteKey != value {
			t.Fatalf("read %q, want %q", c.InsightsSiteKey, value)
		}
		if err := c.Validate(); (err == nil) != ok {
			t.Errorf("%q: %v", value, err)
		}
	}
}
