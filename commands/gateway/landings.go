package gateway

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/internal/retry"
)

// Bounds of the landings' retries: short first, so a restarted database
// sees the writes it missed within seconds, and never longer than
// landingMaxBackoff, which the sweeper's grace (Config.SweepGrace) exceeds.
const (
	landingBackoff    = 250 * time.Millisecond
	landingMaxBackoff = 5 * time.Second
)

// landings are the writes an answered call still owes the database when
// the database is out at answer time: the settle of its usage at its real
// cost, and the stored answer of an idempotent call (or the release of its
// key). The answer went out; the truth of what it cost lives here, in this
// process, and each write is tried again with a doubling backoff until it
// lands, fails in a way that will repeat (logged: the sweeper then settles
// the reservation at its estimate), or the process stops.
//
// A settle is also written to the settle log (settle_log.go) before its
// answer goes out, so that it outlives this process: when the process
// stops or dies holding it, the log's reactor lands it once the database
// is back. With the broker out too, it is held in memory only, and the
// log is tried again with each retry.
//
// What is held is named, so that nothing else replaces it meanwhile: the
// sweeper never abandons the reservation of a settle held here, and a key
// whose answer is held here is not taken over when its lease runs out
// (answers.go). Other processes cannot see this memory: the sweeper's grace
// covers them (sweeper.go).
type landings struct {
	life context.Context
	stop context.CancelFunc
	log  *slog.Logger

	mu   sync.Mutex
	held map[string]int // names of the writes held (settle:<request id>, key:<claim>)
	wg   sync.WaitGroup
}

func newLandings(log *slog.Logger) *landings {
	life, stop := context.WithCancel(context.Background())
	return &landings{life: life, stop: stop, log: log, held: map[string]int{}}
}

// land runs write now and, when the database is out, holds it under name
// and tries again in the background until it lands. keep, when not nil,
// writes it durably elsewhere (the settle log) meanwhile: it is called
// before land returns, and with each retry until it succeeds. It reports
// the first try's error when that was not an outage (nothing is held then).
func (l *landings) land(ctx context.Context, name string, write, keep func(context.Context) error) error {
	err := write(ctx)
	if err == nil || !commands.IsOutage(err) {
		return err
	}
	l.mu.Lock()
	if l.life.Err() != nil {
		l.mu.Unlock()
		l.log.Error("gateway: the database is out and the process is stopping; a write is left undone", "write", name, "err", err)
		if keep != nil {
			// The log's producer may be closed already: nothing to lose trying.
			l.kept(ctx, name, keep)
		}
		return nil
	}
	l.held[name]++
	l.wg.Add(1)
	l.mu.Unlock()
	kept := keep == nil || l.kept(ctx, name, keep)
	if keep != nil {
		where := "memory"
		if kept {
			where = "log"
		}
		heldSettles.WithLabelValues(where).Inc()
	}
	l.log.Warn("gateway: the database is out; holding a write until it lands", "write", name, "logged", keep != nil && kept, "err", err)
	go func() {
		defer l.wg.Done()
		defer l.release(name)
		for try := 1; ; try++ {
			if !retry.Sleep(l.life, retry.Backoff(landingBackoff, try, landingMaxBackoff)) {
				if kept && keep != nil {
					l.log.Warn("gateway: the process stopped before a held write landed; the settle log lands it", "write", name)
				} else {
					l.log.Error("gateway: the process stopped before a held write landed", "write", name)
				}
				return
			}
			if !kept {
				kept = l.kept(l.life, name, keep)
			}
			err := write(l.life)
			switch {
			case err == nil:
				l.log.Info("gateway: a held write landed", "write", name, "tries", try+1)
				return
			case !commands.IsOutage(err):
				l.log.Error("gateway: a held write was refused", "write", name, "err", err)
				return
			}
		}
	}()
	return nil
}

// kept runs keep and tells whether it succeeded.
func (l *landings) kept(ctx context.Context, name string, keep func(context.Context) error) bool {
	if err := keep(ctx); err != nil {
		l.log.Warn("gateway: a held write is not in the settle log (held in memory only)", "write", name, "err", err)
		return false
	}
	return true
}

func (l *landings) release(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held[name]--; l.held[name] <= 0 {
		delete(l.held, name)
	}
}

// names are the held writes' names with a prefix, without it.
func (l *landings) names(prefix string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := []string{}
	for name := range l.held {
		if rest, ok := strings.CutPrefix(name, prefix); ok {
			out = append(out, rest)
		}
	}
	slices.Sort(out)
	return out
}

// close stops the retries (the process is stopping) and waits for them.
func (l *landings) close() {
	l.mu.Lock()
	l.stop()
	l.mu.Unlock()
	l.wg.Wait()
}

// Names of held writes.
const (
	heldSettle = "settle:"
	heldKey    = "key:"
)

// RunLandings lives as long as the process: when ctx ends, the writes still
// held are given up and their retries stopped (a settle in the settle log
// lands from it; the others' reservations are the sweeper's), then the
// settle log's producer is closed.
func (h *Handlers) RunLandings(ctx context.Context) error {
	<-ctx.Done()
	if n := len(h.landings.names("")); n > 0 {
		h.log.Error("gateway: stopping with writes the database never took; those in the settle log land from it, the sweeper settles the others' reservations at their estimate", "held", n)
	}
	h.landings.close()
	if h.settleLog != nil {
		h.settleLog.Close()
	}
	return nil
}
