package gateway_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
	gatewaymod "github.com/platform/backend/internal/modules/gateway"
	"github.com/platform/backend/providers/ai"
	openaifake "github.com/platform/backend/providers/ai/openai/fake"
	postmarkfake "github.com/platform/backend/providers/email/postmark/fake"
	resendfake "github.com/platform/backend/providers/email/resend/fake"
	whatsappfake "github.com/platform/backend/providers/message/whatsapp/fake"
)

// The secrets of TestCredentialsNeverLeak: every one is searched for in
// every answer, every log line and every table of the database.
var leakSecrets = map[string]string{
	"postmark": "pm-SECRET-4e1c-token", "postmark_pass": "pm-SECRET-4e1c-pass", "resend": "re_SECRET_4e1c_key",
	"resend_wrong": "re_SECRET_4e1c_wrong", "whatsapp": "wa-SECRET-4e1c-token", "whatsapp_app": "wa-SECRET-4e1c-app",
	"stripe": "sk_test_SECRET_4e1c", "stripe_hook": "whsec_SECRET_4e1c", "openai": "sk-SECRET-4e1c-openai",
	"openai_wrong": "sk-SECRET-4e1c-wrong",
}

// TestCredentialsNeverLeak: credentials of every provider kind are stored,
// used (sends, payments, a completion, a refused key), rotated, read back
// and audited; no answer of any route, no line the platform logs (debug
// level) and no row of any table (events, snapshots, idempotency records,
// read models, notifications, history) holds one of them in clear.
func TestCredentialsNeverLeak(t *testing.T) {
	pm := postmarkfake.Start(postmarkfake.Options{ServerToken: leakSecrets["postmark"]})
	defer pm.Close()
	rs := resendfake.Start(resendfake.Options{APIKey: leakSecrets["resend"]})
	defer rs.Close()
	wa := whatsappfake.Start(whatsappfake.Options{AccessToken: leakSecrets["whatsapp"]})
	defer wa.Close()
	st := mustStripe(t, leakSecrets["stripe"])
	oa := httptest.NewServer(openaifake.New(leakSecrets["openai"]))
	defer oa.Close()
	logs := &apptest.LogSink{}
	h := startEdge(t, edgeOptions{logs: logs, ring: ring(t, "alpha", "alpha"), gateway: func(g *gatewaymod.Config) {
		g.Edge.BaseURLs = map[string]string{"email_provider_a": pm.URL(), "email_provider_b": rs.URL(), "message_provider_a": wa.URL(),
			"payments_provider_a": st.URL()}
		pc := g.Providers[ai.Provider1]
		pc.BaseURL = oa.URL + "/v1"
		if g.Providers == nil {
			g.Providers = map[ai.ProviderID]gatewaymod.ProviderConfig{}
		}
		g.Providers[ai.Provider1] = pc
	}})
	var answers []string
	keep := func(res apptest.Response, status int, what string) apptest.Response {
		t.Helper()
		apptest.Must(t, res, status, what)
		answers = append(answers, string(res.Body)+fmt.Sprint(res.Header))
		return res
	}
	ids := map[string]string{}
	for provider, creds := range map[string]map[string]any{
		"email_provider_a":    {"server_token": leakSecrets["postmark"], "webhook_username": "u", "webhook_password": leakSecrets["postmark_pass"]},
		"email_provider_b":    {"api_key": leakSecrets["resend"]},
		"message_provider_a":  {"access_token": leakSecrets["whatsapp"], "app_secret": leakSecrets["whatsapp_app"]},
		"payments_provider_a": {"secret_key": leakSecrets["stripe"], "webhook_secret": leakSecrets["stripe_hook"]},
		"ai_provider_1":       {"api_key": leakSecrets["openai"]},
	} {
		body := map[string]any{"provider": provider, "name": provider, "credentials": creds}
		if provider == "message_provider_a" {
			body["settings"] = map[string]any{"phone_number_id": whatsappfake.DefaultPhoneNumberID}
		}
		id, res := createConnection(t, h, "", body)
		keep(res, http.StatusCreated, "create "+provider)
		ids[provider] = id
	}
	// Use every credential.
	keep(sendEmail(t, h, "", map[string]any{"to": "a@example.com", "from": "s@example.com", "subject": "x", "text": "x",
		"provider": "email_provider_a"}), http.StatusOK, "postmark send")
	keep(sendEmail(t, h, "", map[string]any{"to": "a@example.com", "from": "s@example.com", "subject": "x", "text": "x",
		"provider": "email_provider_b"}), http.StatusOK, "resend send")
	notify, _ := h.Access().Keys().Issue(context.Background(), "notifications", 0)
	keep(h.Do(t, "gateway", http.MethodPost, "/api/instant-message/send", notify, map[string]any{"to": "+15550001111",
		"connection_id": ids["message_provider_a"], "text": "hi"}), http.StatusOK, "whatsapp send")
	keep(invoke(t, h, "", "customers.create", map[string]any{"email": "c@example.com"}), http.StatusOK, "stripe call")
	completion := keep(post(t, h, "/api/ai/completions", "", map[string]any{"provider": "ai_provider_1", "prompt": "hello"}), http.StatusOK, "completion")
	if !strings.Contains(string(completion.Body), ids["ai_provider_1"]) {
		t.Fatalf("the completion did not use the organization's own key: %s", completion.Body)
	}
	// An AI key the provider refuses: 409, the connection deauthorized, the next call on the platform's connection.
	keep(h.Do(t, "gateway", http.MethodPut, "/api/connections/"+ids["ai_provider_1"]+"/credentials", "",
		map[string]any{"credentials": map[string]any{"api_key": leakSecrets["openai_wrong"]}}), http.StatusOK, "wrong AI key")
	refused := post(t, h, "/api/ai/completions", "", map[string]any{"provider": "ai_provider_1", "prompt": "hello"})
	answers = append(answers, string(refused.Body))
	apptest.ExpectProblem(t, refused, http.StatusConflict, "connection_unauthorized")
	fallback := keep(post(t, h, "/api/ai/completions", "", map[string]any{"provider": "ai_provider_1", "prompt": "hello"}), http.StatusOK,
		"completion after the refusal")
	if !strings.Contains(string(fallback.Body), `"connection_id":"sandbox:ai_provider_1"`) {
		t.Fatalf("the deauthorized connection was used again: %s", fallback.Body)
	}
	// A refused key (the wrong one set on purpose): deauthorized, the key in no line.
	keep(h.Do(t, "gateway", http.MethodPut, "/api/connections/"+ids["email_provider_b"]+"/credentials", "",
		map[string]any{"credentials": map[string]any{"api_key": leakSecrets["resend_wrong"]}}), http.StatusOK, "wrong key")
	res := sendEmail(t, h, "", map[string]any{"to": "a@example.com", "from": "s@example.com", "subject": "x", "text": "x",
		"provider": "email_provider_b"})
	answers = append(answers, string(res.Body))
	apptest.ExpectProblem(t, res, http.StatusConflict, "connection_unauthorized")
	// Rotate one, read everything back.
	keep(post(t, h, "/api/connections/"+ids["payments_provider_a"]+"/credentials/rotate", "", map[string]any{}), http.StatusOK, "rotate")
	usageEvents(t, h, "", 6)
	apptest.Eventually(t, 20*time.Second, "the read model's connections", func() bool {
		return strings.Count(string(get(t, h, "/api/connections", "").Body), `"byok":true`) == 5
	})
	for _, path := range []string{"/api/connections", "/api/audit?limit=200", "/api/usage/events?limit=200", "/api/usage/key-health",
		"/api/deliveries?limit=200", "/api/webhooks", "/api/email/profiles", "/api/billing/overview", "/api/widget"} {
		keep(get(t, h, path, ""), http.StatusOK, path)
	}
	for _, id := range ids {
		keep(get(t, h, "/api/connections/"+id, ""), http.StatusOK, "get "+id)
	}
	keep(h.Do(t, "ops", http.MethodGet, "/api/history?limit=500", "", nil), http.StatusOK, "history (the export of events)")
	keep(h.Do(t, "gateway", http.MethodGet, "/api/actions", "-", nil), http.StatusOK, "descriptors")

	// Scan answers, logs and every table.
	for name, secret := range leakSecrets {
		for _, a := range answers {
			if strings.Contains(a, secret) {
				t.Errorf("an answer holds the %s secret: %.300s", name, a)
			}
		}
		if strings.Contains(logs.String(), secret) {
			t.Errorf("a log line holds the %s secret", name)
		}
	}
	if !strings.Contains(logs.String(), "level=DEBUG") && !strings.Contains(logs.String(), "level=INFO") {
		t.Fatal("the log sink caught nothing: the scan would prove nothing")
	}
	rows, err := h.App.Pool.Query(context.Background(), `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'
		AND table_type = 'BASE TABLE'`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		_ = rows.Scan(&name)
		tables = append(tables, name)
	}
	rows.Close()
	if len(tables) < 20 {
		t.Fatalf("only %d tables to scan", len(tables))
	}
	for _, table := range tables {
		var dump string
		if err := h.App.Pool.QueryRow(context.Background(), fmt.Sprintf(`SELECT COALESCE(string_agg(t::text, E'\n'), '') FROM %q t`, table)).
			Scan(&dump); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		for name, secret := range leakSecrets {
			// bytea columns print as hex: look for that spelling too.
			if strings.Contains(dump, secret) || strings.Contains(dump, hex.EncodeToString([]byte(secret))) {
				t.Errorf("table %s holds the %s secret in clear", table, name)
			}
		}
	}
}
