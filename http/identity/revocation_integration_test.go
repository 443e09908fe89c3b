package identity_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/module"
	identitymod "github.com/platform/backend/internal/modules/identity"
)

// Helpers of this file are prefixed rvt (revocation test).

// rvtCall is one validation of the load: when it was sent, by which
// process, with which credential, and what it got.
type rvtCall struct {
	sent    time.Time
	process int
	token   string
	status  int
}

// rvtLoad validates the tokens over HTTP on every process, from a few
// clients each, until stop is closed.
func rvtLoad(t *testing.T, hs []*apptest.Harness, tokens []string, stop <-chan struct{}) func() []rvtCall {
	t.Helper()
	var mu sync.Mutex
	var calls []rvtCall
	var wg sync.WaitGroup
	for p, h := range hs {
		for c := range 3 {
			client := &http.Client{Timeout: 10 * time.Second}
			token := tokens[c%len(tokens)]
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					req, _ := http.NewRequest(http.MethodPost, h.URLs["identity"]+"/validate", nil)
					req.Header.Set("Authorization", "Bearer "+token)
					sent := time.Now()
					status := 0
					if resp, err := client.Do(req); err == nil {
						status = resp.StatusCode
						resp.Body.Close()
					}
					mu.Lock()
					calls = append(calls, rvtCall{sent: sent, process: p, token: token, status: status})
					mu.Unlock()
				}
			})
		}
	}
	return func() []rvtCall { wg.Wait(); return calls }
}

// rvtMemoryReads is the heads both processes' watches answered from memory.
func rvtMemoryReads(t *testing.T) float64 {
	t.Helper()
	families, err := prometheus.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "platform_head_watch_reads_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "source" && l.GetValue() == "memory" {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// TestRevocationUnderLoadOnEveryProcess: two processes on one database
// validate credentials from memory (their head watches), under load, while a
// key is revoked, a session logs out, and a member (with a session and a
// key of their own) is removed, each through the first process. Every
// validation sent on either process later than the configured bound after
// the change was answered must be refused: none may be accepted. The lag
// each process showed is logged.
func TestRevocationUnderLoadOnEveryProcess(t *testing.T) {
	h1 := apptest.Start(t, apptest.Options{})
	h2 := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		c.DatabaseURL, c.Kafka.Topics = h1.Config.DatabaseURL, h1.Config.Kafka.Topics
	}})
	hs := []*apptest.Harness{h1, h2}
	bound := module.SectionOf[*identitymod.Config](h1.Config.Modules).HeadWatch.Bound
	if bound <= 0 {
		t.Fatalf("the head watch is off (bound %s)", bound)
	}
	owner := iatRegister(t, h1, "revoke")
	_, memEmail, memPassword := iatCreateUser(t, h1, owner.Access, "admin")
	member := iatLoginEventually(t, h1, memEmail, memPassword)
	memberKey := aktCreate(t, h1, member.AccessToken, "status", "status:read")
	ownerKey := aktCreate(t, h1, owner.Access, "status", "status:read")
	second := iatLoginEventually(t, h1, owner.Email, owner.Password)

	for _, tc := range []struct {
		name   string
		tokens []string
		change func() apptest.Response
	}{
		{"API key revoked", []string{ownerKey.Token}, func() apptest.Response { return aktRevoke(t, h1, owner.Access, ownerKey.KeyID) }},
		{"session logged out", []string{second.AccessToken}, func() apptest.Response {
			return h1.Do(t, "identity", http.MethodPost, "/logout", second.AccessToken, nil)
		}},
		{"member removed: their session and the key they created", []string{member.AccessToken, memberKey.Token}, func() apptest.Response {
			return h1.Do(t, "identity", http.MethodDelete, "/api/organizations/"+owner.OrgID+"/members/"+member.UserID, owner.Access, nil)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, h := range hs {
				for _, tok := range tc.tokens {
					if status, _ := iatValidate(t, h, tok); status != http.StatusOK {
						t.Fatalf("before the change: %d", status)
					}
				}
			}
			memory0 := rvtMemoryReads(t)
			stop := make(chan struct{})
			wait := rvtLoad(t, hs, tc.tokens, stop)
			time.Sleep(300 * time.Millisecond)
			res := tc.change()
			changed := time.Now()
			if res.Status != http.StatusOK {
				close(stop)
				wait()
				t.Fatalf("the change: %d %s", res.Status, res.Body)
			}
			time.Sleep(bound + 400*time.Millisecond)
			close(stop)
			calls := wait()

			if rvtMemoryReads(t) == memory0 {
				t.Fatal("no head was answered from memory: the test does not exercise the watch")
			}
			lastAccepted := map[int]time.Duration{0: -time.Hour, 1: -time.Hour}
			var before, after, late int
			for _, c := range calls {
				since := c.sent.Sub(changed)
				switch c.status {
				case http.StatusOK:
					if since < 0 {
						before++
					}
					lastAccepted[c.process] = max(lastAccepted[c.process], since)
					if since > bound {
						late++
					}
				case http.StatusUnauthorized:
					if since > bound {
						after++
					}
				default:
					t.Fatalf("process %d answered %d", c.process+1, c.status)
				}
			}
			t.Logf("%d validations (%d accepted before the change, %d refused after the bound); last accepted relative to the change's answer: process 1 %s, process 2 %s (bound %s)",
				len(calls), before, after, lastAccepted[0].Round(time.Microsecond), lastAccepted[1].Round(time.Microsecond), bound)
			if before == 0 || after == 0 {
				t.Fatalf("the load did not span the change (%d accepted before, %d refused after)", before, after)
			}
			if late > 0 {
				t.Fatalf("%d validations sent more than %s after the change were accepted", late, bound)
			}
		})
	}
}
