package agent_test

import (
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/module"
	agentmod "github.com/platform/backend/internal/modules/agent"
	"github.com/platform/backend/providers/verification/turnstile/fake"
)

type chatOut struct {
	SessionID string `json:"sessionId"`
	Persona   struct {
		PersonaID string `json:"personaId"`
		Name      string `json:"name"`
	} `json:"persona"`
	Verified  bool `json:"verified"`
	Challenge *struct {
		Provider string `json:"provider"`
		SiteKey  string `json:"siteKey"`
		CData    string `json:"cdata"`
	} `json:"challenge"`
	Reply *struct {
		Text     string `json:"text"`
		Grounded bool   `json:"grounded"`
		Sources  []struct {
			DocumentID string `json:"documentId"`
			URL        string `json:"url"`
		} `json:"sources"`
		Actions []struct {
			Label, URL string
		} `json:"actions"`
		Deeplinks []struct {
			Label, URL string
		} `json:"deeplinks"`
	} `json:"reply"`
}

func chat(t *testing.T, h *apptest.Harness, body map[string]any) apptest.Response {
	t.Helper()
	return h.Do(t, "agent", http.MethodPost, "/api/public/chat", "-", body)
}

func addDocument(t *testing.T, h *apptest.Harness, token, title, url, content string) string {
	t.Helper()
	var d struct {
		DocumentID string `json:"documentId"`
	}
	call(t, h, http.MethodPost, "/api/knowledge/documents", token, map[string]any{"title": title, "url": url, "content": content},
		http.StatusCreated, &d)
	return d.DocumentID
}

// TestPublicChat: a visitor's session starts with the organization's
// default persona and a challenge bound to it; the sandbox verifier
// refuses an unverified session (403 verification_required), a refused
// token (403 verification_failed) and a token bound to another session;
// once verified, answers come from the organization's own documents
// through the gateway (metered: a usage event), citing them with links, the
// persona's actions beside; another organization's documents on the same
// words are never cited (cross-tenant probe); a question nothing grounds
// says so and calls no model.
func TestPublicChat(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	otherOrg, otherKey := h.NewOrganization(t, "Other", "other-chat", apptest.DefaultScopes...)
	mine := []string{
		addDocument(t, h, "", "Refund policy", "https://shop.example/refunds", "Refunds are issued within 30 days of purchase to the original card."),
		addDocument(t, h, "", "Shipping", "https://shop.example/shipping", "Orders ship in two business days from our warehouse."),
	}
	theirs := addDocument(t, h, otherKey, "Refund policy", "https://other.example/refunds", "Refunds are issued within 7 days, refunds refunds refunds.")
	call(t, h, http.MethodPut, "/api/personas/sales", "", map[string]any{"name": "Sales", "greeting": "Hi!", "default": true,
		"actions": []any{map[string]any{"label": "Book a demo", "url": "https://shop.example/demo"}}}, http.StatusOK, nil)

	var s chatOut
	res := chat(t, h, map[string]any{"organizationId": h.OrgID})
	apptest.Must(t, res, http.StatusOK, "start")
	res.JSON(t, &s)
	if s.SessionID == "" || s.Verified || s.Challenge == nil || s.Challenge.Provider != "sandbox" || s.Challenge.CData != s.SessionID ||
		s.Persona.PersonaID != "sales" || s.Reply != nil {
		t.Fatalf("started session %+v", s)
	}
	ask := map[string]any{"organizationId": h.OrgID, "sessionId": s.SessionID, "message": "How long do refunds take?"}
	apptest.ExpectProblem(t, chat(t, h, ask), http.StatusForbidden, "verification_required")
	for _, token := range []string{"forged", "pass:" + mine[0]} {
		ask["verification"] = map[string]any{"token": token}
		apptest.ExpectProblem(t, chat(t, h, ask), http.StatusForbidden, "verification_failed")
	}
	usage := func() int64 {
		return count(t, h, `SELECT count(*) FROM es_events WHERE event_type='gateway.usage.recorded' AND organization_id=$1`, h.OrgID)
	}
	// Retrieval reads the knowledge read model.
	apptest.Eventually(t, 15*time.Second, "the documents searchable", func() bool {
		var sr struct {
			Passages []struct{ DocumentID string } `json:"passages"`
		}
		call(t, h, http.MethodGet, "/api/knowledge/search?q=refunds", "", nil, http.StatusOK, &sr)
		return len(sr.Passages) == 1
	})
	before := usage()
	ask["verification"] = map[string]any{"token": "pass:" + s.SessionID}
	res = chat(t, h, ask)
	apptest.Must(t, res, http.StatusOK, "verified question")
	res.JSON(t, &s)
	if !s.Verified || s.Challenge != nil || s.Reply == nil || !s.Reply.Grounded || len(s.Reply.Sources) == 0 {
		t.Fatalf("answer %+v", s)
	}
	for _, src := range s.Reply.Sources {
		if !slices.Contains(mine, src.DocumentID) || src.DocumentID == theirs {
			t.Fatalf("the answer cites %s, not one of the organization's documents %v", src.DocumentID, mine)
		}
	}
	if s.Reply.Sources[0].DocumentID != mine[0] || len(s.Reply.Deeplinks) == 0 || s.Reply.Deeplinks[0].URL != "https://shop.example/refunds" ||
		len(s.Reply.Actions) != 1 || s.Reply.Actions[0].URL != "https://shop.example/demo" {
		t.Fatalf("reply %+v", s.Reply)
	}
	apptest.Eventually(t, 15*time.Second, "the gateway's usage event", func() bool { return usage() == before+1 })

	// Nothing grounds it: said so, no model called.
	delete(ask, "verification")
	ask["message"] = "What is the weather on Mars tonight?"
	res = chat(t, h, ask)
	apptest.Must(t, res, http.StatusOK, "ungrounded question")
	res.JSON(t, &s)
	if s.Reply == nil || s.Reply.Grounded || len(s.Reply.Sources) != 0 || s.Reply.Text == "" {
		t.Fatalf("ungrounded reply %+v", s.Reply)
	}
	time.Sleep(500 * time.Millisecond)
	if usage() != before+1 {
		t.Fatalf("an ungrounded question called the gateway")
	}
	// Another organization's session id is missing; an unknown
	// organization is missing; an unknown persona is refused.
	apptest.ExpectProblem(t, chat(t, h, map[string]any{"organizationId": otherOrg, "sessionId": s.SessionID, "message": "refunds?"}),
		http.StatusNotFound, "not_found")
	apptest.ExpectProblem(t, chat(t, h, map[string]any{"organizationId": "01a2aaaa-0000-7000-8000-000000000000"}), http.StatusNotFound, "not_found")
	p := apptest.ExpectProblem(t, chat(t, h, map[string]any{"organizationId": h.OrgID, "persona": "nobody"}), http.StatusUnprocessableEntity, "invalid_input")
	if len(p.Errors) != 1 || p.Errors[0].Pointer != "/persona" {
		t.Fatalf("problem %+v", p)
	}
	// The other organization's visitors get its own document only.
	var o chatOut
	res = chat(t, h, map[string]any{"organizationId": otherOrg})
	res.JSON(t, &o)
	res = chat(t, h, map[string]any{"organizationId": otherOrg, "sessionId": o.SessionID, "message": "How long do refunds take?",
		"verification": map[string]any{"token": "pass:" + o.SessionID}})
	apptest.Must(t, res, http.StatusOK, "other organization's answer")
	res.JSON(t, &o)
	if o.Reply == nil || len(o.Reply.Sources) != 1 || o.Reply.Sources[0].DocumentID != theirs {
		t.Fatalf("other organization's reply %+v", o.Reply)
	}
}

// TestPublicChatTurnstile: with the Turnstile client against the fake
// siteverify server, a token solved for the session verifies it (the
// server-side call carries the secret, the token and the visitor's
// address), and the same token cannot verify a second session.
func TestPublicChatTurnstile(t *testing.T) {
	srv := fake.Start(fake.Options{SecretKey: "secret-key"})
	defer srv.Close()
	h := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		s := module.SectionOf[*agentmod.Config](c.Modules)
		s.Verifier, s.TurnstileURL, s.TurnstileSiteKey, s.TurnstileSecretKey = "turnstile", srv.URL(), "site-key", "secret-key"
	}})
	var a, b chatOut
	res := chat(t, h, map[string]any{"organizationId": h.OrgID})
	res.JSON(t, &a)
	if a.Challenge == nil || a.Challenge.Provider != "turnstile" || a.Challenge.SiteKey != "site-key" {
		t.Fatalf("challenge %+v", a.Challenge)
	}
	token := srv.Token("shop.example", "agent_chat", a.SessionID)
	res = chat(t, h, map[string]any{"organizationId": h.OrgID, "sessionId": a.SessionID, "verification": map[string]any{"token": token}})
	apptest.Must(t, res, http.StatusOK, "verified")
	res.JSON(t, &a)
	if !a.Verified {
		t.Fatalf("session not verified: %+v", a)
	}
	if got := srv.RequestsOf(fake.OpVerify); len(got) != 1 {
		t.Fatalf("%d siteverify calls", len(got))
	}
	res = chat(t, h, map[string]any{"organizationId": h.OrgID})
	res.JSON(t, &b)
	apptest.ExpectProblem(t, chat(t, h, map[string]any{"organizationId": h.OrgID, "sessionId": b.SessionID,
		"verification": map[string]any{"token": token}}), http.StatusForbidden, "verification_failed")
	// A token solved for another session (its cdata) does not verify this one.
	other := srv.Token("shop.example", "agent_chat", a.SessionID)
	apptest.ExpectProblem(t, chat(t, h, map[string]any{"organizationId": h.OrgID, "sessionId": b.SessionID,
		"verification": map[string]any{"token": other}}), http.StatusForbidden, "verification_failed")
	// The provider down: 503, never verified.
	srv.Close()
	apptest.ExpectProblem(t, chat(t, h, map[string]any{"organizationId": h.OrgID, "sessionId": b.SessionID,
		"verification": map[string]any{"token": srv.Token("shop.example", "agent_chat", b.SessionID)}}), http.StatusServiceUnavailable,
		"dependency_unavailable")
}

// TestPublicChatRateLimits: 50 clients at once hold to the limit per
// client address (its burst answered, the rest 429 with Retry-After), 50
// clients from 50 addresses each get their own limit, and 50 clients of
// one session hold to the limit per session.
func TestPublicChatRateLimits(t *testing.T) {
	const clients = 50
	burst := func(t *testing.T, h *apptest.Harness, body map[string]any) (ok, limited int) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res := chat(t, h, body)
				mu.Lock()
				defer mu.Unlock()
				switch res.Status {
				case http.StatusOK:
					ok++
				case http.StatusTooManyRequests:
					if res.Header.Get("Retry-After") == "" {
						t.Error("a 429 without Retry-After")
					}
					apptest.ExpectProblem(t, res, http.StatusTooManyRequests, "rate_limited")
					limited++
				default:
					t.Errorf("status %d: %s", res.Status, res.Body)
				}
			}()
		}
		wg.Wait()
		return ok, limited
	}
	t.Run("per address", func(t *testing.T) {
		h := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
			s := module.SectionOf[*agentmod.Config](c.Modules)
			s.ChatPerMinute, s.ChatBurst = 1, 10
		}})
		ok, limited := burst(t, h, map[string]any{"organizationId": h.OrgID})
		if ok < 10 || ok > 11 || ok+limited != clients {
			t.Fatalf("%d answered, %d limited; want the burst of 10 (one more at most)", ok, limited)
		}
	})
	t.Run("one address never limits another", func(t *testing.T) {
		// 50 clients, each from an address of its own (loopback's
		// 127.0.0.0/8), each sends three at once: each address gets its
		// burst of two and one 429, whatever the other 49 do.
		h := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
			s := module.SectionOf[*agentmod.Config](c.Modules)
			s.ChatPerMinute, s.ChatBurst = 1, 2
		}})
		body := `{"organizationId":"` + h.OrgID + `"}`
		okBy := make([]atomic.Int32, clients)
		limitedBy := make([]atomic.Int32, clients)
		var wg sync.WaitGroup
		for i := range clients {
			from := &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(10+i))}
			client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
				DialContext: (&net.Dialer{LocalAddr: from}).DialContext}}
			for range 3 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					res, err := client.Post(h.URLs["agent"]+"/api/public/chat", "application/json", strings.NewReader(body))
					if err != nil {
						t.Error(err)
						return
					}
					defer res.Body.Close()
					switch res.StatusCode {
					case http.StatusOK:
						okBy[i].Add(1)
					case http.StatusTooManyRequests:
						if res.Header.Get("Retry-After") == "" {
							t.Error("a 429 without Retry-After")
						}
						limitedBy[i].Add(1)
					default:
						t.Errorf("status %d", res.StatusCode)
					}
				}()
			}
		}
		wg.Wait()
		for i := range clients {
			if okBy[i].Load() != 2 || limitedBy[i].Load() != 1 {
				t.Errorf("address 127.0.0.%d: %d answered, %d limited; want 2 and 1", 10+i, okBy[i].Load(), limitedBy[i].Load())
			}
		}
	})
	t.Run("per session", func(t *testing.T) {
		h := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
			s := module.SectionOf[*agentmod.Config](c.Modules)
			s.ChatPerMinute, s.ChatBurst, s.ChatSessionPerMinute, s.ChatSessionBurst = 6000, 1000, 1, 3
		}})
		var s chatOut
		chat(t, h, map[string]any{"organizationId": h.OrgID}).JSON(t, &s)
		ok, limited := burst(t, h, map[string]any{"organizationId": h.OrgID, "sessionId": s.SessionID})
		if ok < 3 || ok > 4 || ok+limited != clients {
			t.Fatalf("%d answered, %d limited; want the session's burst of 3 (one more at most)", ok, limited)
		}
	})
}

// TestPublicChatPersonaAndCap: a visitor picks a persona that is not the
// default and keeps it for the session (another one later is refused, 422
// /persona); the answer goes through the gateway under the organization's
// spend caps: with a hard cap of zero, a grounded question is refused with
// the gateway's 402 spend_cap_exceeded, no model called, nothing metered.
func TestPublicChatPersonaAndCap(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	addDocument(t, h, "", "Refund policy", "https://shop.example/refunds", "Refunds are issued within 30 days of purchase to the original card.")
	call(t, h, http.MethodPut, "/api/personas/sales", "", map[string]any{"name": "Sales", "greeting": "Hi!", "default": true}, http.StatusOK, nil)
	call(t, h, http.MethodPut, "/api/personas/support", "", map[string]any{"name": "Support", "greeting": "How can we help?"}, http.StatusOK, nil)

	var s chatOut
	res := chat(t, h, map[string]any{"organizationId": h.OrgID, "persona": "support"})
	apptest.Must(t, res, http.StatusOK, "start with a persona")
	res.JSON(t, &s)
	if s.Persona.PersonaID != "support" || s.Persona.Name != "Support" {
		t.Fatalf("the chosen persona: %+v", s.Persona)
	}
	p := apptest.ExpectProblem(t, chat(t, h, map[string]any{"organizationId": h.OrgID, "sessionId": s.SessionID, "persona": "sales",
		"message": "refunds?"}), http.StatusUnprocessableEntity, "invalid_input")
	if len(p.Errors) != 1 || p.Errors[0].Pointer != "/persona" {
		t.Fatalf("problem %+v", p)
	}

	apptest.Must(t, h.Do(t, "gateway", http.MethodPost, "/api/billing/spend-caps", "", map[string]any{"scopeType": "organization",
		"monthlyCapCents": 0, "capMode": "hard"}), http.StatusOK, "cap")
	apptest.Eventually(t, 15*time.Second, "the document searchable", func() bool {
		var sr struct {
			Passages []struct{ DocumentID string } `json:"passages"`
		}
		call(t, h, http.MethodGet, "/api/knowledge/search?q=refunds", "", nil, http.StatusOK, &sr)
		return len(sr.Passages) == 1
	})
	res = chat(t, h, map[string]any{"organizationId": h.OrgID, "sessionId": s.SessionID, "message": "How long do refunds take?",
		"verification": map[string]any{"token": "pass:" + s.SessionID}})
	apptest.ExpectProblem(t, res, http.StatusPaymentRequired, "spend_cap_exceeded")
	if n := count(t, h, `SELECT count(*) FROM es_events WHERE event_type='gateway.usage.recorded' AND organization_id=$1`, h.OrgID); n != 0 {
		t.Fatalf("%d usage events under a zero hard cap", n)
	}
}
