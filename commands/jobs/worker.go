package jobs

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/IBM/sarama"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/jobs"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/retry"
)

// Config tunes the job workers; zero values take the defaults.
type Config struct {
	Kafka eventstore.KafkaConfig
	// ReadAhead is how many queued jobs a worker process holds from the log
	// to choose from by priority (JOBS_READ_AHEAD, default 1000): the
	// priority order holds among them. Their offsets are committed only once
	// they are claimed, so a worker that dies loses none.
	ReadAhead int
	// ProgressInterval: a running attempt's progress is recorded at most
	// this often (default 1s).
	ProgressInterval time.Duration
	// RecordTimeout bounds the recording of an attempt's outcome, outages
	// waited out within it (default 30s); past it, the lease runs out and
	// the probe settles the attempt.
	RecordTimeout time.Duration
}

func (c Config) WithDefaults() Config {
	c.Kafka = c.Kafka.WithDefaults()
	if c.ReadAhead == 0 {
		c.ReadAhead = 1000
	}
	if c.ProgressInterval == 0 {
		c.ProgressInterval = time.Second
	}
	if c.RecordTimeout == 0 {
		c.RecordTimeout = 30 * time.Second
	}
	return c
}

func (c Config) Validate() error {
	if c.ReadAhead < 1 || c.ProgressInterval <= 0 || c.RecordTimeout <= 0 {
		return errors.New("jobs: read-ahead, progress interval and record timeout must be positive")
	}
	return nil
}

// Worker runs one context's jobs in this process: a member of the
// context's consumer group ("jobs.<context>") on its topic, which reads the
// jobs requested and requeued there, holds them by kind and priority, and
// claims and runs them with each kind's concurrency; and the context's job
// timers (retries, reconciliation).
type Worker struct {
	context string
	kinds   map[string]*kind
	cfg     Config
	log     *slog.Logger
	types   domain.Types

	mu      sync.Mutex
	queues  map[string]*queue
	held    int
	space   chan struct{}                 // a held job left
	running map[string]context.CancelFunc // by job stream id
	seq     uint64
	group   string // a suffix of the group id (tests only)
}

// NewWorker makes the worker of a context's kinds.
func NewWorker(contextName string, kinds []Kind, cfg Config, log *slog.Logger) (*Worker, error) {
	cfg = cfg.WithDefaults()
	if err := errors.Join(cfg.Validate(), cfg.Kafka.Validate()); err != nil {
		return nil, err
	}
	w := &Worker{context: contextName, kinds: map[string]*kind{}, cfg: cfg, log: log.With("jobs", contextName), types: domain.TypesOf(contextName),
		queues: map[string]*queue{}, space: make(chan struct{}, 1), running: map[string]context.CancelFunc{}}
	for _, kd := range kinds {
		k := kd.kind()
		if k.context != contextName {
			return nil, fmt.Errorf("jobs: kind %s is not of context %s", k.name, contextName)
		}
		if w.kinds[k.name] != nil {
			return nil, fmt.Errorf("jobs: kind %s is declared twice", k.name)
		}
		w.kinds[k.name] = k
		w.queues[k.name] = &queue{ready: make(chan struct{}, 1)}
	}
	if len(w.kinds) == 0 {
		return nil, fmt.Errorf("jobs: context %s declares no kind", contextName)
	}
	for _, k := range w.kinds {
		k.cmds.onQueued(contextName, w.enqueue)
	}
	return w, nil
}

// enqueue holds a job this process left queued (requested, retried,
// requeued), so a worker here claims it without waiting for its record on
// the log; the record, read later here or by another worker, then finds
// the version moved on. Not bounded by ReadAhead: the process made it.
func (w *Worker) enqueue(j domain.Job, version int64) {
	if w.kinds[j.Kind] == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seq++
	w.held++
	q := w.queues[j.Kind]
	heap.Push(q, &item{job: j, version: version, seq: w.seq})
	signal(q.ready)
	held.WithLabelValues(w.context).Set(float64(w.held))
}

// GroupID is the consumer group of the context's workers.
func (w *Worker) GroupID() string { return w.cfg.Kafka.Topics.Group("jobs." + w.context + w.group) }

// Stats is what the worker holds and runs now (its health route shows it).
type Stats struct {
	Held    int `json:"held"`
	Running int `json:"running"`
}

func (w *Worker) Stats() Stats {
	w.mu.Lock()
	defer w.mu.Unlock()
	return Stats{Held: w.held, Running: len(w.running)}
}

// Run consumes and runs jobs until ctx ends, then waits for the attempts
// in flight (their Do sees ctx end).
func (w *Worker) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	for _, k := range w.kinds {
		for range k.concurrency {
			wg.Go(func() {
				for {
					it := w.next(ctx, k.name)
					if it == nil {
						return
					}
					w.handle(ctx, k, it)
				}
			})
		}
	}
	w.consume(ctx)
	wg.Wait()
	return nil
}

func (w *Worker) consume(ctx context.Context) {
	cfg := w.cfg.Kafka.ConsumerGroupConfig()
	group, err := sarama.NewConsumerGroup(w.cfg.Kafka.Brokers, w.GroupID(), cfg)
	for err != nil {
		w.log.Warn("jobs: consumer group", "err", err) // the broker may be down at start
		if !retry.Sleep(ctx, 5*time.Second) {
			return
		}
		group, err = sarama.NewConsumerGroup(w.cfg.Kafka.Brokers, w.GroupID(), cfg)
	}
	defer group.Close()
	topics := []string{w.cfg.Kafka.Topics.ForContext(w.context)}
	w.log.Info("jobs: worker running", "topic", topics[0], "group", w.GroupID())
	for ctx.Err() == nil {
		if err := group.Consume(ctx, topics, (*groupHandler)(w)); err != nil && ctx.Err() == nil {
			w.log.Warn("jobs: consume", "err", err)
			retry.Sleep(ctx, time.Second)
		}
	}
}

// item is a queued job a worker holds, from one record of the log.
type item struct {
	job       domain.Job
	version   int64  // the stream version the worker saw it queued at
	causation string // the event id
	seq       uint64
	part      *partition
	offset    int64
}

// queue is a kind's held jobs: highest priority first, then the oldest
// request, then the order read.
type queue struct {
	items []*item
	ready chan struct{}
}

func (q *queue) Len() int { return len(q.items) }
func (q *queue) Less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	if a.job.Priority != b.job.Priority {
		return a.job.Priority > b.job.Priority
	}
	if !a.job.RequestedAt.Equal(b.job.RequestedAt) {
		return a.job.RequestedAt.Before(b.job.RequestedAt)
	}
	return a.seq < b.seq
}
func (q *queue) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *queue) Push(x any)    { q.items = append(q.items, x.(*item)) }
func (q *queue) Pop() any {
	n := len(q.items)
	it := q.items[n-1]
	q.items = q.items[:n-1]
	return it
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// next waits for the kind's best held job.
func (w *Worker) next(ctx context.Context, kind string) *item {
	q := w.queues[kind]
	for {
		w.mu.Lock()
		if q.Len() > 0 {
			it := heap.Pop(q).(*item)
			more := q.Len() > 0
			w.mu.Unlock()
			if more {
				signal(q.ready) // wake another runner of the kind
			}
			return it
		}
		w.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil
		case <-q.ready:
		}
	}
}

// partition tracks one claimed partition's offsets in one session: the
// committed offset never passes a job still held or being claimed.
type partition struct {
	sess        sarama.ConsumerGroupSession
	topic       string
	id          int32
	outstanding map[int64]struct{}
	next        int64
	dead        bool
}

// mark commits up to the first offset still outstanding (w.mu held).
func (p *partition) mark() {
	if p.dead || p.next == 0 {
		return
	}
	low := p.next
	for o := range p.outstanding {
		low = min(low, o)
	}
	p.sess.MarkOffset(p.topic, p.id, low, "")
}

// groupHandler is the worker as a sarama consumer group handler.
type groupHandler Worker

func (h *groupHandler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *groupHandler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (h *groupHandler) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	w := (*Worker)(h)
	p := &partition{sess: sess, topic: claim.Topic(), id: claim.Partition(), outstanding: map[int64]struct{}{}}
	defer w.drop(p)
	ctx := sess.Context()
	for {
		select {
		case <-ctx.Done():
			return nil
		case msg, ok := <-claim.Messages():
			if !ok {
				return nil
			}
			if !w.read(ctx, p, msg) {
				return nil
			}
		}
	}
}

// read takes one record: a job queued (requested, requeued) is held for a
// runner of its kind; a cancellation stops the job's attempt if it runs
// here; anything else passes. It reports false when ctx ended first.
func (w *Worker) read(ctx context.Context, p *partition, msg *sarama.ConsumerMessage) bool {
	typ := header(msg, eventstore.HeaderEventType)
	switch typ {
	case w.types.Requested, w.types.Requeued:
		it, ok := w.decode(msg)
		if ok && !w.hold(ctx, p, it) {
			return false
		}
	case w.types.Cancelled:
		w.mu.Lock()
		if cancel := w.running[header(msg, eventstore.HeaderStreamID)]; cancel != nil {
			cancel()
		}
		w.mu.Unlock()
	}
	w.mu.Lock()
	p.next = msg.Offset + 1
	p.mark()
	w.mu.Unlock()
	return true
}

func (w *Worker) decode(msg *sarama.ConsumerMessage) (*item, bool) {
	ev, err := eventstore.DecodeEvent(msg.Value)
	if err != nil {
		w.log.Error("jobs: undecodable record passed over", "offset", msg.Offset, "partition", msg.Partition, "err", err)
		return nil, false
	}
	p, err := eventstore.Decode[domain.Event](ev)
	if err != nil {
		w.log.Error("jobs: undecodable job event passed over", "event_id", ev.ID, "err", err)
		return nil, false
	}
	if w.kinds[p.Job.Kind] == nil {
		// Not a kind of this release: its job waits for a worker that knows it.
		w.log.Warn("jobs: a kind this worker does not run", "kind", p.Job.Kind, "job", p.Job.ID)
		return nil, false
	}
	return &item{job: p.Job, version: ev.StreamVersion, causation: ev.ID.String(), offset: msg.Offset}, true
}

// hold adds a queued job to its kind's queue, waiting while the worker
// holds ReadAhead jobs already.
func (w *Worker) hold(ctx context.Context, p *partition, it *item) bool {
	for {
		w.mu.Lock()
		if w.held < w.cfg.ReadAhead {
			break
		}
		w.mu.Unlock()
		select {
		case <-ctx.Done():
			return false
		case <-w.space:
		}
	}
	defer w.mu.Unlock()
	w.seq++
	it.seq, it.part = w.seq, p
	p.outstanding[it.offset] = struct{}{}
	w.held++
	q := w.queues[it.job.Kind]
	heap.Push(q, it)
	signal(q.ready)
	held.WithLabelValues(w.context).Set(float64(w.held))
	return true
}

// release ends an item's hold: its offset may be committed.
func (w *Worker) release(it *item) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.held--
	held.WithLabelValues(w.context).Set(float64(w.held))
	if it.part != nil { // nil: held from this process, not read from the log
		delete(it.part.outstanding, it.offset)
		it.part.mark()
	}
	signal(w.space)
}

// drop forgets a partition's held jobs when its session ends: the
// partition's next owner reads them again from the committed offset.
func (w *Worker) drop(p *partition) {
	w.mu.Lock()
	defer w.mu.Unlock()
	p.dead = true
	for _, q := range w.queues {
		kept := q.items[:0]
		for _, it := range q.items {
			if it.part == p {
				w.held--
				continue
			}
			kept = append(kept, it)
		}
		clear(q.items[len(kept):])
		q.items = kept
		heap.Init(q)
	}
	held.WithLabelValues(w.context).Set(float64(w.held))
	signal(w.space)
}

// handle claims a held job and, when the claim holds, runs its attempt. A
// job whose stream moved past the version held (claimed from another
// record, cancelled) is passed over with a read, not a command.
func (w *Worker) handle(ctx context.Context, k *kind, it *item) {
	var a *attempt
	for try := 1; ; try++ {
		head, err := k.cmds.head(ctx, domain.StreamID(it.job.Kind, it.job.ID))
		if err == nil && head != it.version {
			break
		}
		if err == nil {
			if a, err = k.cmds.claim(ctx, k, it.job, it.version, it.causation); err == nil {
				break
			}
		}
		if ctx.Err() != nil {
			return // not released: the next owner reads it again
		}
		w.log.Warn("jobs: claim failed; tried again", "job", it.job.ID, "kind", k.name, "err", err)
		retry.Sleep(ctx, retry.Backoff(200*time.Millisecond, try, 5*time.Second))
	}
	w.release(it)
	if a == nil {
		return // moved on meanwhile, or claimed by another worker
	}
	claims.WithLabelValues(k.name).Inc()
	k.tell(a.job)
	w.run(ctx, k, a)
}

// run performs one claimed attempt and records its outcome.
func (w *Worker) run(ctx context.Context, k *kind, a *attempt) {
	stream := domain.StreamID(a.job.Kind, a.job.ID)
	actx, cancel := context.WithTimeout(ctx, k.timeout)
	defer cancel()
	w.mu.Lock()
	w.running[stream] = cancel
	w.mu.Unlock()
	runningGauge.WithLabelValues(k.name).Inc()
	stop, beating := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(beating)
		w.heartbeats(actx, stop, cancel, k, a)
	}()
	result, err := k.do(actx, a)
	close(stop)
	<-beating
	w.mu.Lock()
	delete(w.running, stream)
	w.mu.Unlock()
	runningGauge.WithLabelValues(k.name).Dec()
	o := outcomeOf(result, err, k.cmds.now())
	log := w.log.With("job", a.job.ID, "kind", k.name, "attempt", a.number)
	if o.Unconfirmed && o.Reason == "unclassified error" {
		log.Warn("jobs: the attempt ended with an error it did not classify; the probe settles it", "err", err)
	}
	attempts.WithLabelValues(k.name, outcomeName(o)).Inc()
	m := systemMeta(a.job, stream+":attempt:"+strconv.Itoa(a.number)+":outcome", "")
	if err := w.record(k, a.job, a.number, o, m); err != nil {
		log.Warn("jobs: outcome not recorded; the lease runs out and the probe settles it", "err", err)
	}
}

func outcomeName(o domain.Outcome) string {
	switch {
	case o.Succeeded:
		return "succeeded"
	case o.Failure != nil:
		return "failed"
	case o.NotDone:
		return "not_done"
	}
	return "unconfirmed"
}

// record settles an attempt, waiting out outages within RecordTimeout: an
// outcome is worth more than a probe.
func (w *Worker) record(k *kind, j domain.Job, number int, o domain.Outcome, m commands.Meta, opts ...commands.Option) error {
	ctx, cancel := context.WithTimeout(context.Background(), w.cfg.RecordTimeout)
	defer cancel()
	for try := 1; ; try++ {
		res, err := k.cmds.record(ctx, k, j, number, o, m, opts...)
		if err == nil && !res.Replayed {
			k.tell(res.Value)
		}
		if err == nil || !commands.IsOutage(err) || ctx.Err() != nil {
			return err
		}
		if !retry.Sleep(ctx, retry.Backoff(200*time.Millisecond, try, 5*time.Second)) {
			return err
		}
	}
}

// heartbeats renew the attempt's lease while Do runs (when half of it is
// spent) and record its progress (at most every ProgressInterval). When
// the job says the attempt is no longer its running one (cancelled,
// reconciled), or the lease ends without a renewal, Do's context is
// cancelled: a worker never acts on a lease it lost.
func (w *Worker) heartbeats(ctx context.Context, stop <-chan struct{}, cancel context.CancelFunc, k *kind, a *attempt) {
	interval := max(min(k.lease/4, w.cfg.ProgressInterval), 10*time.Millisecond)
	t := time.NewTicker(interval)
	defer t.Stop()
	lastBeat, leaseUntil := time.Now(), time.Now().Add(k.lease)
	recorded, lastProgress := 0, time.Time{}
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := time.Now()
		p := int(a.progress.Load())
		renew := now.Sub(lastBeat) >= k.lease/2
		report := p != recorded && now.Sub(lastProgress) >= w.cfg.ProgressInterval
		if !renew && !report {
			continue
		}
		until := now.Add(k.lease)
		hctx, done := context.WithTimeout(ctx, max(k.lease/4, time.Second))
		mine, err := k.cmds.heartbeat(hctx, k, a, p, until)
		done()
		switch {
		case err == nil && !mine:
			w.log.Info("jobs: the attempt is no longer the job's (cancelled or reconciled); stopped", "job", a.job.ID, "kind", k.name, "attempt", a.number)
			cancel()
			return
		case err == nil:
			lastBeat, leaseUntil, recorded, lastProgress = now, until, p, now
		case time.Now().After(leaseUntil.Add(-k.lease / 10)):
			w.log.Warn("jobs: the lease ends unrenewed; the attempt is stopped and the probe settles it", "job", a.job.ID, "kind", k.name, "err", err)
			cancel()
			return
		}
	}
}

func header(msg *sarama.ConsumerMessage, key string) string {
	for _, hd := range msg.Headers {
		if string(hd.Key) == key {
			return string(hd.Value)
		}
	}
	return ""
}
