// Command schedsample samples the scheduler's view of the stack beside a
// benchmark: every 10 ms, for each group of threads, the CPU time they ran
// and the time they waited runnable in the run queue (/proc/<tid>/schedstat),
// plus the machine's busy share. Groups: the PostgreSQL backends (children of
// the postmaster), the broker JVM's collector threads ("GC Thread", "G1 ...",
// "VM Thread") and its other threads, and the benchmark process's threads.
// A thread's wait is added when it next runs, so a long stall shows in the
// bin where it ended. It was written to tell a commit tail caused by CPU
// contention (waits) from one caused by I/O or locks (neither run nor wait).
//
//	go run ./bench/schedsample <postmaster pid> <broker pid> <benchmark comm prefix> 60s > file
//
// One line a bin, milliseconds: t run wait per group, busy and total jiffies,
// the number of backends. It costs about 0.1 core.
package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// sched reads a thread's run and run-queue wait (ns).
func sched(path string) (run, wait int64, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, false
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, 0, false
	}
	run, _ = strconv.ParseInt(f[0], 10, 64)
	wait, _ = strconv.ParseInt(f[1], 10, 64)
	return run, wait, true
}

// children are the pids whose parent is ppid.
func children(ppid string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndex(s, ")")+2:])
		if len(f) > 1 && f[1] == ppid {
			out = append(out, e.Name())
		}
	}
	return out
}

// busy is the machine's busy and total jiffies (/proc/stat).
func busy() (busy, total int64) {
	b, _ := os.ReadFile("/proc/stat")
	f := strings.Fields(strings.SplitN(string(b), "\n", 2)[0])[1:]
	for i, x := range f {
		v, _ := strconv.ParseInt(x, 10, 64)
		total += v
		if i != 3 && i != 4 { // idle, iowait
			busy += v
		}
	}
	return busy, total
}

// group is a set of threads, with each one's last reading: a thread that
// appears or ends counts only between two of its own readings.
type group struct {
	paths []string
	last  map[string][2]int64
}

func (g *group) delta() (run, wait float64) {
	next := make(map[string][2]int64, len(g.paths))
	for _, p := range g.paths {
		r, w, ok := sched(p)
		if !ok {
			continue
		}
		next[p] = [2]int64{r, w}
		if prev, seen := g.last[p]; seen {
			run += float64(r-prev[0]) / 1e6
			wait += float64(w-prev[1]) / 1e6
		}
	}
	g.last = next
	return run, wait
}

func tasks(pid string) []string {
	ts, _ := filepath.Glob("/proc/" + pid + "/task/*")
	return ts
}

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: schedsample <postmaster pid> <broker pid> <benchmark comm prefix> <duration>")
		os.Exit(2)
	}
	postmaster, broker, benchName := os.Args[1], os.Args[2], os.Args[3]
	dur, err := time.ParseDuration(os.Args[4])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	var pg, gc, jvm, bench group
	refresh := func() {
		pg.paths, gc.paths, jvm.paths, bench.paths = nil, nil, nil, nil
		for _, c := range children(postmaster) {
			pg.paths = append(pg.paths, "/proc/"+c+"/schedstat")
		}
		for _, t := range tasks(broker) {
			comm, _ := os.ReadFile(t + "/comm")
			name := strings.TrimSpace(string(comm))
			if strings.HasPrefix(name, "GC Thread") || strings.HasPrefix(name, "G1 ") || name == "VM Thread" {
				gc.paths = append(gc.paths, t+"/schedstat")
			} else {
				jvm.paths = append(jvm.paths, t+"/schedstat")
			}
		}
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			comm, err := os.ReadFile("/proc/" + e.Name() + "/comm")
			if err == nil && strings.HasPrefix(strings.TrimSpace(string(comm)), benchName) {
				for _, t := range tasks(e.Name()) {
					bench.paths = append(bench.paths, t+"/schedstat")
				}
			}
		}
	}
	fmt.Fprintln(out, "t_ms pg_run_ms pg_wait_ms gc_run_ms gc_wait_ms jvm_run_ms jvm_wait_ms bench_run_ms bench_wait_ms busy_jiffies total_jiffies backends")
	start := time.Now()
	refresh()
	for _, g := range []*group{&pg, &gc, &jvm, &bench} {
		g.delta()
	}
	b0, t0 := busy()
	lastRefresh := start
	for time.Since(start) < dur {
		time.Sleep(10 * time.Millisecond)
		if time.Since(lastRefresh) > time.Second { // backends and threads come and go
			refresh()
			lastRefresh = time.Now()
		}
		pr, pw := pg.delta()
		gr, gw := gc.delta()
		jr, jw := jvm.delta()
		br, bw := bench.delta()
		b1, t1 := busy()
		fmt.Fprintf(out, "%d %.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f %d %d %d\n", time.Since(start).Milliseconds(),
			pr, pw, gr, gw, jr, jw, br, bw, b1-b0, t1-t0, len(pg.paths))
		b0, t0 = b1, t1
	}
}
