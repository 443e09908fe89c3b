package gateway_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/jackc/pgx/v5/pgxpool"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/providers/ai"
)

// TestThresholdsExactlyOnce: concurrent calls through a meter's thresholds
// cross each once (one crossing event, one notification with its key, each
// valid against gateway.usage.threshold_reached); a replay of the meters
// reactor's consumer group and of the notification projection from offset
// zero in a new process adds nothing.
func TestThresholdsExactlyOnce(t *testing.T) {
	h := start(t)
	fake(t, h, ai.Provider1)
	apptest.Must(t, h.Do(t, "gateway", http.MethodPut, "/api/billing/meters/tokens", "", map[string]any{"meter_key": "ai.tokens",
		"included_units": 200, "thresholds": []int{25, 50, 75, 100}}), http.StatusOK, "meter")
	// A soft cap's thresholds take the same path.
	apptest.Must(t, post(t, h, "/api/billing/spend-caps", "", map[string]any{"scopeType": "organization", "monthlyCapCents": 1,
		"capMode": "soft", "notifyThresholds": []float64{1, 1.5}}), http.StatusOK, "soft cap")
	const calls = 40
	var wg sync.WaitGroup
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := post(t, h, "/api/ai/completions", "", map[string]any{"prompt": fmt.Sprintf("call %d of the meter test", i)})
			if res.Status != http.StatusOK {
				t.Errorf("call %d: %d %s", i, res.Status, res.Body)
			}
		}()
	}
	wg.Wait()
	tokens := h.Count(t, `SELECT sum((payload->'units'->>'input_tokens')::bigint + (payload->'units'->>'output_tokens')::bigint)
		FROM es_events WHERE organization_id = $1 AND event_type = 'gateway.usage.recorded'`, h.OrgID)
	var meters struct {
		Meters []struct {
			Consumed int64 `json:"consumed_units"`
			Crossed  []int `json:"crossed_thresholds"`
		} `json:"meters"`
	}
	apptest.Eventually(t, 60*time.Second, "the meter to count every call", func() bool {
		get(t, h, "/api/billing/meters", "").JSON(t, &meters)
		return len(meters.Meters) == 1 && meters.Meters[0].Consumed == tokens
	})
	if tokens < 200 || len(meters.Meters[0].Crossed) != 4 {
		t.Fatalf("%d tokens, crossed %v", tokens, meters.Meters[0].Crossed)
	}
	expect := func(h *apptest.Harness, when string) {
		t.Helper()
		crossings := h.Count(t, `SELECT count(*) FROM es_events WHERE organization_id = $1 AND event_type = 'gateway.meter.threshold_crossed'`, h.OrgID)
		consumed := h.Count(t, `SELECT count(*) FROM es_events WHERE organization_id = $1 AND event_type = 'gateway.meter.consumed'`, h.OrgID)
		if crossings != 6 || consumed != calls {
			t.Fatalf("%s: %d crossings (want 4 of the meter, 2 of the soft cap), %d consumptions (want %d)", when, crossings, consumed, calls)
		}
		apptest.Eventually(t, 30*time.Second, "6 threshold notifications", func() bool {
			return h.Count(t, `SELECT count(*) FROM notification_deliveries WHERE organization_id = $1 AND type = 'gateway.usage.threshold_reached'`, h.OrgID) == 6
		})
		if n := h.Count(t, `SELECT count(*) FROM notification_deliveries WHERE state = 'invalid'`); n != 0 {
			t.Fatalf("%s: %d invalid notifications", when, n)
		}
	}
	expect(h, "live")

	// Replay: the reactor's group and the notification projection from the
	// start, in a new process on the same database and topics.
	end := topicEnd(t, h, "gateway")
	h.Stop()
	pool, err := pgxpool.New(context.Background(), h.Config.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{`DELETE FROM reactor_checkpoints WHERE reactor = 'gateway.meters'`,
		`DELETE FROM proj_checkpoints WHERE projection = 'notifications'`, `DELETE FROM proj_stream_versions WHERE projection = 'notifications'`} {
		if _, err := pool.Exec(context.Background(), sql); err != nil {
			t.Fatal(err)
		}
	}
	pool.Close()
	h2 := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		c.DatabaseURL, c.Kafka.Topics = h.Config.DatabaseURL, h.Config.Kafka.Topics
	}})
	h2.OrgID = h.OrgID
	caughtUp(t, h2, "reactor_checkpoints", "reactor", gatewaycmd.MetersReactor, end)
	caughtUp(t, h2, "proj_checkpoints", "projection", "notifications", end)
	expect(h2, "after the replay")
}

// topicEnd is a context topic's end offset per partition.
func topicEnd(t *testing.T, h *apptest.Harness, context string) map[int32]int64 {
	t.Helper()
	client, err := sarama.NewClient(h.Config.Kafka.Brokers, h.Config.Kafka.SaramaConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	topic := h.Config.Kafka.Topics.ForContext(context)
	parts, err := client.Partitions(topic)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int32]int64{}
	for _, p := range parts {
		if out[p], err = client.GetOffset(topic, p, sarama.OffsetNewest); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// caughtUp waits until a consumer's checkpoints reach end on the gateway
// topic's partitions that hold events.
func caughtUp(t *testing.T, h *apptest.Harness, table, column, name string, end map[int32]int64) {
	t.Helper()
	topic := h.Config.Kafka.Topics.ForContext("gateway")
	apptest.Eventually(t, 60*time.Second, name+" to reach the end of the gateway topic", func() bool {
		for p, n := range end {
			if n == 0 {
				continue
			}
			var next int64
			if err := h.App.Pool.QueryRow(context.Background(), `SELECT max(next_offset) FROM `+table+` WHERE `+column+` = $1
				AND topic = $2 AND partition = $3`, name, topic, p).Scan(&next); err != nil || next < n {
				return false
			}
		}
		return true
	})
}

// TestSoftCapThresholdsAtFractionalCents (issue #18): a soft cap of 1.9
// cents notifies 50% when the spend reaches 0.95 cents and 100% at 1.9,
// through real calls (images at 0.11 cents each: the 9th and the 18th
// cross), and each gateway.usage.threshold_reached is truthful: included
// units are the cap in micro-cents, consumed units the spend at the
// crossing, at or past the threshold and short of it one call before.
// Before, the cap was floored to one cent: 50% and 100% both fired by 55%
// of the cap, reading "0 of 1 included units" and "1 of 1".
func TestSoftCapThresholdsAtFractionalCents(t *testing.T) {
	h := start(t)
	fake(t, h, ai.Provider5)
	res := post(t, h, "/api/billing/spend-caps", "", map[string]any{"scopeType": "organization", "monthlyCapCents": 1.9,
		"capMode": "soft", "notifyThresholds": []float64{50, 100}})
	apptest.Must(t, res, http.StatusOK, "soft cap")
	var caps struct {
		Caps []struct {
			ID string `json:"id"`
		} `json:"caps"`
	}
	res.JSON(t, &caps)
	const perCall, included = 110_000, 1_900_000 // micro-cents
	for i := range 18 {
		res := post(t, h, "/api/ai/images", "", map[string]any{"prompt": fmt.Sprintf("image %d of the soft cap test", i), "provider": "ai_provider_5"})
		apptest.Must(t, res, http.StatusOK, "image")
		var r struct {
			CostCents float64 `json:"cost_cents"`
		}
		res.JSON(t, &r)
		if r.CostCents != float64(perCall)/1e6 {
			t.Fatalf("an image cost %v cents, the test counts on %v", r.CostCents, float64(perCall)/1e6)
		}
	}
	got := h.Notifications(t, h.OrgID, "gateway.usage.threshold_reached", 2)
	want := map[float64]float64{50: 9 * perCall, 100: 18 * perCall} // the spend once the 9th and the 18th call counted
	for key, data := range got {
		pct, _ := data["threshold_percentage"].(float64)
		consumed, _ := data["consumed_units"].(float64)
		if data["meter_id"] != "cap:"+caps.Caps[0].ID || data["included_units"] != float64(included) || consumed != want[pct] {
			t.Fatalf("%s: %v; want %v%% at %v of %d micro-cents", key, data, pct, want[pct], included)
		}
		if consumed*100 < pct*included || (consumed-perCall)*100 >= pct*included {
			t.Fatalf("%s: crossed %v%% at %v micro-cents of %d", key, pct, consumed, included)
		}
		t.Logf("%s: %s", key, data["body"])
	}
	if len(got) != 2 {
		t.Fatalf("%d notifications: %v", len(got), got)
	}
}
