package fakeprovider_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/platform/backend/providers/fakeprovider"
)

func TestScriptOrder(t *testing.T) {
	var s fakeprovider.Script
	reject := fakeprovider.Fault{Kind: fakeprovider.Reject}
	s.Always(fakeprovider.Fault{Kind: fakeprovider.ServerError})
	s.ForRecipient("Bounce@Example.com", reject)
	s.Next(2, fakeprovider.Fault{Kind: fakeprovider.Hang})
	s.Then(fakeprovider.Fault{}, fakeprovider.Fault{Kind: fakeprovider.Malformed})
	got := []fakeprovider.FaultKind{}
	for _, to := range [][]string{{"bounce@example.com"}, {"a@x"}, {"a@x"}, {"a@x"}, {"a@x", " bounce@example.com"}, {"a@x"}} {
		got = append(got, s.Take(to).Kind)
	}
	want := []fakeprovider.FaultKind{fakeprovider.Hang, fakeprovider.Hang, fakeprovider.Succeed, fakeprovider.Malformed,
		fakeprovider.Reject, fakeprovider.ServerError}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	s.Reset()
	if s.Take([]string{"bounce@example.com"}).Kind != fakeprovider.Succeed {
		t.Fatal("reset")
	}
	if (fakeprovider.Fault{RetryAfter: 1500 * time.Millisecond}).RetryAfterSeconds() != 2 || (fakeprovider.Fault{}).RetryAfterSeconds() != 1 {
		t.Fatal("retry after rounds up, defaults to 1s")
	}
}

func TestServerRecordsAndCloseEndsHangingCalls(t *testing.T) {
	var srv *fakeprovider.Server
	srv = fakeprovider.Start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hang" {
			srv.Hang(w, r)
			return
		}
		w.WriteHeader(http.StatusTeapot)
	}))
	if status, err := fakeprovider.PostWebhook(context.Background(), srv.URL()+"/x?y=1", http.Header{"X-A": {"1"}}, []byte(`{}`)); err != nil || status != 418 {
		t.Fatalf("%d %v", status, err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		fakeprovider.PostWebhook(ctx, srv.URL()+"/hang", http.Header{}, nil)
	}()
	for len(srv.Requests()) < 2 {
		time.Sleep(5 * time.Millisecond)
	}
	if r := srv.Requests()[1]; r.Status != 0 {
		t.Fatalf("hanging call has status %d", r.Status)
	}
	srv.Close()
	<-done
	r := srv.Requests()[0]
	if r.Method != "POST" || r.Path != "/x" || r.Query != "y=1" || r.Header.Get("X-A") != "1" || string(r.Body) != "{}" || r.Status != 418 {
		t.Fatalf("recorded %+v", r)
	}
}
