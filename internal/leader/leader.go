package leader

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/platform/backend/internal/retry"
)

var (
	leading = promauto.NewGaugeVec(prometheus.GaugeOpts{
		Name: "platform_leader_leading", Help: "1 while this process holds the leader lock.",
	}, []string{"lock"})
	lost = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_leader_lost_total", Help: "Terms that ended because the lock connection failed its check.",
	}, []string{"lock"})
)

// Config tunes leadership; zero values take the defaults.
type Config struct {
	// Retry is the pause between attempts to take a lock another process
	// holds, and before leading again after work returned. Default 1s.
	Retry time.Duration
	// Check is how often a leader confirms, on the lock's connection, that it
	// still holds the lock; it also bounds how long a check may take. A lost
	// connection is noticed within about 2*Check. Default 1s.
	Check time.Duration
	// Backoff is the first pause after an error (no database, a failed check,
	// work that failed); it doubles per consecutive error up to MaxBackoff.
	// Defaults 1s and 5s (short: a relay that waits long after an outage
	// delays every event).
	Backoff    time.Duration
	MaxBackoff time.Duration
}

func (c Config) WithDefaults() Config {
	if c.Retry == 0 {
		c.Retry = time.Second
	}
	if c.Check == 0 {
		c.Check = time.Second
	}
	if c.Backoff == 0 {
		c.Backoff = time.Second
	}
	if c.MaxBackoff == 0 {
		c.MaxBackoff = max(5*time.Second, c.Backoff)
	}
	return c
}

func (c Config) Validate() error {
	if c.Retry <= 0 || c.Check <= 0 || c.Backoff <= 0 || c.MaxBackoff < c.Backoff {
		return errors.New("leader: retry, check and backoff must be positive, and the maximum backoff at least the backoff")
	}
	return nil
}

// Run calls work in this process only while it holds lock, until ctx ends.
//
// The lock is a session advisory lock taken on a connection of its own,
// outside the pool: work uses the pool as it likes, and closing that
// connection always frees the lock (a pooled connection handed back with the
// lock still held would keep it for good). Run tries to take the lock every
// cfg.Retry while another process holds it. While leading, it confirms the
// lock on that connection every cfg.Check; when the connection fails (the
// database restarted, the network broke, the backend was terminated) the
// lock is gone with it and another process may lead, so work's context is
// cancelled and Run waits for work to return before trying again.
//
// Work must return when its context ends. An error from work ends the term
// (the lock is released, so a healthier process may take over) and Run tries
// again after a backoff. There is no fencing: between a lost connection and
// its detection (up to about 2*cfg.Check) a second leader may already run, so
// work must be idempotent, as all of the platform's is (relay duplicates
// carry their event ids, commands their idempotency keys).
//
// Run returns nil when ctx ends, and an error only for an unusable call
// (an unregistered lock, a bad config).
func Run(ctx context.Context, pool *pgxpool.Pool, lock Lock, cfg Config, log *slog.Logger, work func(context.Context) error) error {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return err
	}
	if !locks.registered(lock) && !isDeclared(lock) {
		return fmt.Errorf("leader: lock %q is neither the platform's (internal/leader/locks.go) nor declared by a module (module.Module.Locks)", lock.name)
	}
	if pool == nil || log == nil || work == nil {
		return errors.New("leader: a pool, a logger and work are required")
	}
	log = log.With("lock", lock.name)
	c := &campaign{pool: pool, lock: lock, cfg: cfg, log: log}
	failures := 0
	for ctx.Err() == nil {
		err := c.term(ctx, work)
		if ctx.Err() != nil {
			return nil
		}
		pause := cfg.Retry
		if err != nil {
			failures++
			pause = backoff(cfg, failures)
			log.Warn("leader: term ended", "err", err, "retry_in", pause.Round(time.Millisecond))
		} else {
			failures = 0
		}
		retry.Sleep(ctx, pause)
	}
	return nil
}

// Every is work that calls tick every interval (the first time one interval
// after the term starts) until its context ends: periodic jobs under Run. A
// tick handles and logs its own errors; a failed tick does not end the term.
func Every(interval time.Duration, tick func(context.Context)) func(context.Context) error {
	return func(ctx context.Context) error {
		if interval <= 0 {
			return fmt.Errorf("leader: interval %s must be positive", interval)
		}
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-t.C:
			}
			// select picks at random when both are ready: a term that ended
			// (lost lock) must not start another unit of work.
			if ctx.Err() != nil {
				return nil
			}
			tick(ctx)
		}
	}
}

type campaign struct {
	pool *pgxpool.Pool
	lock Lock
	cfg  Config
	log  *slog.Logger
}

// term takes the lock (waiting for it as long as another process holds it),
// runs work while the lock holds, and gives the lock back. A nil error means
// ctx ended or work returned nil.
func (c *campaign) term(ctx context.Context, work func(context.Context) error) error {
	conn, err := c.connect(ctx)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	held := false
	defer func() { c.close(ctx, conn, held) }()
	for {
		if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, $2)`, Namespace, c.lock.key).Scan(&held); err != nil {
			return fmt.Errorf("take the lock: %w", err)
		}
		if held {
			break
		}
		if !retry.Sleep(ctx, c.cfg.Retry) {
			return nil
		}
	}
	c.log.Info("leader: leading")
	leading.WithLabelValues(c.lock.name).Set(1)
	defer leading.WithLabelValues(c.lock.name).Set(0)

	termCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- work(termCtx) }()
	check := time.NewTicker(c.cfg.Check)
	defer check.Stop()
	for {
		select {
		case err := <-done:
			if err != nil && ctx.Err() == nil {
				return fmt.Errorf("work: %w", err)
			}
			return nil
		case <-check.C:
		}
		if err := c.confirm(ctx, conn); err != nil && ctx.Err() == nil {
			held = false // with the connection, or never there: nothing to unlock
			lost.WithLabelValues(c.lock.name).Inc()
			c.log.Warn("leader: lost the lock; stopping work", "err", err)
			cancel()
			<-done // never two terms' work at once in this process
			return fmt.Errorf("lost the lock: %w", err)
		}
	}
}

// connect opens the lock's own connection, named in pg_stat_activity so an
// operator can see who leads.
func (c *campaign) connect(ctx context.Context) (*pgx.Conn, error) {
	cc := c.pool.Config().ConnConfig // a copy
	if cc.RuntimeParams == nil {
		cc.RuntimeParams = map[string]string{}
	}
	if cc.RuntimeParams["application_name"] == "" {
		cc.RuntimeParams["application_name"] = "platform leader " + c.lock.name
	}
	cctx, cancel := context.WithTimeout(ctx, max(c.cfg.Check, 5*time.Second))
	defer cancel()
	return pgx.ConnectConfig(cctx, cc)
}

// confirm asks the lock's connection whether it still holds the lock. A
// timeout counts as lost: a connection that does not answer may already be
// dead on the server side, its lock taken by another process.
func (c *campaign) confirm(ctx context.Context, conn *pgx.Conn) error {
	cctx, cancel := context.WithTimeout(ctx, c.cfg.Check)
	defer cancel()
	var held bool
	err := conn.QueryRow(cctx, `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory'
		AND pid = pg_backend_pid() AND classid = $1 AND objid = $2 AND objsubid = 2 AND granted)`,
		Namespace, c.lock.key).Scan(&held)
	if err != nil {
		return err
	}
	if !held {
		return errors.New("the lock connection no longer holds the lock")
	}
	return nil
}

// close gives the lock back at once (so a standby takes over without waiting
// for the server to notice the closed socket) and closes the connection,
// which frees the lock in any case.
func (c *campaign) close(ctx context.Context, conn *pgx.Conn, held bool) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.cfg.Check)
	defer cancel()
	if held {
		if _, err := conn.Exec(cctx, `SELECT pg_advisory_unlock($1, $2)`, Namespace, c.lock.key); err != nil {
			c.log.Debug("leader: unlock (the closing connection frees it anyway)", "err", err)
		}
		c.log.Info("leader: stepped down")
	}
	_ = conn.Close(cctx)
}

// backoff is the pause after the n-th consecutive error: doubling from
// cfg.Backoff up to cfg.MaxBackoff, with jitter so that processes which
// failed together do not retry together.
func backoff(cfg Config, n int) time.Duration {
	d := retry.Backoff(cfg.Backoff, n, cfg.MaxBackoff)
	return d/2 + rand.N(d/2+1)
}
