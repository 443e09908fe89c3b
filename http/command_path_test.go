package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/principal"
	"github.com/platform/backend/eventstore"
	httpapi "github.com/platform/backend/http"
)

// commandPath is issue 22's HTTP command (PATCH /api/incidents/{id}) with
// the command itself stubbed: everything the kernel does around it, from
// the middleware chain to the answer's encoding.
type commandPath struct {
	h    http.Handler
	body string
}

type updateIn struct {
	IncidentID string `json:"incidentId"`
	Status     string `json:"status"`
	Message    string `json:"message"`
	Severity   string `json:"severity"`
	Title      string `json:"title"`
}

type updateOut struct {
	IncidentID string `json:"incident_id"`
	Message    string `json:"message"`
	Revision   int    `json:"revision"`
}

func newCommandPath(tb testing.TB) commandPath {
	tb.Helper()
	line := httpapi.LineSchema(1, 200)
	caller := principal.Principal{ID: "key-1", Type: "api_key", OrganizationID: "org-1", Role: "member",
		Permissions: []string{"identity.keys:read", "status.incidents:read", "status.status:read", "status.status:write"}}
	svc := httpapi.Service{Name: "status", AppID: "status", Actions: []httpapi.Action{httpapi.Command(httpapi.Action{
		Name: "incidents.update", Method: http.MethodPatch, Path: "/api/incidents/{incidentId}", Permission: "status:write",
		OutputSchema: json.RawMessage(`{"type":"object"}`),
		InputSchema: httpapi.Object([]string{"incidentId", "message"}, map[string]string{
			"incidentId": httpapi.NonEmptyID, "status": `{"type":"string","enum":["investigating","identified","monitoring","resolved"]}`,
			"message": httpapi.TextSchema(1, 4000), "severity": `{"type":"string","enum":["minor","major","critical"]}`, "title": line}),
	}, func(_ context.Context, m commands.Meta, in updateIn) (commands.Result[updateOut], error) {
		return commands.Result[updateOut]{Value: updateOut{IncidentID: in.IncidentID, Message: in.Message, Revision: 2},
			Position: eventstore.Position{StreamID: in.IncidentID, Version: 2}}, nil
	})}}
	h, err := httpapi.NewHandler(svc, httpapi.Deps{
		Validator: httpapi.ValidatorFunc(func(context.Context, string) (principal.Principal, error) { return caller, nil }),
		Limiter:   httpapi.NewLimiter(httpapi.RateLimitConfig{PerSecond: 1e9, Burst: 1e9}),
		Log:       slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		tb.Fatal(err)
	}
	return commandPath{h: h, body: `{"message":"Update 7: the fix is being rolled out region by region."}`}
}

func (c commandPath) serve(tb testing.TB) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPatch, "/api/incidents/0192f5a2-7c1e-7d3a-9b1e-4f2a6c8d0e11", strings.NewReader(c.body))
	req.Header.Set("Authorization", "Bearer pk_test.secret")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(httpapi.HeaderIdempotencyKey, "update-7")
	w := httptest.NewRecorder()
	c.h.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		tb.Fatalf("status %d: %s", w.Code, w.Body)
	}
	return w
}

// BenchmarkCommandPath is the kernel's CPU and allocations a command,
// outside the command (issue 22).
func BenchmarkCommandPath(b *testing.B) {
	c := newCommandPath(b)
	b.ReportAllocs()
	for b.Loop() {
		c.serve(b)
	}
}

// A command's answer is written as commands.Run encoded it
// (Result.Encoded), byte for byte what encoding the value gives, and the
// output check (Deps.CheckOutput) reads that encoding.
func TestCommandAnswerWrittenAsEncoded(t *testing.T) {
	answer := updateOut{IncidentID: "i-1", Message: "<b>fixed</b> & done", Revision: 2}
	encoded, _ := json.Marshal(answer)
	svc := func(encoded []byte) httpapi.Service {
		return httpapi.Service{Name: "status", AppID: "status", Actions: []httpapi.Action{httpapi.Command(httpapi.Action{
			Name: "incidents.update", Method: http.MethodPatch, Path: "/api/incidents/{incidentId}",
			OutputSchema: json.RawMessage(`{"type":"object","required":["revision"],"properties":{"revision":{"type":"integer"}}}`),
			InputSchema:  httpapi.Object([]string{"incidentId"}, map[string]string{"incidentId": httpapi.NonEmptyID}),
		}, func(context.Context, commands.Meta, updateIn) (commands.Result[updateOut], error) {
			return commands.Result[updateOut]{Value: answer, Position: eventstore.Position{StreamID: "i-1", Version: 2}, Encoded: encoded}, nil
		})}}
	}
	serve := func(s httpapi.Service) *httptest.ResponseRecorder {
		h, err := httpapi.NewHandler(s, httpapi.Deps{Limiter: httpapi.NewLimiter(httpapi.RateLimitConfig{}),
			Log: slog.New(slog.NewTextHandler(io.Discard, nil)), CheckOutput: true})
		if err != nil {
			t.Fatal(err)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPatch, "/api/incidents/i-1", nil))
		return w
	}
	var want strings.Builder
	_ = json.NewEncoder(&want).Encode(answer)
	w := serve(svc(encoded))
	if w.Code != http.StatusOK || w.Body.String() != want.String() || w.Header().Get("Content-Type") != "application/json" ||
		w.Header().Get(httpapi.HeaderPosition) != "i-1@2" {
		t.Fatalf("%d %q %v, want %q", w.Code, w.Body, w.Header(), want.String())
	}
	if w := serve(svc([]byte(`{"revision":"two"}`))); w.Code != http.StatusInternalServerError || !strings.Contains(w.Body.String(), "output_schema_violation") {
		t.Fatalf("an encoding the output schema refuses: %d %s", w.Code, w.Body)
	}
}
