package publishing_test

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/internal/apptest"
)

// TestEveryNetwork: a brand connects all six networks through their fakes'
// OAuth servers, uploads an image to the object store, and one post with
// the image goes to the six: each network receives it once.
func TestEveryNetwork(t *testing.T) {
	h := start(t)
	b := newBrand(t, h, "", "Acme")
	for _, n := range domain.Networks {
		connect(t, h, "", b.BrandID, n)
	}
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")
	res := h.Do(t, "publishing", http.MethodPost, "/api/media/upload", "", map[string]any{"brandId": b.BrandID, "filename": "pixel.png",
		"contentType": "image/png", "size": len(png)})
	apptest.Must(t, res, http.StatusOK, "upload grant")
	var grant struct {
		Media   domain.Media      `json:"media"`
		Method  string            `json:"method"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	res.JSON(t, &grant)
	req, _ := http.NewRequest(grant.Method, grant.URL, bytes.NewReader(png))
	for k, v := range grant.Headers {
		req.Header.Set(k, v)
	}
	resp, err := h.Client.Do(req)
	if err != nil || resp.StatusCode/100 != 2 {
		t.Fatalf("upload: %v %v", resp, err)
	}
	resp.Body.Close()
	apptest.Eventually(t, 10*time.Second, "media in the read model", func() bool {
		return bytes.Contains(h.Do(t, "publishing", http.MethodGet, "/api/media", "", nil).Body, []byte(grant.Media.MediaID))
	})
	var targets []map[string]any
	for _, n := range domain.Networks {
		targets = append(targets, map[string]any{"network": n})
	}
	p := createPost(t, h, "", map[string]any{"brandId": b.BrandID, "text": "Everywhere at once", "media": []string{grant.Media.MediaID},
		"targets": targets, "publishAt": time.Now().Format(time.RFC3339Nano)})
	got := waitPost(t, h, p.PostID, 30*time.Second, "settled", func(p domain.Post) bool {
		return p.Status == domain.StatePublished || p.Status == domain.StateFailed || p.Status == domain.StatusPartiallyPublished
	})
	for _, tg := range got.Targets {
		if tg.State != domain.StatePublished {
			t.Errorf("%s: %s %+v", tg.Network, tg.State, tg.Failure)
		}
	}
	for _, n := range domain.Networks {
		if c := fake(t, h, n).PostCount(); c != 1 {
			t.Errorf("%s received %d posts, want 1", n, c)
		}
	}
}
