package outbound

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeResolver answers names of the test's choosing; anything else is not found.
type fakeResolver map[string][]string

func (r fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	ips, ok := r[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	out := make([]netip.Addr, len(ips))
	for i, ip := range ips {
		out[i] = netip.MustParseAddr(ip)
	}
	return out, nil
}

// listenOn starts an httptest server on a given loopback address. 127.0.0.2
// stands in for a public host: the tests allow exactly it, so 127.0.0.1
// stays an internal address the client must refuse.
func listenOn(t *testing.T, ip string, h http.Handler, tls bool) *httptest.Server {
	t.Helper()
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Fatalf("listen on %s: %v", ip, err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = ln
	if tls {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv
}

func port(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	_, p, err := net.SplitHostPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestClient(t *testing.T) {
	var internalHits atomic.Int64
	internal := listenOn(t, "127.0.0.1", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		internalHits.Add(1)
		fmt.Fprint(w, "secret metrics")
	}), false)
	internalPort := port(t, internal)

	const maxBody = 1 << 10
	var public *httptest.Server
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") })
	mux.HandleFunc("/auth", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			w.WriteHeader(http.StatusTeapot) // credentials reached the server
			return
		}
		fmt.Fprint(w, "no credentials")
	})
	mux.HandleFunc("/to-internal", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.1:"+internalPort+"/metrics", http.StatusFound)
	})
	mux.HandleFunc("/to-internal-name", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://internal.test:"+internalPort+"/metrics", http.StatusFound)
	})
	mux.HandleFunc("/to-decimal", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://2130706433:"+internalPort+"/metrics", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/to-ftp", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "ftp://public.test/file", http.StatusFound)
	})
	mux.HandleFunc("/to-ok", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/ok", http.StatusFound)
	})
	mux.HandleFunc("/to-userinfo", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.Replace(public.URL, "http://", "http://admin:secret@", 1)+"/auth", http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/big", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, strings.Repeat("x", maxBody+1)) })
	mux.HandleFunc("/exact", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, strings.Repeat("x", maxBody)) })
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	})
	public = listenOn(t, "127.0.0.2", mux, false)
	publicTLS := listenOn(t, "127.0.0.2", mux, true)
	publicPort := port(t, public)

	closed, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()

	resolver := fakeResolver{
		"public.test":   {"127.0.0.2"},
		"internal.test": {"127.0.0.1"},
		"metadata.test": {"169.254.169.254"},
		"mapped.test":   {"::ffff:127.0.0.1"},
		// Answers an internal and an allowed address: only the allowed one is dialled.
		"mixed.test": {"127.0.0.1", "127.0.0.2"},
	}
	cfg := Config{Timeout: 2 * time.Second, MaxBodyBytes: maxBody,
		AllowNetworks: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}}
	client, err := New(cfg, nil, WithResolver(resolver))
	if err != nil {
		t.Fatal(err)
	}
	fast, err := New(Config{Timeout: 300 * time.Millisecond, AllowNetworks: cfg.AllowNetworks}, nil, WithResolver(resolver))
	if err != nil {
		t.Fatal(err)
	}
	system, err := New(Config{Timeout: 2 * time.Second}, nil) // the system resolver, nothing allowed
	if err != nil {
		t.Fatal(err)
	}

	pub := "http://public.test:" + publicPort
	tests := []struct {
		name       string
		client     *Client
		url        string
		wantStatus int
		wantReason Reason
		wantBody   string
	}{
		{"public name", client, pub + "/ok", 200, "", "ok"},
		{"allow-listed address", client, public.URL + "/ok", 200, "", "ok"},
		{"loopback literal", client, internal.URL + "/metrics", 0, ReasonBlocked, ""},
		{"loopback with the system resolver", system, internal.URL + "/metrics", 0, ReasonBlocked, ""},
		{"localhost", system, "http://localhost:" + internalPort + "/metrics", 0, ReasonBlocked, ""},
		{"decimal IPv4 host", system, "http://2130706433:" + internalPort + "/metrics", 0, ReasonBlocked, ""},
		{"hex IPv4 host", system, "http://0x7f.1:" + internalPort + "/metrics", 0, ReasonBlocked, ""},
		{"octal IPv4 host", system, "http://0177.0.0.1:" + internalPort + "/metrics", 0, ReasonBlocked, ""},
		{"mapped IPv6 literal", system, "http://[::ffff:127.0.0.1]:" + internalPort + "/metrics", 0, ReasonBlocked, ""},
		{"IPv6 loopback", system, "http://[::1]:" + internalPort + "/metrics", 0, ReasonBlocked, ""},
		{"metadata literal", system, "http://169.254.169.254/latest/meta-data/", 0, ReasonBlocked, ""},
		{"name resolving to loopback", client, "http://internal.test:" + internalPort + "/metrics", 0, ReasonBlocked, ""},
		{"name resolving to metadata", client, "http://metadata.test/latest/meta-data/", 0, ReasonBlocked, ""},
		{"name resolving to mapped loopback", client, "http://mapped.test:" + internalPort + "/metrics", 0, ReasonBlocked, ""},
		{"name resolving to internal and allowed", client, "http://mixed.test:" + publicPort + "/ok", 200, "", "ok"},
		{"redirect to 127.0.0.1", client, pub + "/to-internal", 0, ReasonBlocked, ""},
		{"redirect to a name of 127.0.0.1", client, pub + "/to-internal-name", 0, ReasonBlocked, ""},
		{"redirect to a decimal host", client, pub + "/to-decimal", 0, ReasonBlocked, ""},
		{"redirect to ftp", client, pub + "/to-ftp", 0, ReasonRedirect, ""},
		{"redirect loop", client, pub + "/loop", 0, ReasonRedirect, ""},
		{"redirect followed", client, pub + "/to-ok", 200, "", "ok"},
		{"userinfo is not sent", client, "http://admin:secret@public.test:" + publicPort + "/auth", 200, "", "no credentials"},
		{"userinfo of a redirect is not sent", client, pub + "/to-userinfo", 200, "", "no credentials"},
		{"body at the bound", client, pub + "/exact", 200, "", strings.Repeat("x", maxBody)},
		{"body past the bound", client, pub + "/big", 200, ReasonTooLarge, strings.Repeat("x", maxBody)},
		{"timeout", fast, pub + "/slow", 0, ReasonTimeout, ""},
		{"refused", client, "http://" + closedAddr + "/", 0, ReasonRefused, ""},
		{"unknown name", client, "http://nowhere.test/", 0, ReasonDNS, ""},
		{"numeric host that is no address", system, "http://1.2.3.4.5/", 0, ReasonDNS, ""},
		{"untrusted certificate", client, publicTLS.URL + "/ok", 0, ReasonTLS, ""},
		{"not http", client, "ftp://public.test/", 0, ReasonInvalidURL, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := internalHits.Load()
			resp, err := tt.client.Get(context.Background(), tt.url)
			if got := ReasonOf(err); got != tt.wantReason {
				t.Fatalf("reason %q (%v), want %q", got, err, tt.wantReason)
			}
			if err != nil && err.Error() != string(tt.wantReason) {
				t.Fatalf("error text %q: only the reason may show", err.Error())
			}
			status := 0
			if resp != nil {
				status = resp.StatusCode
			}
			if status != tt.wantStatus {
				t.Fatalf("status %d, want %d", status, tt.wantStatus)
			}
			if resp != nil && string(resp.Body) != tt.wantBody {
				t.Fatalf("body %q, want %q", resp.Body, tt.wantBody)
			}
			if n := internalHits.Load() - before; n != 0 {
				t.Fatalf("the internal server was reached %d times", n)
			}
		})
	}
}

// TestControlRefusesAtConnect: the dialer's last check sees the socket's
// address, whatever handed it over.
func TestControlRefusesAtConnect(t *testing.T) {
	c, err := New(Config{AllowNetworks: []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		addr string
		want error
	}{
		{"127.0.0.1:5432", errBlocked},
		{"[::1]:9092", errBlocked},
		{"[::ffff:169.254.169.254]:80", errBlocked},
		{"10.1.2.3:443", nil},
		{"93.184.216.34:443", nil},
		{"not an address", errBlocked},
	}
	for _, tt := range tests {
		if got := c.control("tcp", tt.addr, nil); got != tt.want {
			t.Errorf("control(%s) = %v, want %v", tt.addr, got, tt.want)
		}
	}
}
