package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestGatewayKillNineMetersEveryCallOnce: 8 clients stream completions
// through the gateway (the sandbox paces its deltas, so calls are in flight)
// while a meter counts their tokens toward its thresholds; platformd is
// killed with SIGKILL after 40 answered calls and started again. Then: every
// call a client saw answered has exactly one usage event, the calls the kill
// cut were settled by the sweeper at their reservation (abandoned), nothing
// stays reserved, the budget equals the usage events' cost, the meter
// counted every usage event once, and each threshold it passed was crossed
// and notified exactly once, every notification valid.
func TestGatewayKillNineMetersEveryCallOnce(t *testing.T) {
	const (
		clients   = 8
		killAfter = 40
	)
	s := NewStack(t)
	srv := s.StartServer(ServerOptions{Env: []string{
		"GATEWAY_SANDBOX_DELAY=15ms", "GATEWAY_CALL_TIMEOUT=2s", "GATEWAY_STREAM_TIMEOUT=3s",
		"GATEWAY_RESERVATION_TTL=4s", "GATEWAY_SWEEP_INTERVAL=1s", "GATEWAY_SWEEP_GRACE=5s",
	}})
	gw := srv.URL("gateway")
	expect(t, "meter", do(t, Req{Method: http.MethodPut, URL: gw + "/api/billing/meters/tokens", Key: s.APIKey,
		Body: map[string]any{"meter_key": "ai.tokens", "included_units": 3000, "thresholds": []int{10, 25, 50, 75, 100}}}), http.StatusOK)

	var answered sync.Map // request id -> true
	var successes atomic.Int32
	var killOnce sync.Once
	killed := make(chan struct{})
	client := &http.Client{Timeout: 20 * time.Second}
	stream := func(i int) {
		body := map[string]any{"stream": true, "prompt": fmt.Sprintf("call %d %s", i, strings.Repeat("word ", 20)), "max_tokens": 64}
		raw, _ := json.Marshal(body)
		req, _ := http.NewRequest(http.MethodPost, gw+"/api/ai/completions", strings.NewReader(string(raw)))
		req.Header.Set("Authorization", "Bearer "+s.APIKey)
		req.Header.Set("Content-Type", "application/json")
		res, err := client.Do(req)
		if err != nil {
			return
		}
		defer res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return
		}
		sc := bufio.NewScanner(res.Body)
		var usage struct {
			RequestID string `json:"request_id"`
			Outcome   string `json:"outcome"`
		}
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "data: {\"request_id\"") {
				_ = json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &usage)
			}
			if line == "data: [DONE]" && usage.Outcome == "ok" {
				answered.Store(usage.RequestID, true)
				if successes.Add(1) == killAfter {
					killOnce.Do(func() { srv.Kill9(); close(killed) })
				}
				return
			}
		}
	}
	var wg sync.WaitGroup
	jobs := make(chan int)
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				stream(i)
			}
		}()
	}
	for i := 0; ; i++ {
		select {
		case <-killed:
		case jobs <- i:
			continue
		}
		break
	}
	close(jobs)
	wg.Wait()
	srv.Start()
	// A few calls after the restart, so the meter sees the process again.
	for i := range 5 {
		stream(1000 + i)
	}

	pool := s.Pool()
	eventually(t, 60*time.Second, "every reservation settled", func() error {
		if n := queryInt(t, pool, `SELECT count(*) FROM gateway_reservations`); n != 0 {
			return fmt.Errorf("%d reservations open", n)
		}
		return nil
	})
	n := 0
	answered.Range(func(k, _ any) bool {
		n++
		if c := queryInt(t, pool, `SELECT count(*) FROM es_events WHERE stream_id = $1 AND event_type = 'gateway.usage.recorded'`, "usage:"+k.(string)); c != 1 {
			t.Errorf("answered call %s has %d usage events", k, c)
		}
		return true
	})
	usage := queryInt(t, pool, `SELECT count(*) FROM es_events WHERE event_type = 'gateway.usage.recorded'`)
	abandoned := queryInt(t, pool, `SELECT count(*) FROM es_events WHERE event_type = 'gateway.usage.recorded' AND payload->>'outcome' = 'abandoned'`)
	streams := queryInt(t, pool, `SELECT count(DISTINCT stream_id) FROM es_events WHERE event_type = 'gateway.usage.recorded'`)
	if streams != usage {
		t.Fatalf("%d usage events on %d streams: a call recorded twice", usage, streams)
	}
	cost := queryInt(t, pool, `SELECT COALESCE(sum((payload->>'cost_microcents')::bigint), 0) FROM es_events WHERE event_type = 'gateway.usage.recorded'`)
	settled := queryInt(t, pool, `SELECT COALESCE(sum(settled), 0) FROM gateway_budgets WHERE scope = 'organization'`)
	reserved := queryInt(t, pool, `SELECT COALESCE(sum(reserved), 0) FROM gateway_budgets`)
	if settled != cost || reserved != 0 {
		t.Fatalf("budget settled %d reserved %d; usage events cost %d", settled, reserved, cost)
	}
	tokens := queryInt(t, pool, `SELECT COALESCE(sum((payload->'units'->>'input_tokens')::bigint + (payload->'units'->>'output_tokens')::bigint), 0)
		FROM es_events WHERE event_type = 'gateway.usage.recorded'`)
	eventually(t, 60*time.Second, "the meter to count every usage event once", func() error {
		got := queryInt(t, pool, `SELECT COALESCE(sum((d.value)::bigint), 0) FROM es_events e, jsonb_each_text(e.payload->'deltas') d
			WHERE e.event_type = 'gateway.meter.consumed' AND d.key = 'tokens'`)
		consumptions := queryInt(t, pool, `SELECT count(*) FROM es_events WHERE event_type = 'gateway.meter.consumed'`)
		if got != tokens || consumptions != usage {
			return fmt.Errorf("meter consumed %d tokens in %d consumptions; usage events hold %d tokens in %d events", got, consumptions, tokens, usage)
		}
		return nil
	})
	want := 0
	for _, pct := range []int64{10, 25, 50, 75, 100} {
		if tokens >= pct*3000/100 {
			want++
		}
	}
	crossings := queryInt(t, pool, `SELECT count(*) FROM es_events WHERE event_type = 'gateway.meter.threshold_crossed'`)
	distinct := queryInt(t, pool, `SELECT count(DISTINCT payload->>'threshold_percentage') FROM es_events WHERE event_type = 'gateway.meter.threshold_crossed'`)
	if crossings != int64(want) || distinct != crossings {
		t.Fatalf("%d crossings (%d distinct), want %d for %d tokens", crossings, distinct, want, tokens)
	}
	eventually(t, 60*time.Second, "one notification per crossing", func() error {
		if n := queryInt(t, pool, `SELECT count(*) FROM notification_deliveries WHERE type = 'gateway.usage.threshold_reached'`); n != crossings {
			return fmt.Errorf("%d threshold notifications, want %d", n, crossings)
		}
		return nil
	})
	if n := queryInt(t, pool, `SELECT count(*) FROM notification_deliveries WHERE state = 'invalid'`); n != 0 {
		t.Fatalf("%d invalid notifications", n)
	}
	t.Logf("%d calls answered to clients, %d usage events (%d abandoned: cut by the kill, settled by the sweeper), %d tokens, %d crossings",
		n, usage, abandoned, tokens, crossings)
}
