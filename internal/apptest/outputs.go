package apptest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/platform/backend/internal/objectstore"
)

// Notifications waits for n notifications of a type to an organization and
// answers their payloads by idempotency key; one its contract refused
// ("invalid") fails the test at once, not at the deadline.
func (h *Harness) Notifications(t testing.TB, org, typ string, n int) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	Eventually(t, 60*time.Second, "notifications "+typ, func() bool {
		rows, err := h.App.Pool.Query(context.Background(), `SELECT idempotency_key, state, envelope FROM notification_deliveries
			WHERE organization_id = $1 AND type = $2`, org, typ)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var key, state string
			var env []byte
			if err := rows.Scan(&key, &state, &env); err != nil {
				t.Fatal(err)
			}
			if state == "invalid" {
				t.Fatalf("notification %s is invalid: %s", key, env)
			}
			var e struct {
				Payload map[string]any `json:"payload"`
			}
			_ = json.Unmarshal(env, &e)
			out[key] = e.Payload
		}
		return len(out) >= n
	})
	return out
}

// Objects counts the files in the object store under a prefix (an
// organization's files of a context are "<org>/<context>/").
func (h *Harness) Objects(t testing.TB, prefix string) int {
	t.Helper()
	n, token := 0, ""
	for {
		page, err := h.App.Platform.Objects.List(context.Background(), prefix, objectstore.ListOptions{PageToken: token, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		n += len(page.Objects)
		if token = page.NextPageToken; token == "" {
			return n
		}
	}
}
