package app_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
)

// TestRunBindsEveryListenerFirst: an address in use fails Run at once,
// naming the service, with nothing left running: the listeners bound
// before it are closed again and no worker has started.
func TestRunBindsEveryListenerFirst(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true})
	a := h.App
	if len(a.Cfg.Services) < 2 {
		t.Fatalf("services %v: the test needs two", a.Cfg.Services)
	}
	first, second := a.Cfg.Services[0], a.Cfg.Services[1]
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	free := freeAddr(t)
	a.Cfg.Addrs[first] = free
	a.Cfg.Addrs[second] = busy.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, true) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "listen "+second) {
			t.Fatalf("Run() = %v, want the listener of %s named", err, second)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not fail on an address in use")
	}
	ln, err := net.Listen("tcp", free)
	if err != nil {
		t.Fatalf("the listener of %s was left open after Run failed: %v", first, err)
	}
	ln.Close()
}

// TestCloseReleasesTheObjectStore: Close releases the object store too (the
// local backend holds its directory open), and may be called again.
func TestCloseReleasesTheObjectStore(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true})
	store := h.App.Platform.Objects
	ctx := context.Background()
	if err := store.Health(ctx); err != nil {
		t.Fatal(err)
	}
	h.App.Close()
	if err := store.Health(ctx); err == nil {
		t.Fatal("the object store still serves after Close")
	}
	h.App.Close()
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
