package bench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// cpuSample is the CPU time used so far by this process, by the PostgreSQL
// server's processes, by the Kafka broker (the JVM) and by the whole machine,
// read from /proc (Linux). It lets a benchmark tell which process a workload
// saturates. Zero values when /proc is not readable.
type cpuSample struct {
	at                       time.Time
	self, postgres, kafka    float64 // seconds of user + system time
	backends                 float64 // of postgres: the backends of the benchmark's database alone
	children                 float64 // this process's children once waited for (ffmpeg)
	machineBusy, machineIdle float64 // seconds, summed over all CPUs
}

// PostgreSQL backends are told apart by their process title
// ("postgres: <user> <database> <client> <state>"): the backends of the
// benchmark's database and the server's own processes (WAL writer,
// checkpointer, ...) count as "PostgreSQL"; backends of other databases (test
// suites running at the same time) count as other load.

var clockTicks = 100.0 // USER_HZ: 100 on every Linux architecture Go supports

func sampleCPU(database string) cpuSample {
	s := cpuSample{at: time.Now()}
	if raw, err := os.ReadFile("/proc/stat"); err == nil {
		line, _, _ := strings.Cut(string(raw), "\n")
		f := strings.Fields(line)
		for i := 1; i < len(f) && i <= 8; i++ { // user nice system idle iowait irq softirq steal
			v, _ := strconv.ParseFloat(f[i], 64)
			if i == 4 || i == 5 {
				s.machineIdle += v / clockTicks
			} else {
				s.machineBusy += v / clockTicks
			}
		}
	}
	self := os.Getpid()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		raw, err := os.ReadFile(d + "/stat")
		if err != nil {
			continue
		}
		open, close := bytes.IndexByte(raw, '('), bytes.LastIndexByte(raw, ')')
		if open < 0 || close < open {
			continue
		}
		comm := string(raw[open+1 : close])
		f := strings.Fields(string(raw[close+1:])) // f[0] is field 3 (state); utime, stime are fields 14, 15
		if len(f) < 15 {
			continue
		}
		ut, _ := strconv.ParseFloat(f[11], 64)
		st, _ := strconv.ParseFloat(f[12], 64)
		secs := (ut + st) / clockTicks
		pid, _ := strconv.Atoi(filepath.Base(d))
		switch {
		case pid == self:
			s.self += secs
			cut, _ := strconv.ParseFloat(f[13], 64) // cutime, cstime: fields 16, 17
			cst, _ := strconv.ParseFloat(f[14], 64)
			s.children += (cut + cst) / clockTicks
		case comm == "postgres":
			title, _ := os.ReadFile(d + "/cmdline")
			f := strings.Fields(strings.ReplaceAll(string(title), "\x00", " "))
			// A client backend's title is "postgres: <user> <database> <host(port)> ...".
			if len(f) >= 4 && f[0] == "postgres:" && strings.Contains(f[3], "(") && f[2] != database {
				continue
			}
			if len(f) >= 4 && f[0] == "postgres:" && strings.Contains(f[3], "(") {
				s.backends += secs
			}
			s.postgres += secs
		case comm == "java":
			s.kafka += secs
		}
	}
	return s
}

// cpuUse is the CPU used between two samples.
type cpuUse struct {
	wall                  time.Duration
	self, postgres, kafka float64 // seconds
	backends              float64 // of postgres: the benchmark database's backends
	children              float64 // seconds of this process's children that ended in between (ffmpeg)
	busy                  float64 // fraction of all CPUs busy (any process)
	other                 float64 // seconds used by every other process
}

func (a cpuSample) to(b cpuSample) cpuUse {
	u := cpuUse{wall: b.at.Sub(a.at), self: b.self - a.self, postgres: b.postgres - a.postgres, kafka: b.kafka - a.kafka,
		backends: b.backends - a.backends, children: b.children - a.children}
	if total := (b.machineBusy - a.machineBusy) + (b.machineIdle - a.machineIdle); total > 0 {
		u.busy = (b.machineBusy - a.machineBusy) / total
		u.other = max(0, (b.machineBusy-a.machineBusy)-u.self-u.postgres-u.kafka-u.children)
	}
	return u
}

// perOp describes the use per operation, e.g. per command or per event.
func (u cpuUse) perOp(ops int, unit string) string {
	if u.wall <= 0 || ops == 0 {
		return "no CPU figures"
	}
	per := func(s float64) float64 { return s * 1e6 / float64(ops) }
	cores := func(s float64) float64 { return s / u.wall.Seconds() }
	return fmt.Sprintf("CPU: machine %.0f%% busy (%d cores); per %s: Go process %.0f µs (%.2f cores), PostgreSQL %.0f µs (%.2f cores), Kafka %.0f µs (%.2f cores); other processes %.2f cores",
		100*u.busy, runtime.NumCPU(), unit, per(u.self), cores(u.self), per(u.postgres), cores(u.postgres), per(u.kafka), cores(u.kafka), cores(u.other))
}

// backendsPerOp is the CPU per operation of the benchmark database's own
// backends (PostgreSQL's figure without the server's shared processes,
// which work for every database on the server), in µs.
func (u cpuUse) backendsPerOp(ops int) float64 {
	if ops == 0 {
		return 0
	}
	return u.backends * 1e6 / float64(ops)
}
