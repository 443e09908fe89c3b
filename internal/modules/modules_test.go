package modules_test

import (
	"net"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/platform/backend/internal/modules"
)

// TestModulesAreDistinctAndPublished: modules, their services and their
// default listeners are distinct (two services on one default port would
// fail platformd's start), each module passes its own Check, and every
// default port is in the range the compose file publishes, which names no
// service (a port outside it would be served but unreachable there).
func TestModulesAreDistinctAndPublished(t *testing.T) {
	compose, err := os.ReadFile("../../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`"(\d+)-(\d+):(\d+)-(\d+)"`).FindSubmatch(compose)
	if m == nil {
		t.Fatal("docker-compose.yml publishes no port range")
	}
	low, _ := strconv.Atoi(string(m[3]))
	high, _ := strconv.Atoi(string(m[4]))
	names, services, ports := map[string]bool{}, map[string]bool{}, map[string]string{}
	for _, mod := range modules.All() {
		if err := mod.Check(); err != nil {
			t.Error(err)
		}
		if names[mod.Name] {
			t.Errorf("module %s is listed twice", mod.Name)
		}
		names[mod.Name] = true
		if mod.Service == nil {
			continue
		}
		s := mod.Service
		if services[s.Name] {
			t.Errorf("module %s: service name %s is taken", mod.Name, s.Name)
		}
		services[s.Name] = true
		_, port, err := net.SplitHostPort(s.DefaultAddr)
		if err != nil {
			t.Errorf("module %s: default address %q: %v", mod.Name, s.DefaultAddr, err)
			continue
		}
		if other, ok := ports[port]; ok {
			t.Errorf("module %s: default port %s is %s's", mod.Name, port, other)
		}
		ports[port] = s.Name
		if n, _ := strconv.Atoi(port); n < low || n > high {
			t.Errorf("module %s: default port %s is outside the compose file's published range %d-%d", mod.Name, port, low, high)
		}
	}
}
