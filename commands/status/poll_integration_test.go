package status_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	statuscmd "github.com/platform/backend/commands/status"
	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/module"
	statusmod "github.com/platform/backend/internal/modules/status"
	"github.com/platform/backend/internal/testenv"
)

type pollReport struct {
	Polled  int `json:"polled"`
	Skipped int `json:"skipped"`
	Results []struct {
		ComponentID string `json:"component_id"`
		HTTPStatus  int    `json:"http_status"`
		Error       string `json:"error"`
		Status      string `json:"status"`
		Skipped     bool   `json:"skipped"`
	} `json:"results"`
}

type problem struct {
	Code   string `json:"code"`
	Errors []struct {
		Pointer string `json:"pointer"`
	} `json:"errors"`
}

func must(t *testing.T, res apptest.Response, status int, what string) {
	t.Helper()
	if res.Status != status {
		t.Fatalf("%s: %d %s, want %d", what, res.Status, res.Body, status)
	}
}

func upsert(h *apptest.Harness, t *testing.T, token, id, url string) apptest.Response {
	t.Helper()
	return h.Do(t, "status", http.MethodPut, "/api/components/"+id, token, map[string]any{
		"componentHost": id + ".example.com", "componentName": strings.ToUpper(id), "checkUrl": url})
}

func poll(h *apptest.Harness, t *testing.T, token string) pollReport {
	t.Helper()
	res := h.Do(t, "status", http.MethodPost, "/poll", token, nil)
	must(t, res, http.StatusOK, "poll")
	var out pollReport
	res.JSON(t, &out)
	return out
}

// answer is a response (or a transport error) got off the test goroutine,
// where neither t.Fatal nor h.Do (which calls it) may run.
type answer struct {
	res apptest.Response
	err error
}

func send(h *apptest.Harness, method, path, token string, body string) answer {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, h.URLs["status"]+path, rd)
	if err != nil {
		return answer{err: err}
	}
	if token == "" {
		token = h.APIKey
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := h.Client.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return answer{res: apptest.Response{Status: resp.StatusCode, Header: resp.Header, Body: raw}, err: err}
}

func upsertBody(id, url string) string {
	return fmt.Sprintf(`{"componentHost":%q,"componentName":%q,"checkUrl":%q}`, id+".example.com", strings.ToUpper(id), url)
}

// serveOn starts a fake server on a loopback address of the test's choosing.
func serveOn(t *testing.T, ip string, h http.Handler) *httptest.Server {
	t.Helper()
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Fatalf("listen on %s: %v", ip, err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// TestPollRightAfterUpsert: a poll sees the component registered just
// before it. Without workers the read model never catches up, so a poll
// that read it would poll nothing; the write side has the component at once.
func TestPollRightAfterUpsert(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true})
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hits.Add(1) }))
	t.Cleanup(srv.Close)

	for i := range 3 {
		id := fmt.Sprintf("api-%d", i)
		must(t, upsert(h, t, "", id, srv.URL+"/health"), http.StatusOK, "upsert "+id)
		out := poll(h, t, "")
		if out.Polled != i+1 || out.Results[i].ComponentID != id || out.Results[i].HTTPStatus != 200 {
			t.Fatalf("poll right after upsert %d: %+v, want %d components polled", i, out, i+1)
		}
	}
	if n := hits.Load(); n != 1+2+3 {
		t.Fatalf("the check URL was called %d times, want 6", n)
	}
}

// TestPollThroughOutbound: checks go through the outbound client. With
// only 127.0.0.2 allowed (standing in for a public host), a component whose
// URL names, or redirects to, 127.0.0.1 is reported blocked and never
// reached; failures are reason words, never dial errors; URLs with
// credentials or internal literal addresses are refused at upsert.
func TestPollThroughOutbound(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true, Configure: func(c *app.Config) {
		c.Outbound.AllowNetworks = []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}
	}})
	var internalHits atomic.Int64
	internal := serveOn(t, "127.0.0.1", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		internalHits.Add(1)
		fmt.Fprint(w, "secret metrics")
	}))
	_, internalPort, _ := net.SplitHostPort(internal.Listener.Addr().String())
	public := serveOn(t, "127.0.0.2", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-internal":
			http.Redirect(w, r, internal.URL+"/metrics", http.StatusFound)
		case "/auth":
			if r.Header.Get("Authorization") != "" {
				w.WriteHeader(http.StatusTeapot)
			}
		}
	}))
	closed, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	closedURL := "http://" + closed.Addr().String() + "/"
	closed.Close()

	refused := []struct{ id, url, pointer string }{
		{"literal", internal.URL + "/metrics", "/checkUrl"},
		{"decimal", "http://2130706433:" + internalPort + "/", "/checkUrl"},
		{"hex", "http://0x7f.1:" + internalPort + "/", "/checkUrl"},
		{"mapped", "http://[::ffff:127.0.0.1]:" + internalPort + "/", "/checkUrl"},
		{"metadata", "http://169.254.169.254/latest/meta-data/", "/checkUrl"},
		{"userinfo", strings.Replace(public.URL, "http://", "http://admin:secret@", 1) + "/auth", "/checkUrl"},
		{"gopher", "gopher://127.0.0.2:70/", "/checkUrl"},
	}
	for _, tt := range refused {
		res := upsert(h, t, "", tt.id, tt.url)
		must(t, res, http.StatusUnprocessableEntity, "upsert "+tt.id)
		var p problem
		res.JSON(t, &p)
		if p.Code != "invalid_input" || len(p.Errors) == 0 || p.Errors[0].Pointer != tt.pointer {
			t.Fatalf("upsert %s: %s, want invalid_input at %s", tt.id, res.Body, tt.pointer)
		}
	}

	components := []struct{ id, url, wantError string }{
		{"a-ok", public.URL + "/", ""},
		{"b-localhost", "http://localhost:" + internalPort + "/metrics", "blocked"}, // a name: judged when dialled
		{"c-redirect", public.URL + "/to-internal", "blocked"},
		{"d-closed", closedURL, "refused"},
		{"e-nowhere", "http://nowhere.invalid/", "dns"},
	}
	for _, c := range components {
		must(t, upsert(h, t, "", c.id, c.url), http.StatusOK, "upsert "+c.id)
	}
	res := h.Do(t, "status", http.MethodPost, "/poll", "", nil)
	must(t, res, http.StatusOK, "poll")
	for _, leak := range []string{"dial", "connect", "127.0.0.1", "refused:", "lookup"} {
		if strings.Contains(string(res.Body), leak) {
			t.Fatalf("poll answer shows %q: %s", leak, res.Body)
		}
	}
	var out pollReport
	res.JSON(t, &out)
	if out.Polled != len(components) {
		t.Fatalf("poll: %s, want %d polled", res.Body, len(components))
	}
	for i, c := range components {
		r := out.Results[i]
		if r.ComponentID != c.id || r.Error != c.wantError {
			t.Errorf("%s: %+v, want error %q", c.id, r, c.wantError)
		}
		if c.wantError == "" && r.HTTPStatus != 200 {
			t.Errorf("%s: status %d, want 200", c.id, r.HTTPStatus)
		}
	}
	if n := internalHits.Load(); n != 0 {
		t.Fatalf("the internal server was reached %d times", n)
	}
}

// TestComponentCap: an organization holds at most MaxComponents; concurrent
// registrations cannot overshoot it; changing an existing one still works;
// other organizations are not affected.
func TestComponentCap(t *testing.T) {
	const limit = 3
	h := apptest.Start(t, apptest.Options{NoWorkers: true, Configure: func(c *app.Config) {
		module.SectionOf[*statusmod.Config](c.Modules).Checks.MaxComponents = limit
	}})
	var wg sync.WaitGroup
	answers := make([]answer, 8)
	for i := range answers {
		wg.Go(func() {
			answers[i] = send(h, http.MethodPut, "/api/components/c"+strconv.Itoa(i), "",
				upsertBody("c"+strconv.Itoa(i), "https://status.example.com/"+strconv.Itoa(i)))
		})
	}
	wg.Wait()
	codes := make([]int, len(answers))
	for i, a := range answers {
		if a.err != nil {
			t.Fatalf("upsert c%d: %v", i, a.err)
		}
		codes[i] = a.res.Status
	}
	ok := 0
	for _, c := range codes {
		switch c {
		case http.StatusOK:
			ok++
		case http.StatusConflict:
		default:
			t.Fatalf("concurrent upserts answered %v", codes)
		}
	}
	if ok != limit {
		t.Fatalf("concurrent upserts: %d registered (%v), want exactly %d", ok, codes, limit)
	}
	res := upsert(h, t, "", "one-more", "https://status.example.com/more")
	must(t, res, http.StatusConflict, "upsert past the cap")
	var p problem
	res.JSON(t, &p)
	if p.Code != "component_limit_reached" {
		t.Fatalf("upsert past the cap: %s, want component_limit_reached", res.Body)
	}
	for i, c := range codes {
		if c == http.StatusOK {
			must(t, upsert(h, t, "", "c"+strconv.Itoa(i), "https://status.example.com/changed"), http.StatusOK, "change at the cap")
			break
		}
	}
	_, other := h.NewOrganization(t, "Other", testenv.UniqueName("other"), apptest.DefaultScopes...)
	must(t, upsert(h, t, other, "c0", "https://status.example.com/0"), http.StatusOK, "another organization's upsert")
}

// TestManualPollRateLimit: one POST /poll per interval per organization.
func TestManualPollRateLimit(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true, Configure: func(c *app.Config) {
		module.SectionOf[*statusmod.Config](c.Modules).Checks.ManualPollInterval = time.Hour
	}})
	poll(h, t, "")
	res := h.Do(t, "status", http.MethodPost, "/poll", "", nil)
	must(t, res, http.StatusTooManyRequests, "second poll")
	var p problem
	res.JSON(t, &p)
	retry, err := strconv.Atoi(res.Header.Get("Retry-After"))
	if p.Code != "rate_limited" || err != nil || retry < 3590 || retry > 3600 {
		t.Fatalf("second poll: %s Retry-After %q, want rate_limited within the hour", res.Body, res.Header.Get("Retry-After"))
	}
	_, other := h.NewOrganization(t, "Other", testenv.UniqueName("other"), apptest.DefaultScopes...)
	poll(h, t, other) // the limit is per organization
}

// TestSlowTenantDoesNotStallOthers: an organization's checks run in
// parallel (OrgConcurrency at once) and none starts after its budget, so
// a poll of six components that each hang until the check timeout ends
// after about one timeout, not six, and another organization's poll running
// at the same time is not held up.
func TestSlowTenantDoesNotStallOthers(t *testing.T) {
	const timeout = 1500 * time.Millisecond
	h := apptest.Start(t, apptest.Options{NoWorkers: true, Configure: func(c *app.Config) {
		module.SectionOf[*statusmod.Config](c.Modules).Checks = statuscmd.Config{CheckTimeout: timeout, Workers: 4, OrgConcurrency: 2, OrgBudget: 500 * time.Millisecond,
			ManualPollInterval: -1}
	}})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	t.Cleanup(hang.Close)
	fast := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(fast.Close)
	for i := range 6 {
		must(t, upsert(h, t, "", "slow-"+strconv.Itoa(i), hang.URL), http.StatusOK, "upsert slow")
	}
	_, other := h.NewOrganization(t, "Other", testenv.UniqueName("other"), apptest.DefaultScopes...)
	for i := range 3 {
		must(t, upsert(h, t, other, "fast-"+strconv.Itoa(i), fast.URL), http.StatusOK, "upsert fast")
	}

	slowDone := make(chan answer, 1)
	start := time.Now()
	go func() { slowDone <- send(h, http.MethodPost, "/poll", "", "") }()
	time.Sleep(100 * time.Millisecond) // the slow organization holds its checks
	fastStart := time.Now()
	fastOut := poll(h, t, other)
	if took := time.Since(fastStart); took > time.Second || fastOut.Polled != 3 {
		t.Fatalf("the other organization's poll took %s and polled %d, want 3 well under a second", took, fastOut.Polled)
	}
	slow := <-slowDone
	took := time.Since(start)
	if slow.err != nil {
		t.Fatalf("slow poll after %s: %v", took, slow.err)
	}
	must(t, slow.res, http.StatusOK, "slow poll")
	var slowOut pollReport
	slow.res.JSON(t, &slowOut)
	// Two checks start at once and time out; the budget has passed by then,
	// so the other four are skipped (not recorded).
	if took > timeout+time.Second {
		t.Fatalf("the slow organization's poll took %s, want about one check timeout (%s)", took, timeout)
	}
	if slowOut.Polled != 2 || slowOut.Skipped != 4 {
		t.Fatalf("slow poll: %+v, want 2 polled (timeouts) and 4 skipped", slowOut)
	}
	for _, r := range slowOut.Results {
		if (!r.Skipped && r.Error != "timeout") || (r.Skipped && r.Status != "operational") {
			t.Fatalf("slow poll result %+v", r)
		}
	}
}

// TestRegistrationsDoNotStarveThePool: a registration holds two
// connections (the organization's lock and the command); many at once on a
// small pool must still all finish, not each hold one connection and wait
// for a second.
func TestRegistrationsDoNotStarveThePool(t *testing.T) {
	h := apptest.Start(t, apptest.Options{NoWorkers: true, Configure: func(c *app.Config) {
		sep := "?"
		if strings.Contains(c.DatabaseURL, "?") {
			sep = "&"
		}
		c.DatabaseURL += sep + "pool_max_conns=4"
	}})
	client := *h.Client
	client.Timeout = 10 * time.Second // a starved pool waits forever; fail well before
	h.Client = &client
	var wg sync.WaitGroup
	answers := make([]answer, 16)
	start := time.Now()
	for i := range answers {
		wg.Go(func() {
			id := "p" + strconv.Itoa(i)
			answers[i] = send(h, http.MethodPut, "/api/components/"+id, "", upsertBody(id, "https://status.example.com/"+id))
		})
	}
	wg.Wait()
	for i, a := range answers {
		if a.err != nil || a.res.Status != http.StatusOK {
			t.Fatalf("upsert p%d after %s: %v %d %s", i, time.Since(start), a.err, a.res.Status, a.res.Body)
		}
	}
}
