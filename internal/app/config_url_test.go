package app

import (
	"strings"
	"testing"
)

// TestConfiguredURLsAreAbsoluteHTTPWithoutCredentials: every URL setting a
// module checks is checked by the one URL check (domain/text.ParseURL).
// Credentials are refused in each (they would be shown in notifications'
// links, health answers, error messages and logs, and the clients send
// their own Authorization), and the refusal names the setting without
// quoting the password.
func TestConfiguredURLsAreAbsoluteHTTPWithoutCredentials(t *testing.T) {
	for _, tt := range []struct {
		name, value, bad, named string
	}{
		{"GATEWAY_DASHBOARD_URL", "https://dash.example.com", "https://ops:pw-1@dash.example.com", "GATEWAY_DASHBOARD_URL"},
		{"DESIGN_APP_URL", "https://design.example.com/app", "https://ops:pw-1@design.example.com/app", "DESIGN_APP_URL"},
		{"GATEWAY_URL", "http://gateway:8085", "http://ops:pw-1@gateway:8085", "GATEWAY_URL"},
		{"RENDER_SERVICE_URL", "http://render:9000", "http://ops:pw-1@render:9000", "RENDER_SERVICE_URL"},
		{"DASHBOARD_REMOTE_WIDGETS", "publishing=http://publishing:8084", "publishing=http://ops:pw-1@publishing:8084", "DASHBOARD_REMOTE_WIDGETS"},
		{"AGENT_SERVICE_URLS", "status=http://status:8081", "status=http://ops:pw-1@status:8081", "AGENT_SERVICE_URLS"},
		{"AGENT_SERVICE_URLS", "status=http://status:8081", "status=httpstatus:8081", "AGENT_SERVICE_URLS"}, // was taken: it starts with "http"
		{"GATEWAY_AI_PROVIDER_1_BASE_URL", "https://ai.example.com/v1", "https://ops:pw-1@ai.example.com/v1", "base URL of"},
		{"GATEWAY_AI_PROVIDER_1_BASE_URL", "https://ai.example.com/v1", "https://ai.example.com/v1 ", "base URL of"},
		{"GATEWAY_EMAIL_PROVIDER_A_BASE_URL", "https://mail.example.com", "https://ops:pw-1@mail.example.com", "base URL of email_provider_a"},
		{"OBJECTSTORE_PUBLIC_URL", "https://files.example.com/objects", "https://ops:pw-1@files.example.com/objects", "OBJECTSTORE_PUBLIC_URL"},
		{"OBJECTSTORE_PUBLIC_URL", "https://files.example.com/objects", "https://files.example.com/objects?", "OBJECTSTORE_PUBLIC_URL"},
		// Bases that paths are appended to, unchecked before.
		{"IDENTITY_PUBLIC_URL", "https://id.example.com", "https://ops:pw-1@id.example.com", "IDENTITY_PUBLIC_URL"},
		{"IDENTITY_PUBLIC_URL", "https://id.example.com", "https://id.example.com/?next=1", "IDENTITY_PUBLIC_URL"},
		{"IDENTITY_ADMIN_CONSOLE_URL", "https://admin.example.com", "admin.example.com", "IDENTITY_ADMIN_CONSOLE_URL"},
		{"PLATFORM_APPS_BASE_URL", "https://apps.example.com", "https://apps.example.com/#x", "PLATFORM_APPS_BASE_URL"},
		{"PUBLISHING_PUBLIC_URL", "https://pub.example.com", "ftp://pub.example.com", "PUBLISHING_PUBLIC_URL"},
		{"AGENT_TURNSTILE_URL", "https://challenges.example.com", "https://ops:pw-1@challenges.example.com", "AGENT_TURNSTILE_URL"},
	} {
		t.Run(tt.name+"="+tt.bad, func(t *testing.T) {
			platformEnv(t, map[string]string{tt.name: tt.value})
			if _, err := FromEnv(); err != nil {
				t.Fatalf("%s=%s: %v", tt.name, tt.value, err)
			}
			platformEnv(t, map[string]string{tt.name: tt.bad})
			_, err := FromEnv()
			if err == nil || !strings.Contains(err.Error(), tt.named) || strings.Contains(err.Error(), "pw-1") {
				t.Fatalf("%s=%s: FromEnv() = %v, want it refused, naming %s without the password", tt.name, tt.bad, err, tt.named)
			}
		})
	}
}
