package app

import (
	"os"
	"runtime/debug"
)

// DefaultGCPercent is platformd's GOGC unless the environment sets one. The
// default 100 spent ~8% of the process's CPU in the collector under command
// load; the heap here is small next to the machine's memory, so trading
// memory for CPU is the better deal.
const DefaultGCPercent = 400

// TuneGC applies DefaultGCPercent when GOGC is not set.
func TuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(DefaultGCPercent)
	}
}
