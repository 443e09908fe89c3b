package stripe_test

import (
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/providers/payments/stripe"
)

func TestConfigDefaults(t *testing.T) {
	c := stripe.Config{SecretKey: "sk_test_1"}.WithDefaults()
	if c.BaseURL != stripe.DefaultBaseURL || c.APIVersion != stripe.DefaultAPIVersion || c.Timeout != stripe.DefaultTimeout || c.HTTPClient == nil {
		t.Fatalf("%+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := map[string]func(*stripe.Config){
		"no key":                 func(c *stripe.Config) { c.SecretKey = "" },
		"publishable key":        func(c *stripe.Config) { c.SecretKey = "pk_live_123" },
		"key with a newline":     func(c *stripe.Config) { c.SecretKey = "sk_live_1\n" },
		"base URL not http":      func(c *stripe.Config) { c.BaseURL = "ftp://api.stripe.com" },
		"base URL relative":      func(c *stripe.Config) { c.BaseURL = "/v1" },
		"base URL with query":    func(c *stripe.Config) { c.BaseURL = "https://api.stripe.com?x=1" },
		"base URL with user":     func(c *stripe.Config) { c.BaseURL = "https://u:p@api.stripe.com" },
		"base URL with a bare ?": func(c *stripe.Config) { c.BaseURL = "https://api.stripe.com?" }, // paths appended land in the query
		"base URL with a bare #": func(c *stripe.Config) { c.BaseURL = "https://api.stripe.com#" },
		"version not a date":     func(c *stripe.Config) { c.APIVersion = "latest" },
		"version bad release":    func(c *stripe.Config) { c.APIVersion = "2025-02-24.Acacia" },
		"negative timeout":       func(c *stripe.Config) { c.Timeout = -time.Second },
	}
	for name, change := range tests {
		t.Run(name, func(t *testing.T) {
			c := stripe.Config{SecretKey: "sk_test_secret_value"}.WithDefaults()
			change(&c)
			err := c.Validate()
			if err == nil {
				t.Fatal("accepted")
			}
			if strings.Contains(err.Error(), "secret_value") {
				t.Fatalf("the key leaks: %v", err)
			}
			if _, err := stripe.New(c); err == nil {
				t.Fatal("New accepted it")
			}
		})
	}
	for _, v := range []string{"2025-02-24.acacia", "2024-06-20", "2025-03-31.basil"} {
		c := stripe.Config{SecretKey: "rk_live_1", APIVersion: v}.WithDefaults()
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", v, err)
		}
	}
}
