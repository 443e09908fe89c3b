package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/notifications"
)

// TestFaultNotificationsOnce is the fault suite's "notifications after
// broker restarts (each key POSTed once)" (issue 18): the incident load of
// the suite while the broker stops and starts twice, the second time killed.
// The dispatcher publishes again what the broker wrote before the outage cut
// its batch short; every copy of a key must be on the key's partition, and
// the webhook receiver must get exactly one POST per idempotency key (keyed
// messages, the key claimed before its POST). Besides, every view holds
// every acknowledged command (scenario).
func TestFaultNotificationsOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("the fault suite takes minutes")
	}
	infra := faultStack(t)
	r := scenario(t, "notifications after broker restarts (each key POSTed once)", 0, func(t *testing.T, s *Stack, srv *Server) {
		down := infra.StopKafka(t)
		time.Sleep(3 * time.Second)
		up := infra.StartKafka(t)
		t.Logf("broker: stop took %s, start %s", down.Round(time.Millisecond), up.Round(time.Millisecond))
		// The second stop is a kill -9 while the dispatcher publishes what
		// the first outage held back (a graceful stop lets that backlog
		// drain first), and lasts until a publish has failed: the failed
		// batch's part the broker wrote (and a send it wrote without
		// answering) is published again.
		waitDispatching(t, s, 50, 30*time.Second)
		failures := len(dispatcherFailures(s))
		down = infra.KillKafka(t)
		time.Sleep(3 * time.Second)
		waitDispatcherFailure(t, s, failures, 90*time.Second)
		up = infra.StartKafka(t)
		t.Logf("broker: kill -9 took %s, start %s", down.Round(time.Millisecond), up.Round(time.Millisecond))
		time.Sleep(2 * time.Second)
	})
	var doubled, spread []string
	copies := 0
	for key, n := range r.posts {
		if n != 1 {
			doubled = append(doubled, fmt.Sprintf("%s POSTed %d times", key, n))
		}
	}
	for key, parts := range r.published {
		copies += len(parts) - 1
		for _, p := range parts[1:] {
			if p != parts[0] {
				spread = append(spread, fmt.Sprintf("%s on partitions %v", key, parts))
				break
			}
		}
	}
	sort.Strings(doubled)
	sort.Strings(spread)
	for _, d := range doubled {
		t.Errorf("webhook: %s, want 1", d)
	}
	for _, s := range spread {
		t.Errorf("notifications topic: copies of %s, want one partition", s)
	}
	t.Logf("fault suite:\n%s%s", faultTableHeader, r)
	t.Logf("%d keys published (%d copies published again), %d POSTed; %d keys POSTed more than once, %d with copies on several partitions",
		len(r.published), copies, len(r.posts), len(doubled), len(spread))
}

// publishedNotifications reads the notifications topic: the partition of
// each record, by idempotency key, in offset order per partition.
func publishedNotifications(t *testing.T, s *Stack) map[string][]int32 {
	t.Helper()
	out := map[string][]int32{}
	topic := eventstore.Topics{Prefix: s.Prefix}.Notifications()
	for _, m := range apptest.ReadTopic(t, strings.Split(s.Brokers, ","), topic, 30*time.Second) {
		for _, h := range m.Headers {
			if string(h.Key) == notifications.MetaIdempotencyKey {
				out[string(h.Value)] = append(out[string(h.Value)], m.Partition)
			}
		}
	}
	return out
}

// waitDispatching waits until at least n notifications wait for the
// dispatcher (for within at most).
func waitDispatching(t *testing.T, s *Stack, n int64, within time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if pending := queryInt(t, s.Pool(), `SELECT count(*) FROM notification_states WHERE state='pending'`); pending >= n {
			t.Logf("dispatcher: %d notifications pending", pending)
			return
		}
	}
	t.Logf("dispatcher: never %d notifications pending within %s", n, within)
}

// dispatcherFailures lists the dispatcher's terms that ended in an error
// (a publish that failed) in platformd's log.
func dispatcherFailures(s *Stack) []string {
	raw, _ := os.ReadFile(s.logPath)
	var out []string
	for _, l := range strings.Split(string(raw), "\n") {
		if strings.Contains(l, "leader: term ended") && strings.Contains(l, "lock=notifications.dispatcher") {
			out = append(out, l)
		}
	}
	return out
}

// waitDispatcherFailure waits (for within at most) until the dispatcher's
// log shows a failed term after the before-th.
func waitDispatcherFailure(t *testing.T, s *Stack, before int, within time.Duration) {
	t.Helper()
	start := time.Now()
	for time.Since(start) < within {
		if failed := dispatcherFailures(s); len(failed) > before {
			t.Logf("dispatcher: a publish failed %s into the outage: %s", time.Since(start).Round(time.Second), failed[before])
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("dispatcher: no failed publish within %s", within)
}

// KillKafka ends the fault stack's broker with SIGKILL (no controlled
// shutdown: requests in flight are written or not, never answered) and
// waits until it is gone; StartKafka starts it again.
func (f *faultInfra) KillKafka(t *testing.T) time.Duration {
	t.Helper()
	start := time.Now()
	raw, err := os.ReadFile(filepath.Join(f.dir, "kafka", "kafka.pid"))
	if err != nil {
		t.Fatalf("broker pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatalf("broker pid %q: %v", raw, err)
	}
	if cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err != nil || !strings.Contains(string(cmdline), "kafka.Kafka") {
		t.Fatalf("pid %d is not the fault stack's broker (%v)", pid, err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 %d: %v", pid, err)
	}
	for syscall.Kill(pid, 0) == nil && time.Since(start) < 30*time.Second {
		time.Sleep(50 * time.Millisecond)
	}
	return time.Since(start)
}
