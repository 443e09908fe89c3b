package social

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

func TestWaitFromHeaders(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header http.Header
		want   time.Duration
	}{
		{"retry-after seconds", http.Header{"Retry-After": {"120"}}, 2 * time.Minute},
		{"retry-after date", http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second},
		{"x reset epoch", http.Header{"X-Rate-Limit-Reset": {strconv.FormatInt(now.Add(time.Minute).Unix(), 10)}}, 60 * time.Second},
		{"mastodon reset iso", http.Header{"X-Ratelimit-Reset": {"2026-05-01T12:05:00.123456Z"}}, 5*time.Minute + time.Second},
		{"reset in the past", http.Header{"X-Rate-Limit-Reset": {"1000"}}, 0},
		{"nothing said", http.Header{}, 0},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := WaitFromHeaders(tc.header, now)
			if got != tc.want {
				t.Fatalf("wait %v, want %v", got, tc.want)
			}
		})
	}
}
