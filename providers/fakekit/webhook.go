package fakekit

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"time"
)

// PostWebhook POSTs a webhook body with its headers to url, as a provider
// would (application/json unless the headers name another type), and
// returns the receiver's status.
func PostWebhook(ctx context.Context, url string, header http.Header, body []byte) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header = header.Clone()
	if req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, nil
}
