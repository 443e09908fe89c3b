package app

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	httpapi "github.com/platform/backend/http"
	"github.com/platform/backend/internal/module"
)

// platformEnv clears what the tests below read and sets the required
// variables, so the developer's environment does not leak in.
func platformEnv(t *testing.T, env map[string]string) {
	t.Helper()
	for _, k := range []string{"KAFKA_PARTITIONS", "PLATFORM_ENV", "OBJECTSTORE_URL", "OBJECTSTORE_PUBLIC_URL",
		"OBJECTSTORE_SIGNING_KEY", "PLATFORM_DATA_DIR", "PLATFORM_SERVICES", "PLATFORM_LISTEN_HOST", "PLATFORM_KEYRING",
		"PLATFORM_KEYRING_ACTIVE", "PLATFORM_KEYRING_SANDBOX", "GATEWAY_KEYRING", "GATEWAY_KEYRING_ACTIVE", "GATEWAY_SANDBOX"} {
		t.Setenv(k, "")
	}
	t.Setenv("DATABASE_URL", "postgres://localhost/test")
	t.Setenv("KAFKA_BROKERS", "127.0.0.1:9092")
	t.Setenv("PLATFORM_DATA_DIR", t.TempDir())
	for k, v := range env {
		t.Setenv(k, v)
	}
}

// TestKafkaPartitionsIsAWholeNumber: the value is read whole, as before the
// modules (fmt.Sscan had taken "3.5" as 3 and "12abc" as 12).
func TestKafkaPartitionsIsAWholeNumber(t *testing.T) {
	for _, v := range []string{"3.5", "12abc", "7 8", "99999999999"} {
		platformEnv(t, map[string]string{"KAFKA_PARTITIONS": v})
		if _, err := FromEnv(); err == nil || !strings.Contains(err.Error(), "KAFKA_PARTITIONS") {
			t.Errorf("KAFKA_PARTITIONS=%q: FromEnv() = %v, want an error naming the variable", v, err)
		}
	}
	platformEnv(t, map[string]string{"KAFKA_PARTITIONS": "6"})
	c, err := FromEnv()
	if err != nil || c.Kafka.Partitions != 6 {
		t.Fatalf("KAFKA_PARTITIONS=6: %d, %v", c.Kafka.Partitions, err)
	}
}

// TestKeyRingIsThePlatformsConfiguration: platformd reads one key ring for
// every module, under the platform's name or the gateway's former one (a
// deployment that set GATEWAY_KEYRING starts unchanged), and a malformed
// one stops the start naming the variable.
func TestKeyRingIsThePlatformsConfiguration(t *testing.T) {
	key := "k1:" + base64.StdEncoding.EncodeToString(make([]byte, 32))
	for _, name := range []string{"PLATFORM_KEYRING", "GATEWAY_KEYRING"} {
		platformEnv(t, map[string]string{name: key, "GATEWAY_RELAY_SIGNING_KEY": base64.StdEncoding.EncodeToString(make([]byte, 32))})
		c, err := FromEnv()
		if err != nil || c.KeyRing.Ring.Active() != "k1" {
			t.Fatalf("%s: active %q, %v", name, c.KeyRing.Ring.Active(), err)
		}
	}
	platformEnv(t, map[string]string{"PLATFORM_KEYRING": "k1:short"})
	if _, err := FromEnv(); err == nil || !strings.Contains(err.Error(), "PLATFORM_KEYRING") {
		t.Fatalf("a malformed ring: %v", err)
	}
}

// TestObjectStorePublicURLRequiredInProduction: the app's default public URL
// (a listener's address) is for development; in production the local store
// requires OBJECTSTORE_PUBLIC_URL, as docs/decisions.md says, and the
// default must not hide that it is missing.
func TestObjectStorePublicURLRequiredInProduction(t *testing.T) {
	platformEnv(t, map[string]string{"PLATFORM_ENV": "production", "OBJECTSTORE_SIGNING_KEY": "k1:" + strings.Repeat("s", 32)})
	_, err := FromEnv()
	if err == nil || !strings.Contains(err.Error(), "OBJECTSTORE_PUBLIC_URL is required in production") {
		t.Fatalf("FromEnv() = %v, want the missing OBJECTSTORE_PUBLIC_URL named", err)
	}
	platformEnv(t, nil)
	c, err := FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if want := "http://" + c.Addrs[c.Services[0]] + "/objects"; c.Objects.PublicURL != want {
		t.Fatalf("development default %q, want %q", c.Objects.PublicURL, want)
	}
}

// TestObjectStorePublicURLNeedsAPath: the local store's signed URLs are
// served beside every service's routes, so a public URL without a path
// would hand every request of every service to the object store.
func TestObjectStorePublicURLNeedsAPath(t *testing.T) {
	for _, u := range []string{"https://files.example.com", "https://files.example.com/"} {
		platformEnv(t, map[string]string{"OBJECTSTORE_PUBLIC_URL": u})
		if _, err := FromEnv(); err == nil || !strings.Contains(err.Error(), "needs a path") {
			t.Errorf("OBJECTSTORE_PUBLIC_URL=%s: FromEnv() = %v, want it refused", u, err)
		}
	}
	svc := httpapi.Service{Name: "status", Actions: []httpapi.Action{{Path: "/api/incidents"}, {Path: "/poll"}}}
	if got := shadowedRoutes("/objects/", svc); len(got) != 0 {
		t.Errorf("/objects/ shadows %v", got)
	}
	if got := shadowedRoutes("/api/", svc); strings.Join(got, " ") != "/api/actions /api/openapi.json /api/health /api/incidents" {
		t.Errorf("/api/ shadows %v", got)
	}
}

// TestDefaultPublicURLsReachTheListener: with PLATFORM_LISTEN_HOST=0.0.0.0
// (the compose file's), a default that points clients at a listener names
// loopback, not the unspecified address.
func TestDefaultPublicURLsReachTheListener(t *testing.T) {
	platformEnv(t, map[string]string{"PLATFORM_LISTEN_HOST": "0.0.0.0"})
	c, err := FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	first := c.Services[0]
	if !strings.HasPrefix(c.Addrs[first], "0.0.0.0:") {
		t.Fatalf("%s listens on %s", first, c.Addrs[first])
	}
	if want := "http://127.0.0.1:" + strings.TrimPrefix(c.Addrs[first], "0.0.0.0:") + "/objects"; c.Objects.PublicURL != want {
		t.Fatalf("object store public URL %q, want %q", c.Objects.PublicURL, want)
	}
	for addr, want := range map[string]string{"[::]:8081": "http://127.0.0.1:8081", ":8081": "http://127.0.0.1:8081",
		"10.0.0.5:8081": "http://10.0.0.5:8081", "[::1]:8082": "http://[::1]:8082", "example.com:80": "http://example.com:80"} {
		if got := module.LocalURL(addr); got != want {
			t.Errorf("LocalURL(%q) = %q, want %q", addr, got, want)
		}
	}
}

// TestJobWorkersAreServicesOfTheirOwn: a context's job workers are named
// "<context>-jobs" in PLATFORM_SERVICES, have their own address variable
// and liveness route, run by default, and may run alone (the object
// store's development URL still names an API listener).
func TestJobWorkersAreServicesOfTheirOwn(t *testing.T) {
	if got := Workers(); len(got) == 0 || got[0] != "publishing-jobs" || !IsWorker("publishing-jobs") || IsWorker("publishing") {
		t.Fatalf("workers %v", got)
	}
	if AddrEnv("publishing-jobs") != "PLATFORM_PUBLISHING_JOBS_ADDR" || HealthPath("publishing-jobs") != "/health" || HealthPath("status") != "/api/health" {
		t.Fatal("address variable or health path")
	}
	platformEnv(t, nil)
	c, err := FromEnv()
	if err != nil || !slices.Contains(c.Services, "publishing-jobs") || c.Addrs["publishing-jobs"] != "127.0.0.1:8094" {
		t.Fatalf("default services %v, addrs %v: %v", c.Services, c.Addrs, err)
	}
	platformEnv(t, map[string]string{"PLATFORM_SERVICES": "publishing-jobs", "PLATFORM_PUBLISHING_JOBS_ADDR": "127.0.0.1:9999"})
	c, err = FromEnv()
	if err != nil || len(c.Services) != 1 || c.Addrs["publishing-jobs"] != "127.0.0.1:9999" {
		t.Fatalf("workers only: %v %v: %v", c.Services, c.Addrs, err)
	}
	if want := "http://" + c.Addrs[Services()[0]] + "/objects"; c.Objects.PublicURL != want {
		t.Fatalf("object store URL %q, want %q", c.Objects.PublicURL, want)
	}
	platformEnv(t, map[string]string{"PLATFORM_SERVICES": "status-jobs"}) // status declares no jobs
	if _, err := FromEnv(); err == nil || !strings.Contains(err.Error(), `unknown service "status-jobs"`) {
		t.Fatalf("an unknown worker: %v", err)
	}
}
