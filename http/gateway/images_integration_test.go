package gateway_test

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/providers/ai"
	"github.com/platform/backend/providers/fakekit"
)

// TestImagesAreMeteredPerImage: ai.images.create reserves and charges per
// image (gpt-image-1 at $0.042), answers the provider's 429 with its
// Retry-After, and a hard cap refuses it before the provider is called.
func TestImagesAreMeteredPerImage(t *testing.T) {
	h := start(t)
	kit := fake(t, h, ai.Provider1)
	res := post(t, h, "/api/ai/images", "", map[string]any{"prompt": "a red rocket", "n": 2, "size": "1024x1024"})
	apptest.Must(t, res, http.StatusOK, "images")
	var answer struct {
		Images []struct {
			MIMEType   string `json:"mime_type"`
			DataBase64 string `json:"data_base64"`
		} `json:"images"`
		Units struct {
			Images int `json:"images"`
		} `json:"units"`
		CostCents float64 `json:"cost_cents"`
		Sandbox   bool    `json:"sandbox"`
	}
	res.JSON(t, &answer)
	if len(answer.Images) != 2 || answer.Units.Images != 2 || answer.CostCents != 8.4 || !answer.Sandbox {
		t.Fatalf("answer %+v", answer)
	}
	for _, img := range answer.Images {
		raw, err := base64.StdEncoding.DecodeString(img.DataBase64)
		if err != nil || img.MIMEType != "image/png" || !bytes.HasPrefix(raw, []byte("\x89PNG")) {
			t.Fatalf("image %s, %d bytes: %v", img.MIMEType, len(raw), err)
		}
	}
	events := usageEvents(t, h, "", 1)
	units, _ := events[0]["units"].(map[string]any)
	if events[0]["event_type"] != "ai.images" || events[0]["outcome"] != "ok" || units["images"] != 2.0 || events[0]["model"] != "gpt-image-1" {
		t.Fatalf("usage %v", events[0])
	}

	kit.Next(1, fakekit.Fault{Kind: fakekit.RateLimit, RetryAfter: 4 * time.Second})
	res = post(t, h, "/api/ai/images", "", map[string]any{"prompt": "a red rocket"})
	apptest.ExpectProblem(t, res, http.StatusTooManyRequests, "provider_rate_limited")
	if res.Header.Get("Retry-After") != "4" {
		t.Fatalf("Retry-After %q", res.Header.Get("Retry-After"))
	}

	apptest.Must(t, post(t, h, "/api/billing/spend-caps", "", map[string]any{"scopeType": "organization", "monthlyCapCents": 10,
		"capMode": "hard"}), http.StatusOK, "hard cap")
	before := len(kit.Requests())
	apptest.ExpectProblem(t, post(t, h, "/api/ai/images", "", map[string]any{"prompt": "a red rocket"}), http.StatusPaymentRequired,
		"spend_cap_exceeded") // 8.4 cents spent, 4.2 more would pass 10
	if len(kit.Requests()) != before {
		t.Fatal("the provider was called past a hard cap")
	}
}
