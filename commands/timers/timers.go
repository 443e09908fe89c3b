// Package timers fires durable timers: "at T, issue command C". A command
// schedules, moves or cancels a timer in its own transaction (event.Timer on
// one of its events; the event store writes es_timers); the Scheduler, run in
// every process, claims due timers with FOR UPDATE SKIP LOCKED and a lease,
// and issues each one's command through the handler registered for its kind.
//
// A timer fires once: its command carries commands.FiresTimer, so the store
// locks the timer's row, checks that it is still pending on the schedule that
// was claimed (moved or cancelled meanwhile: eventstore.ErrTimerStale) and
// marks it fired in the command's transaction; and the command's idempotency
// key is derived from the timer's key and due time, so even a handler that
// issues a command without the option cannot apply it twice. A timer whose
// time passed while no process ran fires late, at the next claim.
package timers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/eventstore"

	"github.com/platform/backend/internal/retry"
)

// Config tunes the scheduler; zero values take the defaults.
type Config struct {
	// PollInterval is how often a process looks for due timers
	// (TIMERS_POLL_INTERVAL, default 1s): a timer fires at most about this
	// late while processes run. A full claim is followed by the next at once.
	PollInterval time.Duration
	// Lease is how long a claimed timer is this process's before another
	// may claim it again (a process that died mid-fire). Default 1m. A
	// second claim cannot fire twice (the row lock and seq check), it only
	// tries again.
	Lease time.Duration
	// BatchSize is the most timers one claim takes (default 20).
	BatchSize int
	// Concurrency is how many claimed timers fire at once (TIMERS_CONCURRENCY,
	// default 8): a fire that waits on a network (a scheduled post) does not
	// hold up the rest of its batch. 1 fires them one after another.
	Concurrency int
	// FireTimeout bounds one timer's command (default 10s).
	FireTimeout time.Duration
	// Attempts is how many failures that are not outages (a refused
	// statement, a bug) a timer gets before it is parked (state failed,
	// last_error, platform_timers_parked_total). Default 5. A rejection by
	// the domain (a typed error) parks it at once: it would not change.
	// Outages are retried without end.
	Attempts int
	// Backoff is the pause before the second try; it doubles per try up to
	// MaxBackoff. Defaults 1s and 1m.
	Backoff    time.Duration
	MaxBackoff time.Duration
	// Retention is how long fired and cancelled timers are kept
	// (default 720h); parked ones stay until a command moves or cancels them.
	Retention time.Duration
}

func (c Config) WithDefaults() Config {
	if c.PollInterval == 0 {
		c.PollInterval = time.Second
	}
	if c.Lease == 0 {
		c.Lease = time.Minute
	}
	if c.BatchSize == 0 {
		c.BatchSize = 20
	}
	if c.Concurrency == 0 {
		c.Concurrency = 8
	}
	if c.FireTimeout == 0 {
		c.FireTimeout = 10 * time.Second
	}
	if c.Attempts == 0 {
		c.Attempts = 5
	}
	if c.Backoff == 0 {
		c.Backoff = time.Second
	}
	if c.MaxBackoff == 0 {
		c.MaxBackoff = max(time.Minute, c.Backoff)
	}
	if c.Retention == 0 {
		c.Retention = 30 * 24 * time.Hour
	}
	return c
}

// Validate names every problem at once.
func (c Config) Validate() error {
	var problems []error
	if c.PollInterval <= 0 || c.Lease <= 0 || c.FireTimeout <= 0 || c.Backoff <= 0 || c.Retention <= 0 {
		problems = append(problems, errors.New("timers: poll interval, lease, fire timeout, backoff and retention must be positive"))
	}
	if c.MaxBackoff < c.Backoff {
		problems = append(problems, errors.New("timers: the maximum backoff must be at least the backoff"))
	}
	if c.BatchSize < 1 || c.Attempts < 1 || c.Concurrency < 1 {
		problems = append(problems, errors.New("timers: batch size, concurrency and attempts must be at least 1"))
	}
	if c.Lease <= c.FireTimeout {
		// A lease shorter than one fire lets another process claim a timer
		// that is still firing: harmless, but wasted work on every slow fire.
		problems = append(problems, errors.New("timers: the lease must be longer than the fire timeout"))
	}
	return errors.Join(problems...)
}

// Timer is one claimed timer.
type Timer struct {
	StreamID       string
	Name           string
	Seq            int64
	Kind           string
	OrganizationID string
	DueAt          time.Time
	Payload        json.RawMessage
	Tries          int // earlier unsuccessful tries
}

// Key is the timer's key in its stream's namespace: "<stream id>/<name>".
func (t Timer) Key() string { return t.StreamID + "/" + t.Name }

// Fire is what a handler gets: the timer and the Meta its command runs with
// (the timer's organization, a system actor named after the kind, and the
// idempotency key timer:<stream id>/<name>:<due time in µs>).
type Fire struct {
	Timer
	Meta commands.Meta
}

// Option makes the handler's command fire this timer: pass it to
// commands.Run, so the timer is checked and marked in the command's
// transaction.
func (f Fire) Option() commands.Option {
	return commands.FiresTimer(eventstore.TimerRef{StreamID: f.StreamID, Name: f.Name, Seq: f.Seq})
}

// Handler issues a timer's command. It returns nil when the command was
// applied or decided that nothing was left to do, eventstore.ErrTimerStale
// (passed through from the store), a typed domain error when the command was
// refused, or another error to be tried again.
type Handler func(ctx context.Context, f Fire) error

// Registry maps a timer kind to its handler. A process claims only timers
// of the kinds it has registered, so a process of an older release leaves a
// newer kind to the processes that know it.
type Registry struct {
	mu       sync.Mutex
	handlers map[string]Handler
}

func NewRegistry() *Registry { return &Registry{handlers: map[string]Handler{}} }

// Register adds the handler of a kind; a kind registered twice is an error.
func (r *Registry) Register(kind string, h Handler) error {
	if kind == "" || h == nil {
		return errors.New("timers: a kind and a handler are required")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.handlers[kind]; dup {
		return fmt.Errorf("timers: kind %q is registered twice", kind)
	}
	r.handlers[kind] = h
	return nil
}

func (r *Registry) handler(kind string) (Handler, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.handlers[kind]
	return h, ok
}

func (r *Registry) kinds() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.handlers))
	for k := range r.handlers {
		out = append(out, k)
	}
	return out
}

// IdempotencyKey is the key of the command a timer issues on one schedule.
func IdempotencyKey(t Timer) string {
	return "timer:" + t.Key() + ":" + strconv.FormatInt(t.DueAt.UnixMicro(), 10)
}

// Scheduler claims and fires due timers.
type Scheduler struct {
	pool     *pgxpool.Pool
	registry *Registry
	cfg      Config
	log      *slog.Logger
	purged   time.Time
}

func NewScheduler(pool *pgxpool.Pool, registry *Registry, cfg Config, log *slog.Logger) (*Scheduler, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if pool == nil || registry == nil || log == nil {
		return nil, errors.New("timers: a pool, a registry and a logger are required")
	}
	return &Scheduler{pool: pool, registry: registry, cfg: cfg, log: log}, nil
}

// Run fires due timers until ctx ends. Every process runs it: claims skip
// the rows another process holds, so they share the work.
func (s *Scheduler) Run(ctx context.Context) error {
	ticker := time.NewTicker(s.cfg.PollInterval)
	defer ticker.Stop()
	for {
		n, err := s.Tick(ctx)
		if err != nil && ctx.Err() == nil {
			s.log.Warn("timers: claim failed", "err", err)
		}
		if n < s.cfg.BatchSize || err != nil {
			select {
			case <-ctx.Done():
				return nil
			case <-ticker.C:
			}
		} else if ctx.Err() != nil {
			return nil
		}
	}
}

// Tick claims one batch of due timers and fires them; it returns how many
// it claimed. Tests call it to fire what is due now.
func (s *Scheduler) Tick(ctx context.Context) (int, error) {
	s.observeLag(ctx)
	s.purge(ctx)
	claimed, err := s.claim(ctx)
	if err != nil {
		return 0, err
	}
	sem := make(chan struct{}, s.cfg.Concurrency)
	var wg sync.WaitGroup
	for _, t := range claimed {
		if ctx.Err() != nil {
			break // unfired claims go back to the pool when their lease ends
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			s.fire(ctx, t)
		}()
	}
	wg.Wait()
	return len(claimed), nil
}

// claim leases up to BatchSize due timers of the registered kinds. The
// database's clock decides what is due, so every process agrees.
func (s *Scheduler) claim(ctx context.Context) ([]Timer, error) {
	kinds := s.registry.kinds()
	if len(kinds) == 0 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, `UPDATE es_timers t SET leased_until = now() + $1 * interval '1 microsecond'
		FROM (SELECT stream_id, name FROM es_timers
			WHERE state = 'pending' AND due_at <= now() AND (leased_until IS NULL OR leased_until <= now()) AND kind = ANY($2)
			ORDER BY due_at LIMIT $3 FOR UPDATE SKIP LOCKED) due
		WHERE t.stream_id = due.stream_id AND t.name = due.name
		RETURNING t.stream_id, t.name, t.seq, t.kind, t.organization_id, t.due_at, t.payload::text, t.tries`,
		s.cfg.Lease.Microseconds(), kinds, s.cfg.BatchSize)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Timer, error) {
		var t Timer
		var payload string
		err := r.Scan(&t.StreamID, &t.Name, &t.Seq, &t.Kind, &t.OrganizationID, &t.DueAt, &payload, &t.Tries)
		t.Payload = json.RawMessage(payload)
		return t, err
	})
}

// fire issues one timer's command and records the outcome.
func (s *Scheduler) fire(ctx context.Context, t Timer) {
	h, ok := s.registry.handler(t.Kind)
	if !ok {
		return // claimed only by kind: cannot happen; the lease ends
	}
	key := IdempotencyKey(t)
	f := Fire{Timer: t, Meta: commands.Meta{
		OrganizationID: t.OrganizationID,
		Actor:          eventstore.Actor{ID: "timer:" + t.Kind, Type: "system"},
		IdempotencyKey: key, RequestHash: eventstore.HashRequest([]byte(key)),
		CorrelationID: key,
	}}
	fctx, cancel := context.WithTimeout(ctx, s.cfg.FireTimeout)
	err := h(fctx, f)
	cancel()
	log := s.log.With("timer", t.Key(), "kind", t.Kind, "due_at", t.DueAt)
	switch outcome := Classify(err); outcome {
	case OutcomeFired:
		// Marked by the command already, unless the handler's command did
		// not carry the option or was a replay: mark it here then.
		s.record(ctx, log, t, `UPDATE es_timers SET state='fired', fired_at=now(), updated_at=now(), leased_until=NULL, last_error=NULL
			WHERE stream_id=$1 AND name=$2 AND seq=$3 AND state='pending'`)
		fired.WithLabelValues(t.Kind).Inc()
		firedLate.WithLabelValues(t.Kind).Observe(max(time.Since(t.DueAt).Seconds(), 0))
	case OutcomeStale:
		stale.WithLabelValues(t.Kind).Inc()
		log.Info("timers: moved or cancelled while it fired; not fired on this schedule")
	case OutcomeRejected:
		parked.WithLabelValues(t.Kind).Inc()
		log.Warn("timers: command refused; timer parked", "err", err)
		s.record(ctx, log, t, `UPDATE es_timers SET state='failed', failures=failures+1, tries=tries+1, last_error=$4,
			leased_until=NULL, updated_at=now() WHERE stream_id=$1 AND name=$2 AND seq=$3 AND state='pending'`, reason(err))
	case OutcomeOutage:
		retries.WithLabelValues(t.Kind).Inc()
		wait := retry.Backoff(s.cfg.Backoff, t.Tries+1, s.cfg.MaxBackoff)
		log.Warn("timers: outage; tried again later", "err", err, "retry_in", wait)
		s.record(ctx, log, t, `UPDATE es_timers SET tries=tries+1, last_error=$4, updated_at=now(),
			leased_until = now() + $5 * interval '1 microsecond' WHERE stream_id=$1 AND name=$2 AND seq=$3 AND state='pending'`,
			reason(err), wait.Microseconds())
	case OutcomeFailed:
		wait := retry.Backoff(s.cfg.Backoff, t.Tries+1, s.cfg.MaxBackoff)
		log.Error("timers: command failed", "err", err, "retry_in", wait)
		retries.WithLabelValues(t.Kind).Inc()
		// The row counts failures; the last one allowed parks it.
		var state string
		qerr := s.pool.QueryRow(ctx, `UPDATE es_timers SET tries=tries+1, failures=failures+1, last_error=$4, updated_at=now(),
			state = CASE WHEN failures + 1 >= $6 THEN 'failed' ELSE state END,
			leased_until = CASE WHEN failures + 1 >= $6 THEN NULL ELSE now() + $5 * interval '1 microsecond' END
			WHERE stream_id=$1 AND name=$2 AND seq=$3 AND state='pending' RETURNING state`,
			t.StreamID, t.Name, t.Seq, reason(err), wait.Microseconds(), s.cfg.Attempts).Scan(&state)
		switch {
		case qerr == nil && state == "failed":
			parked.WithLabelValues(t.Kind).Inc()
			log.Error("timers: timer parked after repeated failures", "attempts", s.cfg.Attempts)
		case qerr != nil && !errors.Is(qerr, pgx.ErrNoRows):
			log.Warn("timers: failure not recorded (the lease ends and it is tried again)", "err", qerr)
		}
	}
}

// record writes a timer's outcome; a failed write is logged, and the lease
// ending brings the timer back (firing it again is harmless: see package doc).
func (s *Scheduler) record(ctx context.Context, log *slog.Logger, t Timer, sql string, more ...any) {
	args := append([]any{t.StreamID, t.Name, t.Seq}, more...)
	if _, err := s.pool.Exec(ctx, sql, args...); err != nil && ctx.Err() == nil {
		log.Warn("timers: outcome not recorded (the lease ends and it is tried again)", "err", err)
	}
}

// Outcome is what became of one fire.
type Outcome int

const (
	OutcomeFired    Outcome = iota // applied, replayed, or nothing left to do
	OutcomeStale                   // moved, cancelled or fired meanwhile
	OutcomeRejected                // refused by the domain: parked at once
	OutcomeOutage                  // the database is unavailable: tried again without end
	OutcomeFailed                  // anything else: tried again, parked after Attempts
)

// Classify sorts a handler's error into an outcome.
func Classify(err error) Outcome {
	switch {
	case err == nil:
		return OutcomeFired
	case errors.Is(err, eventstore.ErrTimerStale):
		return OutcomeStale
	case commands.IsOutage(err):
		return OutcomeOutage
	case commands.IsRejection(err):
		return OutcomeRejected
	}
	return OutcomeFailed
}

// reason is what last_error keeps: bounded, since errors may quote input.
func reason(err error) string {
	s := err.Error()
	if len(s) > 500 {
		s = s[:500]
	}
	return s
}

// observeLag sets the age of the oldest due timer still pending.
func (s *Scheduler) observeLag(ctx context.Context) {
	var secs float64
	if err := s.pool.QueryRow(ctx, `SELECT COALESCE(extract(epoch FROM now() - min(due_at)), 0)::float8
		FROM es_timers WHERE state = 'pending' AND due_at <= now()`).Scan(&secs); err == nil {
		lag.Set(secs)
	}
}

// purge deletes fired and cancelled timers older than Retention, at most
// once an hour per process.
func (s *Scheduler) purge(ctx context.Context) {
	if time.Since(s.purged) < time.Hour {
		return
	}
	s.purged = time.Now()
	if _, err := s.pool.Exec(ctx, `DELETE FROM es_timers WHERE state IN ('fired', 'cancelled')
		AND updated_at < now() - $1 * interval '1 second'`, int64(s.cfg.Retention.Seconds())); err != nil && ctx.Err() == nil {
		s.log.Warn("timers: purge failed", "err", err)
	}
}
