package fakekit_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/providers/fakekit"
)

func take(k *fakekit.Kit, op, body string, subjects ...string) fakekit.Kind {
	r, _ := http.NewRequest(http.MethodPost, "http://fake/x?q=1", nil)
	var got fakekit.Kind
	k.Handler(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		got = k.Take(r, op, subjects...).Kind
	})).ServeHTTP(nopWriter{}, withBody(r, body))
	return got
}

func TestScriptOrder(t *testing.T) {
	k := fakekit.New(fakekit.Options{})
	k.Always(fakekit.Fault{Kind: fakekit.ServerError})
	k.On("post").When(fakekit.Containing("#fail429"), fakekit.Fault{Kind: fakekit.RateLimit})
	k.On("post").Then(fakekit.Fault{}, fakekit.Fault{Kind: fakekit.Hang})
	k.Next(1, fakekit.Fault{Kind: fakekit.Malformed})
	got := []fakekit.Kind{take(k, "post", "#fail429"), take(k, "post", "#fail429"), take(k, "lookup", "#fail429"),
		take(k, "post", "#fail429"), take(k, "post", "plain"), take(k, "lookup", "x")}
	want := []fakekit.Kind{fakekit.Succeed, fakekit.Hang, fakekit.Malformed, fakekit.RateLimit, fakekit.ServerError, fakekit.ServerError}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	k.On("post").Always(fakekit.Fault{Kind: fakekit.Reject})
	if take(k, "post", "") != fakekit.Reject || take(k, "lookup", "") != fakekit.ServerError {
		t.Fatal("an operation's standing fault comes first")
	}
	k.When(fakekit.Naming("Bounce@Example.com"), fakekit.Fault{Kind: fakekit.Unauthorized})
	if take(k, "", "", "a@x", " bounce@example.com") != fakekit.Unauthorized {
		t.Fatal("a rule matches one of the subjects")
	}
	k.Reset()
	if take(k, "post", "#fail429") != fakekit.Succeed {
		t.Fatal("reset")
	}
	if (fakekit.Fault{RetryAfter: 1500 * time.Millisecond}).RetryAfterSeconds() != 2 || (fakekit.Fault{}).RetryAfterSeconds() != 1 {
		t.Fatal("retry after rounds up, defaults to 1s")
	}
	if fakekit.Status(403).Kind != fakekit.Unauthorized || fakekit.Status(503).StatusOr(500) != 503 || fakekit.Status(404).Kind != fakekit.Reject {
		t.Fatal("status faults")
	}
}

type protocol struct{}

func (protocol) Say(w http.ResponseWriter, _ *http.Request, _ string, f fakekit.Fault) bool {
	switch f.Kind {
	case fakekit.Malformed, fakekit.Cut, fakekit.AcceptThenTimeout:
		return false
	case fakekit.RateLimit:
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusTooManyRequests)
	default:
		w.WriteHeader(f.StatusOr(500))
	}
	return true
}

func TestBeginPlaysAndRecords(t *testing.T) {
	k := fakekit.New(fakekit.Options{Protocol: protocol{}})
	url := k.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if call, ok := k.Begin(w, r, "op"); ok {
			call.JSON(map[string]string{"answer": "a long enough answer"})
		}
	}))
	defer k.Close()
	gate := fakekit.NewGate()
	k.Then(fakekit.Status(503), fakekit.Fault{Kind: fakekit.RateLimit}, fakekit.Fault{Kind: fakekit.Malformed},
		fakekit.Fault{Kind: fakekit.Cut}, fakekit.Fault{Kind: fakekit.Hold, Gate: gate})
	call := func() (int, string, error) {
		resp, err := http.Post(url+"/x?y=1", "application/json", strings.NewReader(`{"n":1}`))
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), err
	}
	for _, want := range []int{503, 429} {
		if status, _, _ := call(); status != want {
			t.Fatalf("%d, want %d", status, want)
		}
	}
	if status, body, err := call(); status != 200 || err != nil || body != `{"answer":"a lon` {
		t.Fatalf("malformed: %d %q %v", status, body, err)
	}
	if _, _, err := call(); err == nil {
		t.Fatal("a cut answer read whole")
	}
	go func() { <-gate.Entered(); gate.Open() }()
	if status, _, _ := call(); status != 200 || gate.Passed() != 1 {
		t.Fatalf("held call: %d, %d passed", status, gate.Passed())
	}
	reqs := k.Requests()
	if len(reqs) != 5 || k.Calls() != 5 || reqs[0].Status != 503 || reqs[0].Op != "op" || reqs[0].Path != "/x" ||
		reqs[0].Query().Get("y") != "1" || reqs[4].JSON()["n"] != float64(1) || len(k.RequestsOf("op")) != 5 || k.Last().Status != 200 {
		t.Fatalf("recorded %+v", reqs)
	}
}

func TestCloseEndsHangingCalls(t *testing.T) {
	k := fakekit.New(fakekit.Options{Protocol: protocol{}})
	url := k.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if call, ok := k.Begin(w, r, ""); ok {
			call.JSON("ok")
		}
	}))
	k.Next(1, fakekit.Fault{Kind: fakekit.Hang})
	done := make(chan error)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err := fakekit.PostWebhook(ctx, url, http.Header{}, nil)
		done <- err
	}()
	for len(k.Requests()) < 1 {
		time.Sleep(5 * time.Millisecond)
	}
	if r := k.Requests()[0]; r.Status != 0 {
		t.Fatalf("hanging call has status %d", r.Status)
	}
	k.Close()
	if err := <-done; err == nil {
		t.Fatal("a hanging call was answered")
	}
	if k.Seq("a") != 1 || k.Seq("a") != 2 || k.Seq("b") != 1 {
		t.Fatal("sequences")
	}
}

type nopWriter struct{}

func (nopWriter) Header() http.Header         { return http.Header{} }
func (nopWriter) Write(b []byte) (int, error) { return len(b), nil }
func (nopWriter) WriteHeader(int)             {}

func withBody(r *http.Request, body string) *http.Request {
	r.Body = io.NopCloser(strings.NewReader(body))
	return r
}
