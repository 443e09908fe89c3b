package e2e

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Ports for the platformd processes the tests start. A port that a
// listener on 127.0.0.1:0 got and let go is an ephemeral one, which the
// kernel hands out again as the local port of any outgoing connection (a
// Kafka client's, a database connection's) before platformd binds it: a
// start then fails with "address already in use" (seen in CI). So the
// ports come from below the ephemeral range, are checked free, and are
// never handed out twice by this test binary.
var ports struct {
	mu     sync.Mutex
	handed map[int]bool
}

// reservedPorts are the stacks' and make run's fixed ports.
var reservedPorts = map[int]bool{15432: true, 19092: true, 19093: true, 25432: true, 29092: true, 29093: true}

// ephemeralLow is the first port of the kernel's ephemeral range.
func ephemeralLow() int {
	raw, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	low, err := strconv.Atoi(strings.Fields(string(raw) + " x")[0])
	if err != nil || low <= 12000 {
		return 32768
	}
	return low
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ports.mu.Lock()
	defer ports.mu.Unlock()
	if ports.handed == nil {
		ports.handed = map[int]bool{}
	}
	low, high := 10000, ephemeralLow()-1
	for range 1000 {
		p := low + rand.IntN(high-low)
		if ports.handed[p] || reservedPorts[p] || (p >= 8080 && p <= 8099) {
			continue
		}
		addr := fmt.Sprintf("127.0.0.1:%d", p)
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			continue // taken
		}
		ln.Close()
		ports.handed[p] = true
		return addr
	}
	t.Fatal("no free port below the ephemeral range")
	return ""
}
