package gateway_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/providers/ai"
)

// TestHardCapRace: 100 concurrent calls at the edge of a hard cap, in
// waves until the cap refuses every one: settled spend never passes the
// cap, nothing stays reserved, every refusal is 402 spend_cap_exceeded
// before any provider call, and the usage events add up to the budget.
func TestHardCapRace(t *testing.T) {
	h := start(t)
	kit := fake(t, h, ai.Provider1)
	const capCents = 0.5 // 500,000 micro-cents
	apptest.Must(t, post(t, h, "/api/billing/spend-caps", "", map[string]any{"scopeType": "organization", "monthlyCapCents": capCents,
		"capMode": "hard"}), http.StatusOK, "cap")
	words := strings.Repeat("word ", 40)
	body := map[string]any{"prompt": words, "max_tokens": 60}
	var ok, refused int
	for wave := 0; wave < 20; wave++ {
		var mu sync.Mutex
		var wg sync.WaitGroup
		waveOK := 0
		for range 100 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res := post(t, h, "/api/ai/completions", "", body)
				mu.Lock()
				defer mu.Unlock()
				switch res.Status {
				case http.StatusOK:
					ok++
					waveOK++
				case http.StatusPaymentRequired:
					refused++
					if !strings.Contains(string(res.Body), `"code":"spend_cap_exceeded"`) {
						t.Errorf("402 body %s", res.Body)
					}
				default:
					t.Errorf("status %d: %s", res.Status, res.Body)
				}
			}()
		}
		wg.Wait()
		settled, reserved := budget(t, h, h.OrgID, "organization")
		if settled > capCents*1e6 || reserved != 0 {
			t.Fatalf("wave %d: settled %d reserved %d micro-cents, cap %d", wave, settled, reserved, int64(capCents*1e6))
		}
		if waveOK == 0 {
			break
		}
	}
	settled, _ := budget(t, h, h.OrgID, "organization")
	if ok == 0 || refused == 0 {
		t.Fatalf("%d answered, %d refused: the test never reached the cap", ok, refused)
	}
	if calls := len(kit.Requests()); calls != ok {
		t.Fatalf("the provider saw %d calls, %d were answered: refused calls must never reach it", calls, ok)
	}
	var events, sum int64
	if err := h.App.Pool.QueryRow(context.Background(), `SELECT count(*), COALESCE(sum((payload->>'cost_microcents')::bigint), 0) FROM es_events
		WHERE organization_id = $1 AND event_type = 'gateway.usage.recorded'`, h.OrgID).Scan(&events, &sum); err != nil {
		t.Fatal(err)
	}
	if events != int64(ok) || sum != settled {
		t.Fatalf("%d usage events costing %d; %d answered, budget settled %d", events, sum, ok, settled)
	}
	t.Logf("cap %v cents: %d calls answered, %d refused, settled %.4f cents", capCents, ok, refused, float64(settled)/1e6)
}

// TestUserCapAndSoftCap: a user's hard cap refuses that user's calls only;
// a soft cap refuses nothing.
func TestUserCapAndSoftCap(t *testing.T) {
	h := start(t)
	fake(t, h, ai.Provider1)
	var me struct {
		Events []struct {
			PrincipalID string `json:"principal_id"`
		} `json:"events"`
	}
	apptest.Must(t, post(t, h, "/api/ai/completions", "", map[string]any{"prompt": "hi"}), http.StatusOK, "first call")
	events := usageEvents(t, h, "", 1)
	me.Events = append(me.Events, struct {
		PrincipalID string `json:"principal_id"`
	}{events[0]["principal_id"].(string)})
	principal := me.Events[0].PrincipalID
	apptest.Must(t, post(t, h, "/api/billing/spend-caps", "", map[string]any{"scopeType": "organization", "monthlyCapCents": 0,
		"capMode": "soft", "notifyThresholds": []float64{50}}), http.StatusOK, "soft cap")
	apptest.Must(t, post(t, h, "/api/ai/completions", "", map[string]any{"prompt": "hi"}), http.StatusOK, "a soft cap refuses nothing")
	apptest.Must(t, post(t, h, "/api/billing/spend-caps", "", map[string]any{"scopeType": "user", "scopeValue": principal,
		"monthlyCapCents": 0.0001, "capMode": "hard"}), http.StatusOK, "user cap")
	res := post(t, h, "/api/ai/completions", "", map[string]any{"prompt": "hi"})
	p := apptest.ExpectProblem(t, res, http.StatusPaymentRequired, "spend_cap_exceeded")
	if !strings.Contains(p.Detail, "user:"+principal) {
		t.Fatalf("the refusal names %q", p.Detail)
	}
	_, other := h.NewOrganization(t, "Other", "other-"+strings.ToLower(principal[:8]), apptest.DefaultScopes...)
	apptest.Must(t, post(t, h, "/api/ai/completions", other, map[string]any{"prompt": "hi"}), http.StatusOK, "another organization's call")
}

// TestUserCapHoldsEveryCredentialOfTheUser (issue #18): a hard cap on a
// user holds every credential acting as that user: the user's own API key
// meets the user's budget row as the user's session does (before, the key
// was accounted as itself: the session got 402, the key 200). Calls of
// both, concurrent, at the edge of the cap never settle past it; another
// user's key is not touched.
func TestUserCapHoldsEveryCredentialOfTheUser(t *testing.T) {
	h := start(t)
	kit := fake(t, h, ai.Provider1)
	ada := newPerson(t, h, h.OrgID, "member")
	bob := newPerson(t, h, h.OrgID, "member")
	body := map[string]any{"prompt": "a call of the user cap test", "max_tokens": 40}
	scope := "user:" + ada.UserID

	// Before any cap: what Ada's key spends is Ada's.
	apptest.Must(t, post(t, h, "/api/ai/completions", ada.Key, body), http.StatusOK, "a call with Ada's key")
	spent, _ := budget(t, h, h.OrgID, scope)
	if spent == 0 {
		t.Fatal("the call of Ada's key was not charged to Ada's budget")
	}
	if keySpent, _ := budget(t, h, h.OrgID, "user:"+apptest.KeyID(ada.Key)); keySpent != 0 {
		t.Fatalf("the key is accounted as itself (%d micro-cents)", keySpent)
	}

	// A hard cap a little above: calls of Ada's session and key, in
	// concurrent waves, until the cap refuses every one.
	capMicro := spent + 40_000
	apptest.Must(t, post(t, h, "/api/billing/spend-caps", "", map[string]any{"scopeType": "user", "scopeValue": ada.UserID,
		"monthlyCapCents": float64(capMicro) / 1e6, "capMode": "hard"}), http.StatusOK, "Ada's cap")
	answered := map[string]int{}
	refused := map[string]int{}
	for wave := 0; wave < 30; wave++ {
		var mu sync.Mutex
		var wg sync.WaitGroup
		waveOK := 0
		for i := range 20 {
			who, token := "session", ada.Session
			if i%2 == 1 {
				who, token = "key", ada.Key
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				res := post(t, h, "/api/ai/completions", token, body)
				mu.Lock()
				defer mu.Unlock()
				switch res.Status {
				case http.StatusOK:
					answered[who]++
					waveOK++
				case http.StatusPaymentRequired:
					refused[who]++
					if p := apptest.ExpectProblem(t, res, http.StatusPaymentRequired, "spend_cap_exceeded"); !strings.Contains(p.Detail, scope) {
						t.Errorf("the %s's refusal names %q, want %s", who, p.Detail, scope)
					}
				default:
					t.Errorf("%s: %d %s", who, res.Status, res.Body)
				}
			}()
		}
		wg.Wait()
		settled, reserved := budget(t, h, h.OrgID, scope)
		if settled > capMicro || reserved != 0 {
			t.Fatalf("wave %d: Ada settled %d reserved %d micro-cents, cap %d", wave, settled, reserved, capMicro)
		}
		if waveOK == 0 {
			break
		}
	}
	if refused["session"] == 0 || refused["key"] == 0 || answered["session"]+answered["key"] == 0 {
		t.Fatalf("answered %v, refused %v: the cap was never reached by both credentials", answered, refused)
	}
	// Both credentials now: 402 naming Ada's cap. Bob's key is not Ada.
	for who, token := range map[string]string{"session": ada.Session, "key": ada.Key} {
		p := apptest.ExpectProblem(t, post(t, h, "/api/ai/completions", token, body), http.StatusPaymentRequired, "spend_cap_exceeded")
		if !strings.Contains(p.Detail, scope) {
			t.Fatalf("Ada's %s refused for %q", who, p.Detail)
		}
	}
	apptest.Must(t, post(t, h, "/api/ai/completions", bob.Key, body), http.StatusOK, "Bob's key under Ada's cap")
	apptest.Must(t, post(t, h, "/api/ai/completions", bob.Session, body), http.StatusOK, "Bob's session under Ada's cap")

	// The usage events say who called and whom it was charged to, and add
	// up to Ada's budget.
	settled, _ := budget(t, h, h.OrgID, scope)
	var sum int64
	if err := h.App.Pool.QueryRow(context.Background(), `SELECT COALESCE(sum((payload->>'cost_microcents')::bigint), 0) FROM es_events
		WHERE organization_id = $1 AND event_type = 'gateway.usage.recorded' AND payload->>'user_id' = $2`, h.OrgID, ada.UserID).Scan(&sum); err != nil {
		t.Fatal(err)
	}
	if sum != settled {
		t.Fatalf("Ada's usage events cost %d, her budget settled %d", sum, settled)
	}
	if n := h.Count(t, `SELECT count(*) FROM es_events WHERE organization_id = $1 AND event_type = 'gateway.usage.recorded'
		AND payload->>'principal_id' = $2 AND payload->>'user_id' = $3`, h.OrgID, apptest.KeyID(ada.Key), ada.UserID); n == 0 {
		t.Fatal("no usage event names Ada's key as the caller acting as Ada")
	}
	if calls := len(kit.Requests()); calls != 1+answered["session"]+answered["key"]+2 {
		t.Fatalf("the provider saw %d calls, %d were answered: refused calls must never reach it", calls, 1+answered["session"]+answered["key"]+2)
	}
	t.Logf("Ada's cap %d micro-cents: answered %v, refused %v, settled %d", capMicro, answered, refused, settled)
}
