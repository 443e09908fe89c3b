package history

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/eventstore"
)

// Events past the audit retention are not projected: a rebuild must not
// bring back what privacy maintenance purged. Secrets never reach the view.
func TestReduceRetentionAndRedaction(t *testing.T) {
	now := time.Date(2027, 6, 1, 0, 0, 0, 0, time.UTC)
	year := 365 * 24 * time.Hour
	tests := []struct {
		name      string
		retention time.Duration
		age       time.Duration
		want      int
	}{
		{"recent event", year, 24 * time.Hour, 1},
		{"just inside retention", year, year - time.Minute, 1},
		{"past retention", year, year + time.Minute, 0},
		{"no retention keeps everything", 0, 10 * year, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := Projection{Retention: tc.retention, Now: func() time.Time { return now }}
			e := eventstore.Event{ID: uuid.New(), Type: "identity.api_key.created", RecordedAt: now.Add(-tc.age),
				Payload: json.RawMessage(`{"key_id":"k","secret_hash":"abc","name":"ci"}`)}
			stmts, err := p.Reduce(e)
			if err != nil {
				t.Fatal(err)
			}
			if len(stmts) != tc.want {
				t.Fatalf("%d statements, want %d", len(stmts), tc.want)
			}
			for _, s := range stmts {
				for _, a := range s.Args {
					if raw, ok := a.(json.RawMessage); ok && strings.Contains(string(raw), "secret_hash") {
						t.Fatalf("secret reached the audit view: %s", raw)
					}
					if b, ok := a.([]byte); ok && strings.Contains(string(b), "secret_hash") {
						t.Fatalf("secret reached the audit view: %s", b)
					}
				}
			}
		})
	}
}
