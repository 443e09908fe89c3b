package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/IBM/sarama"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/commands/reactor"
	domain "github.com/platform/backend/domain/gateway"
	"github.com/platform/backend/eventstore"
)

// The settle log keeps the settles the database could not take when their
// call was answered, so that one survives the death of the process that
// held it (landings.go). It is a topic of the gateway's own, apart from its
// event topic (nothing on it is an event of a stream: no projection reads
// it), read by one reactor (SettleLanding) that lands each record through
// the settle command once the database takes it.
const (
	// SettlesContext names the log's topic (Topics.ForContext): e.g.
	// platform.gateway.settles.events.v1.
	SettlesContext = "gateway.settles"
	// SettleHeld is the type of its records.
	SettleHeld = "gateway.settle.held.v1"
	// SettleLandingReactor is the reactor that lands them (its consumer
	// group and checkpoint rows).
	SettleLandingReactor = "gateway.settle_landing"
)

// settleLogWait bounds how long an answer waits for the broker's
// acknowledgement of a held settle: with the broker out too, the settle is
// held in memory only (as before the log), and the answer goes out.
const settleLogWait = 2 * time.Second

// settleHeldV1 is a held settle: what the settle command needs besides the
// envelope's organization, actor and correlation id (the call's usage at its
// real cost, its outcome and times, and which scopes the reservation held).
type settleHeldV1 struct {
	Usage          domain.UsageRecordedV1 `json:"usage"`
	ReservedScopes []string               `json:"reserved_scopes"`
}

// SettleLog writes held settles to the log: keyed by the call's usage
// stream (one per request id), idempotent producer, acks=all.
type SettleLog struct {
	client   sarama.Client
	producer sarama.SyncProducer
	topic    string

	mu     sync.RWMutex // sends hold it shared; Close exclusively
	closed bool
}

// NewSettleLog creates the log's topic and connects its producer.
func NewSettleLog(kc eventstore.KafkaConfig) (*SettleLog, error) {
	topic := kc.Topics.ForContext(SettlesContext)
	if err := eventstore.EnsureTopics(kc, topic); err != nil {
		return nil, err
	}
	client, err := sarama.NewClient(kc.Brokers, kc.ProducerConfig())
	if err != nil {
		return nil, fmt.Errorf("gateway settle log: %w", err)
	}
	producer, err := sarama.NewSyncProducerFromClient(client)
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("gateway settle log: %w", err)
	}
	return &SettleLog{client: client, producer: producer, topic: topic}, nil
}

// Close stops the producer once the sends under way have returned (a send
// to a broker that is out returns when sarama's retries end: a stop during
// a double outage waits for them, rather than lose what they carry).
func (l *SettleLog) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.closed = true
		l.producer.Close()
		l.client.Close()
	}
}

// UseSettleLog makes held settles durable in the log (before the process
// runs). The log's reactor (SettleLanding) must run where the sweeper does.
func (h *Handlers) UseSettleLog(l *SettleLog) { h.settleLog = l }

// keepSettle writes a held settle to the settle log, under one record id
// however often it is tried; nil without a log.
func (h *Handlers) keepSettle(m commands.Meta, rec domain.UsageRecordedV1, scopes []string) func(context.Context) error {
	if h.settleLog == nil {
		return nil
	}
	id := uuid.Must(uuid.NewV7())
	return func(ctx context.Context) error { return h.settleLog.write(ctx, id, m, rec, scopes) }
}

var errSettleLogClosed = errors.New("gateway settle log: closed")

// write sends one held settle and waits for the broker's acknowledgement,
// at most settleLogWait (the send itself goes on until sarama's retries end:
// a late acknowledgement still makes the record durable, and a second copy
// of it lands nothing twice).
func (l *SettleLog) write(ctx context.Context, id uuid.UUID, m commands.Meta, rec domain.UsageRecordedV1, scopes []string) error {
	payload, err := json.Marshal(settleHeldV1{Usage: rec, ReservedScopes: scopes})
	if err != nil {
		return err
	}
	e := eventstore.Event{ID: id, Type: SettleHeld, SchemaVersion: 1, StreamType: domain.StreamUsage, StreamID: domain.UsageStreamID(rec.RequestID),
		StreamVersion: 1, OrganizationID: m.OrganizationID, Actor: m.Actor, OccurredAt: rec.OccurredAt, RecordedAt: time.Now().UTC(),
		CorrelationID: m.CorrelationID, CausationID: m.CausationID, Payload: payload}
	msg, err := e.ToMessage(l.topic)
	if err != nil {
		return err
	}
	sent := make(chan error, 1)
	go func() {
		l.mu.RLock()
		defer l.mu.RUnlock()
		if l.closed {
			sent <- errSettleLogClosed
			return
		}
		_, _, err := l.producer.SendMessage(msg)
		sent <- err
	}()
	wait := time.NewTimer(settleLogWait)
	defer wait.Stop()
	select {
	case err := <-sent:
		return err
	case <-wait.C:
		return fmt.Errorf("gateway settle log: no acknowledgement within %s", settleLogWait)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// landed tells whether every held settle written to the log so far has
// been handled by SettleLanding (landed, or refused for good and parked):
// its checkpoints have reached the log's end on every partition. Until
// then the sweeper abandons nothing, since an expired reservation may be
// one of them (sweeper.go).
func (l *SettleLog) landed(ctx context.Context, pool *pgxpool.Pool) (bool, error) {
	parts, err := l.client.Partitions(l.topic)
	if err != nil {
		return false, fmt.Errorf("gateway settle log: %w", err)
	}
	ends := map[int32]int64{}
	for _, p := range parts {
		end, err := l.client.GetOffset(l.topic, p, sarama.OffsetNewest)
		if err != nil {
			return false, fmt.Errorf("gateway settle log: %w", err)
		}
		if end > 0 {
			ends[p] = end
		}
	}
	if len(ends) == 0 {
		return true, nil
	}
	rows, err := pool.Query(ctx, `SELECT partition, next_offset FROM reactor_checkpoints WHERE reactor = $1 AND topic = $2`,
		SettleLandingReactor, l.topic)
	if err != nil {
		return false, dbError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var p int32
		var next int64
		if err := rows.Scan(&p, &next); err != nil {
			return false, dbError(err)
		}
		if next >= ends[p] {
			delete(ends, p)
		}
	}
	if err := rows.Err(); err != nil {
		return false, dbError(err)
	}
	return len(ends) == 0, nil
}

// SettleLanding is the reactor that lands the settle log's records: each
// through the settle command, whose stream (one per request id) takes a
// call's usage once, so a settle its process landed meanwhile, or a record
// read twice, appends nothing. An outage is waited out (the reactor
// kernel), so its checkpoint passes a record only once it landed.
type SettleLanding struct{ h *Handlers }

var _ reactor.Reactor = SettleLanding{}

// SettleLanding returns the reactor.
func (h *Handlers) SettleLanding() SettleLanding { return SettleLanding{h: h} }

func (SettleLanding) Name() string       { return SettleLandingReactor }
func (SettleLanding) Contexts() []string { return []string{SettlesContext} }
func (SettleLanding) Types() []string    { return []string{SettleHeld} }

func (r SettleLanding) React(ctx context.Context, e eventstore.Event) error {
	held, err := eventstore.Decode[settleHeldV1](e)
	if err != nil {
		return err
	}
	m := commands.Meta{OrganizationID: e.OrganizationID, Actor: e.Actor, CorrelationID: e.CorrelationID, CausationID: e.CausationID}
	appended, err := r.h.settle(ctx, m, held.Usage, held.ReservedScopes)
	if err == nil && appended {
		r.h.log.Info("gateway: a held settle landed from the settle log", "request_id", held.Usage.RequestID)
	}
	return err
}
