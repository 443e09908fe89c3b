package eventstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/platform/backend/internal/retry"
)

// HeadsChannel is the NOTIFY channel on which an append to a stream of a
// watched type (Store.NotifyHeads) announces the stream's id, in the
// appending transaction: PostgreSQL delivers it when that transaction
// commits, to every listening session of every process.
const HeadsChannel = "es_heads"

// NotifyHeads makes every append to a stream of these types announce the
// stream on HeadsChannel. Only for the types a HeadWatch serves: a NOTIFY
// takes a server-wide lock at commit (measured on every command: raw
// commits at 32 clients fell from 9.2k/s to 3.6k/s), so it is kept to the
// rare commands that change credentials.
func (s *Store) NotifyHeads(streamTypes ...string) {
	s.notifyMu.Lock()
	defer s.notifyMu.Unlock()
	next := map[string]bool{}
	if cur := s.notify.Load(); cur != nil {
		next = maps.Clone(*cur)
	}
	for _, t := range streamTypes {
		next[t] = true
	}
	s.notify.Store(&next)
}

// announce tells this process's watches that the streams moved.
func (s *Store) announce(streamIDs []string) {
	if len(streamIDs) == 0 {
		return
	}
	if ws := s.watches.Load(); ws != nil {
		for _, w := range *ws {
			for _, id := range streamIDs {
				w.forget(id)
			}
		}
	}
}

// addWatch makes the store's own appends reach w at once (announce).
func (s *Store) addWatch(w *HeadWatch) {
	s.notifyMu.Lock()
	defer s.notifyMu.Unlock()
	var next []*HeadWatch
	if cur := s.watches.Load(); cur != nil {
		next = append(next, *cur...)
	}
	next = append(next, w)
	s.watches.Store(&next)
}

// notifies reports whether appends to a stream type announce it.
func (s *Store) notifies(streamType string) bool {
	m := s.notify.Load()
	return m != nil && (*m)[streamType]
}

// queueNotify announces the streams on HeadsChannel (one statement).
func queueNotify(b *pgx.Batch, streamIDs []string) {
	if len(streamIDs) > 0 {
		b.Queue(`SELECT count(pg_notify('`+HeadsChannel+`', id)) FROM unnest($1::text[]) AS id`, streamIDs)
	}
}

// HeadWatchApplication is the listening session's application_name (an
// operator finds it in pg_stat_activity).
const HeadWatchApplication = "platform-head-watch"

// HeadWatchConfig bounds how stale a head served from memory may be.
type HeadWatchConfig struct {
	// Bound is the longest a change to a watched stream can go unseen by
	// this process: heads are served from memory only while the listening
	// session has answered a round trip started less than Bound ago (every
	// notification committed before that round trip was sent reached the
	// process before its answer). Past it, or while the session is down,
	// every read goes to the database. Default 100ms.
	Bound time.Duration
	// Interval is how long the listener waits for a notification before
	// it confirms the session again (default Bound/4).
	Interval time.Duration
	// PingTimeout ends a session whose round trip takes longer (default 5s);
	// a slower answer only stops memory reads meanwhile.
	PingTimeout time.Duration
}

func (c *HeadWatchConfig) Defaults() {
	if c.Bound <= 0 {
		c.Bound = 100 * time.Millisecond
	}
	if c.Interval <= 0 {
		c.Interval = c.Bound / 4
	}
	if c.PingTimeout <= 0 {
		c.PingTimeout = 5 * time.Second
	}
}

var (
	headReads = promauto.NewCounterVec(prometheus.CounterOpts{
		Name: "platform_head_watch_reads_total",
		Help: "Stream heads a HeadWatch answered, by source: memory, or the database (not in memory, or memory not trusted).",
	}, []string{"source"})
	// The two sources resolved once: every validation counts its heads.
	headReadsMemory, headReadsDatabase = headReads.WithLabelValues("memory"), headReads.WithLabelValues("database")
	headWatchTrusted                   = promauto.NewGauge(prometheus.GaugeOpts{
		Name: "platform_head_watch_listening",
		Help: "1 while the HeadWatch's listening session is up (memory may be trusted), 0 while reads go to the database.",
	})
)

// HeadWatch answers Store.Heads from memory for streams of the types that
// notify (Store.NotifyHeads), kept coherent by LISTEN on HeadsChannel: a
// notification drops its stream's head, and the next read fetches it
// again. Run keeps the listening session; without it (not started, the
// session lost, a round trip overdue) every read goes to the database, so
// a broken channel fails over to the slower path, never to a stale answer.
//
// Filling is guarded by a generation: a head read from the database is
// kept only if no notification (and no loss of the session) came while it
// was read, so a change committed during the read is never hidden behind
// the older value.
type HeadWatch struct {
	store *Store
	cfg   HeadWatchConfig
	log   *slog.Logger

	mu           sync.Mutex
	heads        map[string]int64 // 0: the stream does not exist
	gen          uint64
	trustedUntil time.Time
	memos        atomic.Pointer[[]memo] // memory derived from watched streams (Memo)
	listening    atomic.Bool
	fromMemory   atomic.Int64
	fromDatabase atomic.Int64
}

// headWatchMax bounds memory: past it the heads start over.
const headWatchMax = 200_000

func NewHeadWatch(store *Store, cfg HeadWatchConfig, log *slog.Logger) *HeadWatch {
	cfg.Defaults()
	w := &HeadWatch{store: store, cfg: cfg, log: log, heads: map[string]int64{}}
	store.addWatch(w)
	return w
}

// Heads is Store.Heads: the version of each given stream that exists.
func (w *HeadWatch) Heads(ctx context.Context, ids ...string) (map[string]int64, error) {
	out := make(map[string]int64, len(ids))
	w.mu.Lock()
	trusted := time.Now().Before(w.trustedUntil)
	missing := ids
	if trusted {
		missing = nil
		for _, id := range ids {
			v, ok := w.heads[id]
			switch {
			case !ok:
				missing = append(missing, id)
			case v > 0:
				out[id] = v
			}
		}
	}
	gen := w.gen
	w.mu.Unlock()
	headReadsMemory.Add(float64(len(ids) - len(missing)))
	w.fromMemory.Add(int64(len(ids) - len(missing)))
	if len(missing) == 0 {
		return out, nil
	}
	headReadsDatabase.Add(float64(len(missing)))
	w.fromDatabase.Add(int64(len(missing)))
	read, err := w.store.Heads(ctx, missing...)
	if err != nil {
		return nil, err
	}
	maps.Copy(out, read)
	if !trusted {
		return out, nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.gen != gen {
		return out, nil // something moved while we read: keep nothing
	}
	if len(w.heads)+len(missing) > headWatchMax {
		w.heads = map[string]int64{}
	}
	for _, id := range missing {
		w.heads[id] = read[id]
	}
	return out, nil
}

// forget drops a stream's head (a notification), and the memos derived
// from its streams.
func (w *HeadWatch) forget(id string) {
	w.mu.Lock()
	delete(w.heads, id)
	w.gen++
	w.mu.Unlock()
	if ms := w.memos.Load(); ms != nil {
		for _, m := range *ms {
			if m.derivedFrom(id) {
				m.drop()
			}
		}
	}
}

// reset drops every head and memo and stops trusting memory: the session
// is new or lost, so notifications may have been missed.
func (w *HeadWatch) reset() {
	w.mu.Lock()
	w.heads = map[string]int64{}
	w.gen++
	w.trustedUntil = time.Time{}
	w.mu.Unlock()
	if ms := w.memos.Load(); ms != nil {
		for _, m := range *ms {
			m.drop()
		}
	}
}

// trusted reports whether memory may answer now.
func (w *HeadWatch) trusted() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return time.Now().Before(w.trustedUntil)
}

// memo is a Memo as its watch drops it.
type memo interface {
	derivedFrom(streamID string) bool
	drop()
}

func (w *HeadWatch) addMemo(m memo) {
	w.store.notifyMu.Lock() // the store's lock: memos are added at start, rarely
	defer w.store.notifyMu.Unlock()
	var next []memo
	if cur := w.memos.Load(); cur != nil {
		next = append(next, *cur...)
	}
	next = append(next, m)
	w.memos.Store(&next)
}

// Memo is memory derived from the streams whose ids start with a prefix
// (a stream type whose appends notify: Store.NotifyHeads), kept by a
// HeadWatch under the rules of its heads: a value is served only while
// the watch trusts memory (within its Bound of a confirmed round trip),
// every value is dropped when any of those streams moves (its
// notification, or an append of this process before it answers) or the
// session is lost, and a value loaded while one moved is not kept. It is
// for values keyed by something no stream names (an organization's
// connection in use: a connection created later changes it), read far
// more often than their streams change: any change drops them all.
type Memo[K comparable, V any] struct {
	w      *HeadWatch
	prefix string

	mu     sync.Mutex
	values map[K]V
	gen    uint64
	hits   atomic.Int64
	loads  atomic.Int64
}

// NewMemo derives memory from the streams whose ids start with prefix.
func NewMemo[K comparable, V any](w *HeadWatch, streamPrefix string) *Memo[K, V] {
	m := &Memo[K, V]{w: w, prefix: streamPrefix, values: map[K]V{}}
	w.addMemo(m)
	return m
}

func (m *Memo[K, V]) derivedFrom(streamID string) bool { return strings.HasPrefix(streamID, m.prefix) }

func (m *Memo[K, V]) drop() {
	m.mu.Lock()
	clear(m.values)
	m.gen++
	m.mu.Unlock()
}

// Get answers k's value from memory while the watch trusts it, else
// loads it (load reads the database) and keeps it if nothing moved
// meanwhile. An error is never kept.
func (m *Memo[K, V]) Get(ctx context.Context, k K, load func(context.Context) (V, error)) (V, error) {
	trusted := m.w.trusted()
	m.mu.Lock()
	v, ok := m.values[k]
	gen := m.gen
	m.mu.Unlock()
	if trusted && ok {
		m.hits.Add(1)
		return v, nil
	}
	m.loads.Add(1)
	v, err := load(ctx)
	if err != nil || !trusted {
		return v, err
	}
	m.mu.Lock()
	if m.gen == gen {
		if len(m.values) >= headWatchMax {
			clear(m.values)
		}
		m.values[k] = v
	}
	m.mu.Unlock()
	return v, nil
}

// Reads counts the values answered from memory and loaded.
func (m *Memo[K, V]) Reads() (memory, loaded int64) { return m.hits.Load(), m.loads.Load() }

// confirm trusts memory until Bound after sent, the time a round trip on
// the listening session was sent that has been answered.
func (w *HeadWatch) confirm(sent time.Time) {
	w.mu.Lock()
	if until := sent.Add(w.cfg.Bound); until.After(w.trustedUntil) {
		w.trustedUntil = until
	}
	w.mu.Unlock()
}

// Reads counts the heads answered from memory and from the database.
func (w *HeadWatch) Reads() (memory, database int64) {
	return w.fromMemory.Load(), w.fromDatabase.Load()
}

// Listening reports whether the listening session is up.
func (w *HeadWatch) Listening() bool { return w.listening.Load() }

// Run keeps a listening session until ctx ends, reconnecting after a
// failure with a backoff; meanwhile reads go to the database.
func (w *HeadWatch) Run(ctx context.Context) error {
	for try := 1; ctx.Err() == nil; try++ {
		err := w.listen(ctx, func() { try = 0 })
		w.reset()
		w.listening.Store(false)
		headWatchTrusted.Set(0)
		if ctx.Err() != nil {
			return nil
		}
		w.log.Warn("head watch: listening session lost; heads are read from the database until it is back", "err", err)
		if !retry.Sleep(ctx, retry.Backoff(100*time.Millisecond, try, 5*time.Second)) {
			return nil
		}
	}
	return nil
}

// listen is one listening session: LISTEN, then a round trip every
// Interval (or after each notification), each confirming memory.
func (w *HeadWatch) listen(ctx context.Context, up func()) error {
	cc := w.store.pool.Config().ConnConfig.Config.Copy()
	if cc.RuntimeParams == nil {
		cc.RuntimeParams = map[string]string{}
	}
	cc.RuntimeParams["application_name"] = HeadWatchApplication
	cc.OnNotification = func(_ *pgconn.PgConn, n *pgconn.Notification) {
		if n.Channel == HeadsChannel {
			w.forget(n.Payload)
		}
	}
	conn, err := pgconn.ConnectConfig(ctx, cc)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx)) //nolint:errcheck
	if _, err := conn.Exec(ctx, `LISTEN `+HeadsChannel).ReadAll(); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	// From here every change is announced to this session: what memory
	// held before may have missed some.
	w.reset()
	w.listening.Store(true)
	headWatchTrusted.Set(1)
	up()
	for {
		sent := time.Now()
		pctx, cancel := context.WithTimeout(ctx, w.cfg.PingTimeout)
		_, err := conn.Exec(pctx, `SELECT 1`).ReadAll()
		cancel()
		if err != nil {
			return fmt.Errorf("round trip: %w", err)
		}
		w.confirm(sent)
		wctx, cancel := context.WithTimeout(ctx, w.cfg.Interval)
		err = conn.WaitForNotification(wctx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil && !errors.Is(err, context.DeadlineExceeded):
			return fmt.Errorf("wait: %w", err)
		}
	}
}
