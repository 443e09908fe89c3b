package publishing_test

import (
	"bytes"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
	gatewaymod "github.com/platform/backend/internal/modules/gateway"
	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/fakekit"
)

// TestGenerateImageThroughTheGateway: /api/ai/generate-image is the
// gateway's metered image operation, in-process: the sandbox's fake
// provider draws it, a usage event of app publishing counts one image, the
// image is a media file of the brand in the object store; the provider's
// 429 surfaces with its Retry-After, and a hard spend cap answers 402
// before the provider is called and stores nothing.
func TestGenerateImageThroughTheGateway(t *testing.T) {
	h := start(t)
	kit := apptest.Provided[*gatewaymod.Sandbox](h).Kit(ai.Provider1)
	b := newBrand(t, h, "", "Acme")
	res := h.Do(t, "publishing", http.MethodPost, "/api/ai/generate-image", "", map[string]any{"brandId": b.BrandID, "prompt": "a red rocket"})
	apptest.Must(t, res, http.StatusOK, "generate image")
	var got struct {
		Media struct {
			ID          string  `json:"id"`
			BrandID     *string `json:"brand_id"`
			ContentType string  `json:"content_type"`
			Size        int64   `json:"size"`
		} `json:"media"`
		URL   string `json:"url"`
		Model string `json:"model"`
	}
	res.JSON(t, &got)
	if got.Model != "gpt-image-1" || got.Media.BrandID == nil || *got.Media.BrandID != b.BrandID || got.Media.ContentType != "image/png" {
		t.Fatalf("answer %+v", got)
	}
	dl, err := h.Client.Get(got.URL)
	if err != nil {
		t.Fatal(err)
	}
	stored, _ := io.ReadAll(dl.Body)
	dl.Body.Close()
	if dl.StatusCode != http.StatusOK || !bytes.HasPrefix(stored, []byte("\x89PNG")) || int64(len(stored)) != got.Media.Size {
		t.Fatalf("stored object: %d, %d bytes", dl.StatusCode, len(stored))
	}
	if n := len(kit.Requests()); n != 1 {
		t.Fatalf("the provider got %d requests, want 1", n)
	}
	var usage struct {
		Events []struct {
			EventType string `json:"event_type"`
			AppID     string `json:"app_id"`
			Outcome   string `json:"outcome"`
			Units     struct {
				Images int `json:"images"`
			} `json:"units"`
			CostCents float64 `json:"cost_cents"`
		} `json:"events"`
	}
	apptest.Eventually(t, 20*time.Second, "the usage event", func() bool {
		r := h.Do(t, "gateway", http.MethodGet, "/api/usage/events", "", nil)
		apptest.Must(t, r, http.StatusOK, "usage events")
		r.JSON(t, &usage)
		return len(usage.Events) == 1
	})
	if e := usage.Events[0]; e.EventType != "ai.images" || e.AppID != "publishing" || e.Outcome != "ok" || e.Units.Images != 1 || e.CostCents != 4.2 {
		t.Fatalf("usage %+v", e)
	}

	kit.Next(1, fakekit.Fault{Kind: fakekit.RateLimit, RetryAfter: 5 * time.Second})
	res = h.Do(t, "publishing", http.MethodPost, "/api/ai/generate-image", "", map[string]any{"brandId": b.BrandID, "prompt": "a red rocket"})
	apptest.ExpectProblem(t, res, http.StatusTooManyRequests, "provider_rate_limited")
	if res.Header.Get("Retry-After") != "5" {
		t.Fatalf("Retry-After %q", res.Header.Get("Retry-After"))
	}

	apptest.Must(t, h.Do(t, "gateway", http.MethodPost, "/api/billing/spend-caps", "", map[string]any{"scopeType": "organization",
		"monthlyCapCents": 5, "capMode": "hard"}), http.StatusOK, "hard cap")
	before := len(kit.Requests())
	res = h.Do(t, "publishing", http.MethodPost, "/api/ai/generate-image", "", map[string]any{"brandId": b.BrandID, "prompt": "a red rocket"})
	apptest.ExpectProblem(t, res, http.StatusPaymentRequired, "spend_cap_exceeded") // 4.2 cents spent, 4.2 more would pass 5
	if len(kit.Requests()) != before {
		t.Fatal("the provider was called past a hard cap")
	}
	var media struct {
		Media []map[string]any `json:"media"`
	}
	r := h.Do(t, "publishing", http.MethodGet, "/api/media?brandId="+b.BrandID, "", nil)
	apptest.Must(t, r, http.StatusOK, "media")
	r.JSON(t, &media)
	if len(media.Media) > 1 {
		t.Fatalf("%d media files, want the one image", len(media.Media))
	}
}
