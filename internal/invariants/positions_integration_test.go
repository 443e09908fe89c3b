package invariants_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/platform/backend/eventstore"
	httpapi "github.com/platform/backend/http"
	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/module"
	contactsmod "github.com/platform/backend/internal/modules/contacts"
)

// answered is one command answer a test saw: its request id (the
// correlation id of the events it appended) and its position header.
type answered struct {
	what, requestID, position string
}

// want is what a multi-stream command must have written: distinct streams
// and events (on any of them).
type want struct{ streams, events int }

// recorder keeps every answer that came through the harness's client.
type recorder struct {
	next http.RoundTripper
	mu   sync.Mutex
	seen []answered
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := r.next.RoundTrip(req)
	if err == nil && req.Method != http.MethodGet {
		r.mu.Lock()
		r.seen = append(r.seen, answered{what: req.Method + " " + req.URL.Path, requestID: res.Header.Get(httpapi.HeaderRequestID),
			position: res.Header.Get(httpapi.HeaderPosition)})
		r.mu.Unlock()
	}
	return res, err
}

// TestEveryAnswerCoversItsStreams: a command's X-Platform-Position names
// every stream the request appended to, each at its last version, so a
// read that waits for it misses none of what the command wrote. Checked
// for every answer with a position the test sees, against the event store
// (the events whose correlation id is the request's and that no other
// event caused); the commands that write several streams (suggestions per
// network and their metered AI calls, a user and its membership, an
// import's batches) are driven here, and each must have written more than
// one stream or version, or the check proves nothing.
func TestEveryAnswerCoversItsStreams(t *testing.T) {
	h := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		module.SectionOf[*contactsmod.Config](c.Modules).Limits.ImportBatchRows = 100
	}})
	rec := &recorder{next: http.DefaultTransport}
	h.Client.Transport = rec

	// Each multi-stream command, by what it must have written: streams
	// (distinct streams) or events (on any streams).
	multi := map[string]want{}
	drive := func(what string, w want, res apptest.Response, status int) {
		t.Helper()
		apptest.Must(t, res, status, what)
		multi[res.Header.Get(httpapi.HeaderRequestID)] = w
	}

	// Publishing: one suggestion draft per network, each through the
	// gateway's metered AI (another context's streams).
	brand := h.Do(t, "publishing", http.MethodPost, "/api/brands", "", map[string]any{"name": "Positions"})
	apptest.Must(t, brand, http.StatusCreated, "brand")
	var b struct {
		BrandID string `json:"id"`
	}
	brand.JSON(t, &b)
	suggested := h.Do(t, "publishing", http.MethodPost, "/api/content-strategy/suggestions/generate-from-trends", "",
		map[string]any{"brandId": b.BrandID, "items": []map[string]any{{"title": "Launch", "text": "Five days of news"}},
			"platforms": []string{"network_1", "network_2", "network_3"}})
	drive("suggestions", want{streams: 3}, suggested, http.StatusCreated)
	// A read that waits for the answer's position sees every draft.
	deck := h.Do(t, "publishing", http.MethodGet, "/api/content-ops/deck?brandId="+b.BrandID, "", nil,
		httpapi.HeaderMinPosition, suggested.Header.Get(httpapi.HeaderPosition))
	apptest.Must(t, deck, http.StatusOK, "deck")
	var d struct {
		Items []any `json:"items"`
	}
	if deck.JSON(t, &d); len(d.Items) != 3 {
		t.Errorf("the deck read at the suggestions' position lists %d drafts of 3", len(d.Items))
	}

	// Contacts: an import's batches (one stream, several versions).
	var csv strings.Builder
	csv.WriteString("first_name,email\n")
	for i := range 250 {
		fmt.Fprintf(&csv, "P%d,p%d@example.com\n", i, i)
	}
	drive("import", want{streams: 1, events: 3}, h.Do(t, "contacts", http.MethodPost, "/api/contacts/import", "", []byte(csv.String()),
		"Content-Type", "text/csv"), http.StatusOK)

	checkCoverage(t, h, rec.seen, multi)
}

// wrote is what a request appended: its streams' last versions and how
// many events.
type wrote struct {
	heads  map[string]int64
	events int
}

// written reads what the request with this id appended itself (events a
// reactor or timer appended later, caused by another event, are not the
// command's).
func written(t *testing.T, h *apptest.Harness, requestID string) wrote {
	t.Helper()
	rows, err := h.App.Pool.Query(context.Background(), `SELECT stream_id, max(stream_version), count(*) FROM es_events
		WHERE correlation_id=$1 AND causation_id='' GROUP BY stream_id`, requestID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	w := wrote{heads: map[string]int64{}}
	for rows.Next() {
		var id string
		var v int64
		var n int
		if err := rows.Scan(&id, &v, &n); err != nil {
			t.Fatal(err)
		}
		w.heads[id], w.events = v, w.events+n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return w
}

// checkCoverage compares each answer's positions with what its request
// appended: every stream named, at its last version at least.
func checkCoverage(t *testing.T, h *apptest.Harness, seen []answered, multi map[string]want) {
	t.Helper()
	checked := 0
	for _, a := range seen {
		if a.position == "" {
			continue // an answer without a position (on purpose: it must not tell what it wrote)
		}
		positions, err := eventstore.ParsePositions(a.position)
		if err != nil {
			t.Errorf("%s: position %q: %v", a.what, a.position, err)
			continue
		}
		got := map[string]int64{}
		for _, p := range positions {
			got[p.StreamID] = p.Version
		}
		w := written(t, h, a.requestID)
		for stream, version := range w.heads {
			if got[stream] < version {
				t.Errorf("%s answered %q: it wrote %s up to version %d, which the answer does not cover", a.what, a.position, stream, version)
			}
		}
		if len(w.heads) > 1 || w.events > 1 {
			checked++
		}
		if need, ok := multi[a.requestID]; ok {
			delete(multi, a.requestID)
			if len(w.heads) < need.streams || w.events < need.events {
				t.Errorf("%s wrote %d events on %d streams, want at least %d on %d: the check proves nothing", a.what, w.events, len(w.heads),
					need.events, need.streams)
			}
		}
	}
	for id := range multi {
		t.Errorf("request %s answered no position", id)
	}
	if checked == 0 {
		t.Fatal("no answer covered more than one event: nothing was checked")
	}
	t.Logf("%d answers of commands that wrote several events checked", checked)
}
