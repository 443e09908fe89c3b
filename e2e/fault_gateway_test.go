package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// gatewayReceipt is what a client was answered for one call: the gateway's
// request id and what it said the call cost.
type gatewayReceipt struct {
	RequestID string  `json:"request_id"`
	CostCents float64 `json:"cost_cents"`
	Estimated bool    `json:"estimated"` // a success that reported no usage is charged its estimate, and says so
	Outcome   string  `json:"outcome"`
}

// gatewayLoad drives AI calls through the gateway, each under its own
// Idempotency-Key and retried with it until a 2xx answers.
type gatewayLoad struct {
	t      *testing.T
	url    string
	key    string
	client *http.Client
	// impatient gives up on a first attempt after 60 ms: its call goes on
	// at the gateway, and the retry under its key must get that call's
	// answer (409 while it runs), never pay for a second one.
	impatient *http.Client

	requests, replayed, transport atomic.Int64
	mu                            sync.Mutex
	byStatus                      map[int]int
	receipts                      map[string]gatewayReceipt // Idempotency-Key -> the answer's receipt
	sent                          map[string]gatewaySent    // Idempotency-Key -> what was sent under it
}

// gatewaySent is one call as its client sent it.
type gatewaySent struct {
	path string
	body map[string]any
}

// call sends one call until a 2xx answers it (the first attempt with
// first); it reports whether one did.
func (l *gatewayLoad) call(ctx context.Context, first *http.Client, key, path string, body map[string]any) bool {
	c := first
	for ctx.Err() == nil {
		l.requests.Add(1)
		res, err := send(ctx, c, Req{Method: http.MethodPost, URL: l.url + path, Key: l.key,
			Headers: map[string]string{"Idempotency-Key": key}, Body: body})
		c = l.client
		if err != nil {
			l.transport.Add(1)
			sleepCtx(ctx, 100*time.Millisecond)
			continue
		}
		l.mu.Lock()
		l.byStatus[res.Status]++
		l.mu.Unlock()
		if res.Status >= 200 && res.Status < 300 {
			r, err := receiptOf(res)
			if err != nil {
				l.t.Errorf("%s (key %s): %v: %s", path, key, err, res)
				return false
			}
			if res.Header.Get("Idempotent-Replayed") == "true" {
				l.replayed.Add(1)
			}
			l.mu.Lock()
			l.receipts[key], l.sent[key] = r, gatewaySent{path: path, body: body}
			l.mu.Unlock()
			return true
		}
		if res.Status < 500 && res.Status != http.StatusConflict && res.Status != http.StatusTooManyRequests {
			l.t.Errorf("%s (key %s): %s", path, key, res)
			return false
		}
		sleepCtx(ctx, 100*time.Millisecond)
	}
	return false
}

// receiptOf reads a call's receipt: the body of a whole answer, the usage
// event of a streamed one (which must have ended with [DONE]).
func receiptOf(res Response) (gatewayReceipt, error) {
	var r gatewayReceipt
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		err := json.Unmarshal(res.Body, &r)
		return r, err
	}
	if !bytes.HasSuffix(res.Body, []byte("data: [DONE]\n\n")) {
		return r, fmt.Errorf("a stream without [DONE]")
	}
	_, usage, ok := bytes.Cut(res.Body, []byte("event: usage\ndata: "))
	if !ok {
		return r, fmt.Errorf("a stream without its usage")
	}
	line, _, _ := bytes.Cut(usage, []byte("\n"))
	err := json.Unmarshal(line, &r)
	return r, err
}

// gatewayRetriesUnderDatabaseStop (issue 18): AI calls (completions whole
// and streamed, embeddings), each under its Idempotency-Key and retried
// until 2xx (a quarter of them given up by their client after 60 ms at
// first), while PostgreSQL stops for longer than a reservation lives.
// Calls answered in the dark settle once the database is back, at their
// real cost. Then every answered call is charged exactly once at what its
// answer said: one usage event per receipt (outcome ok, the receipt's
// cost), no usage event of a retry, the budget (the ledger) and the daily
// snapshot equal to the usage events, nothing left reserved, and every
// key replays its answer.
func gatewayRetriesUnderDatabaseStop(t *testing.T) {
	const clients = 6
	infra := faultStack(t)
	s := infra.NewStack(t)
	srv := s.StartServer(ServerOptions{Env: []string{
		"GATEWAY_SANDBOX_DELAY=20ms", // streams in flight when the database stops
		"GATEWAY_CALL_TIMEOUT=2s", "GATEWAY_STREAM_TIMEOUT=3s",
		"GATEWAY_RESERVATION_TTL=4s", "GATEWAY_SWEEP_INTERVAL=500ms", "GATEWAY_SWEEP_GRACE=6s",
	}})
	l := &gatewayLoad{t: t, url: srv.URL("gateway"), key: s.APIKey, byStatus: map[int]int{}, receipts: map[string]gatewayReceipt{},
		sent: map[string]gatewaySent{}, client: &http.Client{Timeout: 15 * time.Second}, impatient: &http.Client{Timeout: 60 * time.Millisecond}}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pace := time.NewTicker(250 * time.Millisecond)
			defer pace.Stop()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				case <-pace.C:
				}
				key := fmt.Sprintf("gw-fault-%d-%d", c, n)
				words := strings.Repeat(fmt.Sprintf("word%d ", n), 4+n%7)
				first := l.client
				if n%4 == 1 {
					first = l.impatient
				}
				var ok bool
				switch n % 3 {
				case 0:
					ok = l.call(ctx, first, key, "/api/ai/completions", map[string]any{"prompt": words, "max_tokens": 64})
				case 1:
					ok = l.call(ctx, first, key, "/api/ai/completions", map[string]any{"prompt": words, "max_tokens": 64, "stream": true})
				default:
					ok = l.call(ctx, first, key, "/api/ai/embeddings", map[string]any{"input": words})
				}
				if !ok {
					return
				}
			}
		}()
	}
	time.Sleep(2 * time.Second)
	down := infra.StopPostgres(t)
	time.Sleep(5 * time.Second) // past the reservations' 4 s
	up := infra.StartPostgres(t)
	t.Logf("postgres: stop took %s, start %s", down.Round(time.Millisecond), up.Round(time.Millisecond))
	time.Sleep(4 * time.Second)
	close(stop)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	pool := s.Pool()
	eventually(t, 60*time.Second, "every reservation settled and every key answered or free", func() error {
		if n := queryInt(t, pool, `SELECT count(*) FROM gateway_reservations`); n != 0 {
			return fmt.Errorf("%d reservations open", n)
		}
		if n := queryInt(t, pool, `SELECT count(*) FROM gateway_idempotency WHERE state = 'running'`); n != 0 {
			return fmt.Errorf("%d keys still running", n)
		}
		return nil
	})
	type usage struct {
		outcome   string
		cost      int64
		estimated bool
	}
	events := map[string]usage{}
	rows, err := pool.Query(context.Background(), `SELECT payload->>'request_id', payload->>'outcome', (payload->>'cost_microcents')::bigint,
		(payload->>'estimated')::boolean FROM es_events WHERE event_type = 'gateway.usage.recorded'`)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for rows.Next() {
		var id string
		var u usage
		if err := rows.Scan(&id, &u.outcome, &u.cost, &u.estimated); err != nil {
			t.Fatal(err)
		}
		if _, twice := events[id]; twice {
			t.Errorf("call %s has two usage events", id)
		}
		events[id] = u
		total++
	}
	rows.Close()
	answered := map[string]bool{}
	var receiptSum float64
	for key, r := range l.receipts {
		answered[r.RequestID] = true
		receiptSum += r.CostCents
		u, ok := events[r.RequestID]
		switch {
		case !ok:
			t.Errorf("key %s: the answered call %s has no usage event", key, r.RequestID)
		case u.outcome != "ok" || r.Outcome != "ok" || u.estimated != r.Estimated || math.Abs(float64(u.cost)/1e6-r.CostCents) > 1e-9:
			t.Errorf("key %s: answered %+v, recorded outcome %s, cost %d micro-cents, estimated %v", key, r, u.outcome, u.cost, u.estimated)
		}
	}
	// A usage event no client was answered for is a provider call paid twice
	// (a retry that called again), unless it is the sweeper's record of a
	// reservation whose call never started (its commit's reply lost in the
	// stop, the call refused 503): over-counted at its estimate, and no
	// answer claims it.
	var unanswered, cost int64
	for id, u := range events {
		cost += u.cost
		if answered[id] {
			continue
		}
		if u.outcome != "abandoned" {
			t.Errorf("usage event of call %s (outcome %s, cost %d) answers no client: a retry paid twice", id, u.outcome, u.cost)
		}
		unanswered++
	}
	// The calls answered while the database was out: settled once it was
	// back (recorded well after the call's own clock stamped its usage).
	dark := queryInt(t, pool, `SELECT count(*) FROM es_events WHERE event_type = 'gateway.usage.recorded'
		AND recorded_at - (payload->>'occurred_at')::timestamptz > interval '1 second'`)
	if dark == 0 || l.replayed.Load() == 0 {
		t.Errorf("%d calls answered while the database was out, %d answers replayed: the scenario proved nothing", dark, l.replayed.Load())
	}
	settled := queryInt(t, pool, `SELECT COALESCE(sum(settled), 0) FROM gateway_budgets WHERE scope = 'organization'`)
	reserved := queryInt(t, pool, `SELECT COALESCE(sum(reserved), 0) FROM gateway_budgets`)
	if settled != cost || reserved != 0 {
		t.Errorf("ledger: settled %d, reserved %d; the usage events cost %d", settled, reserved, cost)
	}
	eventually(t, faultConvergeWithin, "the daily snapshot to count every usage event", func() error {
		res, err := send(context.Background(), httpClient, Req{Method: http.MethodGet, URL: srv.URL("gateway") + "/api/usage/snapshots/daily?days=1", Key: s.APIKey})
		if err != nil || res.Status != http.StatusOK {
			return fmt.Errorf("snapshot: %v %s", err, res)
		}
		var snap struct {
			Days []struct {
				Calls     int64   `json:"calls"`
				Failures  int64   `json:"failures"`
				CostCents float64 `json:"cost_cents"`
			} `json:"days"`
		}
		if err := json.Unmarshal(res.Body, &snap); err != nil || len(snap.Days) != 1 {
			return fmt.Errorf("snapshot %s", res)
		}
		d := snap.Days[0]
		if d.Calls != int64(total) || d.Failures != unanswered || math.Abs(d.CostCents-float64(cost)/1e6) > 1e-6 {
			return fmt.Errorf("snapshot %+v; usage events: %d calls, %d abandoned, %d micro-cents", d, total, unanswered, cost)
		}
		return nil
	})
	// Every key answers its call again: the same call, replayed.
	for key, r := range l.receipts {
		c := l.sent[key]
		res := do(t, Req{Method: http.MethodPost, URL: l.url + c.path, Key: l.key, Headers: map[string]string{"Idempotency-Key": key}, Body: c.body})
		again, err := receiptOf(res)
		if res.Status != http.StatusOK || err != nil || res.Header.Get("Idempotent-Replayed") != "true" || again != r {
			t.Errorf("key %s answered again %s (%v): receipt %+v, first %+v", key, res, err, again, r)
		}
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM es_events WHERE event_type = 'gateway.usage.recorded'`); n != int64(total) {
		t.Errorf("the replays recorded %d usage events", n-int64(total))
	}
	var codes []string
	for code, n := range l.byStatus {
		codes = append(codes, fmt.Sprintf("%d:%d", code, n))
	}
	t.Logf("gateway calls through a database stop: %d keys answered (%d answers were replays), %d requests (%s), %d transport errors; "+
		"%d usage events (%d of calls answered while the database was out, settled after it), %d abandoned reservations no client "+
		"was answered for; answers %.4f cents, ledger %.4f cents",
		len(l.receipts), l.replayed.Load(), l.requests.Load(), strings.Join(codes, " "), l.transport.Load(), total, dark, unanswered,
		receiptSum, float64(settled)/1e6)
}

// gatewaySettlesOutliveKill9: streamed completions are in flight when
// PostgreSQL stops, so they are answered while it is out (their settles
// held); platformd is then killed (-9) before the database is back, and
// started again after the reservations expired. Every answered call is
// still recorded once at what its answer said (outcome ok, the receipt's
// cost), never abandoned at its reservation: its settle was in the
// gateway's settle log (Kafka) before the answer went out, and the new
// process lands it from there before its sweeper abandons anything.
func gatewaySettlesOutliveKill9(t *testing.T) {
	const clients = 6
	infra := faultStack(t)
	s := infra.NewStack(t)
	srv := s.StartServer(ServerOptions{Env: []string{
		"GATEWAY_SANDBOX_DELAY=100ms", // a stream of a dozen words runs about a second
		"GATEWAY_CALL_TIMEOUT=2s", "GATEWAY_STREAM_TIMEOUT=3s",
		"GATEWAY_RESERVATION_TTL=4s", "GATEWAY_SWEEP_INTERVAL=500ms", "GATEWAY_SWEEP_GRACE=6s",
	}})
	client := &http.Client{Timeout: 15 * time.Second}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	receipts := map[string]gatewayReceipt{} // request id -> the answer's receipt
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for n := 0; ctx.Err() == nil; n++ {
				words := strings.Repeat(fmt.Sprintf("c%dw%d ", c, n), 10)
				res, err := send(ctx, client, Req{Method: http.MethodPost, URL: srv.URL("gateway") + "/api/ai/completions", Key: s.APIKey,
					Body: map[string]any{"prompt": words, "max_tokens": 64, "stream": true}})
				if err != nil || res.Status != http.StatusOK {
					sleepCtx(ctx, 100*time.Millisecond)
					continue
				}
				r, err := receiptOf(res)
				if err != nil {
					continue // cut by the test's end
				}
				mu.Lock()
				receipts[r.RequestID] = r
				mu.Unlock()
			}
		})
	}
	time.Sleep(2 * time.Second)
	infra.StopPostgres(t)
	time.Sleep(3 * time.Second) // the streams in flight answer in the dark
	cancel()
	wg.Wait()
	srv.Kill9()                 // with the settles of those calls held in its memory
	time.Sleep(5 * time.Second) // past the reservations' 4 s
	infra.StartPostgres(t)
	srv.Start()

	pool := s.Pool()
	eventually(t, 90*time.Second, "every reservation settled", func() error {
		if n := queryInt(t, pool, `SELECT count(*) FROM gateway_reservations`); n != 0 {
			return fmt.Errorf("%d reservations open", n)
		}
		return nil
	})
	type usage struct {
		outcome string
		cost    int64
	}
	events := map[string]usage{}
	rows, err := pool.Query(context.Background(), `SELECT payload->>'request_id', payload->>'outcome', (payload->>'cost_microcents')::bigint
		FROM es_events WHERE event_type = 'gateway.usage.recorded'`)
	if err != nil {
		t.Fatal(err)
	}
	var cost int64
	for rows.Next() {
		var id string
		var u usage
		if err := rows.Scan(&id, &u.outcome, &u.cost); err != nil {
			t.Fatal(err)
		}
		if _, twice := events[id]; twice {
			t.Errorf("call %s has two usage events", id)
		}
		events[id] = u
		cost += u.cost
	}
	rows.Close()
	for id, r := range receipts {
		u, ok := events[id]
		switch {
		case !ok:
			t.Errorf("the answered call %s has no usage event", id)
		case u.outcome != "ok" || r.Outcome != "ok" || math.Abs(float64(u.cost)/1e6-r.CostCents) > 1e-9:
			t.Errorf("call %s: answered %+v, recorded outcome %s at %d micro-cents", id, r, u.outcome, u.cost)
		}
	}
	// The calls answered while the database was out: recorded after the
	// restart, well after their own clock stamped their usage.
	dark := queryInt(t, pool, `SELECT count(*) FROM es_events WHERE event_type = 'gateway.usage.recorded'
		AND payload->>'outcome' = 'ok' AND recorded_at - (payload->>'occurred_at')::timestamptz > interval '5 seconds'`)
	if dark == 0 {
		t.Errorf("no call was answered while the database was out: the scenario proved nothing")
	}
	settled := queryInt(t, pool, `SELECT COALESCE(sum(settled), 0) FROM gateway_budgets WHERE scope = 'organization'`)
	reserved := queryInt(t, pool, `SELECT COALESCE(sum(reserved), 0) FROM gateway_budgets`)
	if settled != cost || reserved != 0 {
		t.Errorf("ledger: settled %d, reserved %d; the usage events cost %d", settled, reserved, cost)
	}
	t.Logf("gateway settles through a database stop and a kill -9: %d calls answered, %d usage events, %d of calls answered in the dark "+
		"landed from the settle log after the restart", len(receipts), len(events), dark)
}
