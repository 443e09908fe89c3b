package history

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/domain/event"
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
			p := Projection{Retention: tc.retention, Now: func() time.Time { return now },
				Redact: Redactions{"identity.api_key.created": {"secret_hash"}}}
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

// Redaction is declared per event type: the declared members are dropped,
// the same member name in another event type is a fact and stays, and a
// payload that is not an object passes through.
func TestRedactionsApply(t *testing.T) {
	r := MergeRedactions(
		map[string][]string{"identity.session.started": {"access_hash", "refresh_hash"}},
		map[string][]string{"identity.session.started": {"other_secret"}, "ctx.thing.done": {"token"}},
	)
	tests := []struct {
		name, typ, payload, want string
	}{
		{"declared members dropped", "identity.session.started",
			`{"session_id":"s","access_hash":"a","refresh_hash":"r","other_secret":"o"}`, `{"session_id":"s"}`},
		{"nothing declared is present", "identity.session.started", `{"session_id":"s"}`, `{"session_id":"s"}`},
		{"undeclared type keeps its members", "identity.session.ended", `{"access_hash":"kept"}`, `{"access_hash":"kept"}`},
		{"another context's declaration", "ctx.thing.done", `{"token":"t","n":1}`, `{"n":1}`},
		{"not an object", "ctx.thing.done", `"token"`, `"token"`},
		{"null", "ctx.thing.done", `null`, `null`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := r.Apply(tc.typ, json.RawMessage(tc.payload))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
	// The projection records the redacted payload.
	p := Projection{Redact: r}
	stmts, err := p.Reduce(eventstore.Event{ID: uuid.New(), Type: "identity.session.started", RecordedAt: time.Now(),
		Payload: json.RawMessage(`{"session_id":"s","access_hash":"a","refresh_hash":"r"}`)})
	if err != nil || len(stmts) != 1 {
		t.Fatalf("reduce: %v, %d statements", err, len(stmts))
	}
	for _, a := range stmts[0].Args {
		if raw, ok := a.(json.RawMessage); ok && strings.Contains(string(raw), "_hash") {
			t.Fatalf("a hash reached the audit view: %s", raw)
		}
	}
}

// TestRulesShow: a restricted member is shown while current, to privileged
// readers once superseded (or Final), to nobody once erased; other members
// and types are untouched.
func TestRulesShow(t *testing.T) {
	r := MergeRules(map[string]event.AuditRule{
		"ctx.note.added":   {Restricted: []string{"body"}},
		"ctx.note.deleted": {Restricted: []string{"body"}, Supersedes: true, Final: true},
		"ctx.note.erased":  {Erases: true},
	})
	payload := json.RawMessage(`{"body":"words","note_id":"n"}`)
	for _, tc := range []struct {
		name, typ                      string
		superseded, erased, privileged bool
		want                           string
	}{
		{"current", "ctx.note.added", false, false, false, `{"body":"words","note_id":"n"}`},
		{"superseded", "ctx.note.added", true, false, false, `{"note_id":"n"}`},
		{"superseded, privileged", "ctx.note.added", true, false, true, `{"body":"words","note_id":"n"}`},
		{"final", "ctx.note.deleted", false, false, false, `{"note_id":"n"}`},
		{"final, privileged", "ctx.note.deleted", false, false, true, `{"body":"words","note_id":"n"}`},
		{"erased, privileged", "ctx.note.added", true, true, true, `{"note_id":"n"}`},
		{"no rule", "ctx.other.done", true, true, false, `{"body":"words","note_id":"n"}`},
	} {
		got, err := r.Show(tc.typ, payload, tc.superseded, tc.erased, tc.privileged)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: %s %v, want %s", tc.name, got, err, tc.want)
		}
	}
	// An erasing event rewrites its stream's earlier rows after its own,
	// and ruled rows are written in order (not merged after the batch).
	p := Projection{Rules: r}
	stmts, err := p.Reduce(eventstore.Event{ID: uuid.New(), Type: "ctx.note.erased", StreamID: "n", StreamVersion: 3, RecordedAt: time.Now(),
		Payload: json.RawMessage(`{"note_id":"n"}`)})
	if err != nil || len(stmts) != 2 || !strings.HasPrefix(stmts[0].SQL, "INSERT") || !strings.HasPrefix(stmts[1].SQL, "UPDATE") ||
		stmts[1].Args[0] != "n" || stmts[1].Args[1] != int64(3) {
		t.Fatalf("reduce of an erasure: %v %+v", err, stmts)
	}
}
