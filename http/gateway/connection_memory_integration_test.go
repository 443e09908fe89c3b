package gateway_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/module"
	gatewaymod "github.com/platform/backend/internal/modules/gateway"
	identitymod "github.com/platform/backend/internal/modules/identity"
	"github.com/platform/backend/providers/ai"
	openaifake "github.com/platform/backend/providers/ai/openai/fake"
)

// Helpers of this file are prefixed cmt (connection memory test).

// cmtProvider is an OpenAI-compatible provider accepting two keys: it
// records, per call's prompt ("call-N"), the key the gateway presented.
type cmtProvider struct {
	fakes map[string]http.Handler // "Bearer <key>" -> the fake of that key
	mu    sync.Mutex
	keyOf map[string]string // prompt -> key
}

var cmtPrompt = regexp.MustCompile(`call-[0-9]+`)

func (p *cmtProvider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	auth := r.Header.Get("Authorization")
	if prompt := cmtPrompt.Find(body); prompt != nil {
		p.mu.Lock()
		p.keyOf[string(prompt)] = strings.TrimPrefix(auth, "Bearer ")
		p.mu.Unlock()
	}
	if f, ok := p.fakes[auth]; ok {
		f.ServeHTTP(w, r)
		return
	}
	w.WriteHeader(http.StatusUnauthorized)
}

// cmtCall is one completion of the load: when it was sent, by which
// process, and the connection that served it.
type cmtCall struct {
	prompt     string
	sent       time.Time
	process    int
	status     int
	connection string
	cost       float64
}

// cmtLoad sends completions on every process, from a few clients each,
// until stop is closed.
func cmtLoad(hs []*apptest.Harness, token string, stop <-chan struct{}) func() []cmtCall {
	var mu sync.Mutex
	var calls []cmtCall
	var n atomic.Int64
	var wg sync.WaitGroup
	for p, h := range hs {
		for range 3 {
			client := &http.Client{Timeout: 10 * time.Second}
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					prompt := fmt.Sprintf("call-%d", n.Add(1))
					body, _ := json.Marshal(map[string]any{"provider": "ai_provider_1", "prompt": prompt})
					req, _ := http.NewRequest(http.MethodPost, h.URLs["gateway"]+"/api/ai/completions", bytes.NewReader(body))
					req.Header.Set("Authorization", "Bearer "+token)
					req.Header.Set("Content-Type", "application/json")
					c := cmtCall{prompt: prompt, sent: time.Now(), process: p}
					if resp, err := client.Do(req); err == nil {
						var answer struct {
							ConnectionID string  `json:"connection_id"`
							CostCents    float64 `json:"cost_cents"`
						}
						raw, _ := io.ReadAll(resp.Body)
						resp.Body.Close()
						c.status = resp.StatusCode
						_ = json.Unmarshal(raw, &answer)
						c.connection, c.cost = answer.ConnectionID, answer.CostCents
					}
					mu.Lock()
					calls = append(calls, c)
					mu.Unlock()
				}
			})
		}
	}
	return func() []cmtCall { wg.Wait(); return calls }
}

// TestConnectionInUseChangesWithinTheBoundOnEveryProcess: two processes on
// one database resolve an organization's AI connection in use from memory
// (identity's head watch), under load on both, while an administrator
// changes it through the first process: sets a new key, creates a second
// connection and chooses it, disconnects it, sets a service fee on the
// organization's own-key calls, deletes the first. Every
// completion sent on either process later than the bound after the
// change's answer must run on the new state (the key the provider saw, the
// connection the answer names, the fee in its cost): none may run on the
// old one.
func TestConnectionInUseChangesWithinTheBoundOnEveryProcess(t *testing.T) {
	provider := &cmtProvider{fakes: map[string]http.Handler{"Bearer key-a": openaifake.New("key-a"),
		"Bearer key-b": openaifake.New("key-b")}, keyOf: map[string]string{}}
	srv := httptest.NewServer(provider)
	defer srv.Close()
	configure := func(c *app.Config) {
		g := module.SectionOf[*gatewaymod.Config](c.Modules)
		if g.Providers == nil {
			g.Providers = map[ai.ProviderID]gatewaymod.ProviderConfig{}
		}
		pc := g.Providers[ai.Provider1]
		pc.BaseURL = srv.URL + "/v1"
		g.Providers[ai.Provider1] = pc
	}
	h1 := apptest.Start(t, apptest.Options{Configure: configure})
	h2 := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		configure(c)
		c.DatabaseURL, c.Kafka.Topics = h1.Config.DatabaseURL, h1.Config.Kafka.Topics
	}})
	hs := []*apptest.Harness{h1, h2}
	bound := module.SectionOf[*identitymod.Config](h1.Config.Modules).HeadWatch.Bound
	if bound <= 0 {
		t.Fatalf("the head watch is off (bound %s)", bound)
	}
	token := h1.APIKey
	first, _ := createConnection(t, h1, token, map[string]any{"provider": "ai_provider_1", "name": "first",
		"credentials": map[string]any{"api_key": "key-a"}})
	var second string

	for _, tc := range []struct {
		name string
		// change is made through the first process; after says whether a
		// call ran on the new state.
		change func() apptest.Response
		after  func(c cmtCall, key string) bool
	}{
		{"new key", func() apptest.Response {
			return h1.Do(t, "gateway", http.MethodPut, "/api/connections/"+first+"/credentials", token,
				map[string]any{"credentials": map[string]any{"api_key": "key-b"}})
		}, func(c cmtCall, key string) bool { return c.connection == first && key == "key-b" }},
		{"another connection chosen", func() apptest.Response {
			second, _ = createConnection(t, h1, token, map[string]any{"provider": "ai_provider_1", "name": "second",
				"credentials": map[string]any{"api_key": "key-a"}})
			return h1.Do(t, "gateway", http.MethodPost, "/api/connections/"+second+"/choose", token, map[string]any{})
		}, func(c cmtCall, key string) bool { return c.connection == second && key == "key-a" }},
		{"the one in use disconnected", func() apptest.Response {
			return h1.Do(t, "gateway", http.MethodPost, "/api/connections/"+second+"/disconnect", token, map[string]any{})
		}, func(c cmtCall, key string) bool { return c.connection == first && key == "key-b" }},
		{"a service fee set (BYOK calls cost nothing without one)", func() apptest.Response {
			return h1.Do(t, "gateway", http.MethodPost, "/api/billing/byok-fee", token, map[string]any{"serviceFeeBps": 500})
		}, func(c cmtCall, _ string) bool { return c.connection == first && c.cost > 0 }},
		{"the one in use deleted", func() apptest.Response {
			return h1.Do(t, "gateway", http.MethodDelete, "/api/connections/"+first, token, nil)
		}, func(c cmtCall, _ string) bool {
			return c.connection == "sandbox:ai_provider_1" || c.connection == "platform:ai_provider_1"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var memory0 int64
			for _, h := range hs {
				m, _ := apptest.Provided[*gatewaycmd.Edge](h).ConnectionReads()
				memory0 += m
			}
			stop := make(chan struct{})
			wait := cmtLoad(hs, token, stop)
			time.Sleep(300 * time.Millisecond)
			res := tc.change()
			changed := time.Now()
			if res.Status/100 != 2 {
				close(stop)
				wait()
				t.Fatalf("the change: %d %s", res.Status, res.Body)
			}
			time.Sleep(bound + 400*time.Millisecond)
			close(stop)
			calls := wait()

			var memory int64
			for _, h := range hs {
				m, _ := apptest.Provided[*gatewaycmd.Edge](h).ConnectionReads()
				memory += m
			}
			if memory == memory0 {
				t.Fatal("no connection was answered from memory: the test does not exercise it")
			}
			provider.mu.Lock()
			defer provider.mu.Unlock()
			lastOld := map[int]time.Duration{0: -time.Hour, 1: -time.Hour}
			var before, after, late int
			for _, c := range calls {
				if c.status != http.StatusOK {
					t.Fatalf("process %d answered %d to %s", c.process+1, c.status, c.prompt)
				}
				since := c.sent.Sub(changed)
				if tc.after(c, provider.keyOf[c.prompt]) {
					if since > bound {
						after++
					}
					continue
				}
				if since < 0 {
					before++
				}
				lastOld[c.process] = max(lastOld[c.process], since)
				if since > bound {
					late++
				}
			}
			t.Logf("%d completions (%d on the old state before the change, %d on the new after the bound); last on the old state relative to the change's answer: process 1 %s, process 2 %s (bound %s)",
				len(calls), before, after, lastOld[0].Round(time.Microsecond), lastOld[1].Round(time.Microsecond), bound)
			if before == 0 || after == 0 {
				t.Fatalf("the load did not span the change (%d old before, %d new after)", before, after)
			}
			if late > 0 {
				t.Fatalf("%d completions sent more than %s after the change ran on the old state", late, bound)
			}
		})
	}
}
