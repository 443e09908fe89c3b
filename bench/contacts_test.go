package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/testenv"
	"github.com/platform/backend/projections"
	contactsview "github.com/platform/backend/projections/contacts"
	"github.com/platform/backend/projections/history"
)

// Sizes of the contacts benchmark.
const (
	contactsRows     = 100_000 // the import, the search corpus, the export
	contactsSearches = 1_000   // timed searches (after 100 untimed)
)

// BenchmarkContacts imports 100,000 contacts through the contacts API and
// compares it with a raw COPY of the same rows into a table shaped like the
// read model's (same columns, generated search columns and indexes), in
// the same run on the same server; then times searches over them and the
// streamed export (beside a raw COPY ... TO STDOUT of the same rows).
func BenchmarkContacts(b *testing.B) {
	h := startPlatform(b, false)
	people := benchContacts(contactsRows)
	file := benchCSV(people)
	ctx := context.Background()
	pool := h.App.Pool
	rawBefore := rawCopyRate(b, pool, h.OrgID, people)

	b.Run("import", func(b *testing.B) {
		b.ResetTimer()
		cpu0 := sampleCPU(dbName(h))
		start := time.Now()
		res, pos, completed := postCSV(b, h, file)
		committed := completed.Sub(start)
		waitApplied(b, h, contactsview.Name, pos)
		visible := time.Since(start)
		cpu := cpu0.to(sampleCPU(dbName(h)))
		b.StopTimer()
		// The audit history records the same batches: the searches below
		// start once it is done too, on analyzed tables (as autovacuum
		// leaves them a minute after a bulk load).
		waitApplied(b, h, history.Name, pos)
		_, aerr := pool.Exec(ctx, `ANALYZE`)
		must(b, aerr)
		rawAfter := rawCopyRate(b, pool, h.OrgID, people)
		raw := max(rawBefore, rawAfter)
		rate := float64(contactsRows) / visible.Seconds()
		b.ReportMetric(rate, "rows/s")
		b.ReportMetric(float64(contactsRows)/committed.Seconds(), "commit-rows/s")
		b.ReportMetric(raw, "raw-copy-rows/s")
		b.ReportMetric(rate/raw, "ratio")
		b.Logf("import of %d contacts (%.1f MB CSV, one HTTP request): last batch committed after %s, searchable after %s: %s", contactsRows,
			float64(len(file))/1e6, committed.Round(time.Millisecond), visible.Round(time.Millisecond), res)
		b.Logf("raw COPY of the same rows into a table shaped like the read model (indexes, generated search columns): %.0f rows/s (before %.0f, after %.0f)",
			raw, rawBefore, rawAfter)
		b.Logf("  %s", cpu.perOp(contactsRows, "row"))
		var n int64
		sql, err := h.App.Reader.SQL(ctx, contactsview.Projection{}, `SELECT count(*) FROM {{contacts}} WHERE organization_id=$1`)
		must(b, err)
		must(b, pool.QueryRow(ctx, sql, h.OrgID).Scan(&n))
		if n != contactsRows {
			b.Fatalf("the read model holds %d contacts, want %d", n, contactsRows)
		}
	})

	b.Run("search", func(b *testing.B) {
		queries := searchQueries(people)
		for i := range 100 {
			getOK(b, h, "/api/contacts?limit=20&q="+url.QueryEscape(queries[i%len(queries)]))
		}
		lat := make([]time.Duration, contactsSearches)
		took := make([]time.Duration, contactsSearches) // lat in query order (percentiles sorts lat)
		found := 0
		b.ResetTimer()
		cpu0 := sampleCPU(dbName(h))
		for i := range lat {
			t := time.Now()
			body := getOK(b, h, "/api/contacts?limit=20&q="+url.QueryEscape(queries[i%len(queries)]))
			lat[i] = time.Since(t)
			took[i] = lat[i]
			if !bytes.Contains(body, []byte(`"contacts":[]`)) {
				found++
			}
		}
		cpu := cpu0.to(sampleCPU(dbName(h)))
		b.StopTimer()
		p := percentiles(lat, 0.5, 0.99, 1)
		b.ReportMetric(ms(p[0]), "p50-ms")
		b.ReportMetric(ms(p[1]), "p99-ms")
		b.Logf("%d searches over %d contacts, one client, first page of 20 (%d found something): p50 %.1f ms, p99 %.1f ms, max %.1f ms",
			contactsSearches, contactsRows, found, ms(p[0]), ms(p[1]), ms(p[2]))
		b.Logf("  queries like %q, typos like %q", queries[:8], queries[200:204])
		var typos []time.Duration
		slowTypo, slowTypoAt := "", time.Duration(0)
		for i, d := range took {
			if i%len(queries) >= 200 {
				typos = append(typos, d)
				if d > slowTypoAt {
					slowTypo, slowTypoAt = queries[i%len(queries)], d
				}
			}
		}
		tp := percentiles(typos, 0.5, 0.99, 1)
		b.Logf("  the %d typo searches: p50 %.1f ms, p99 %.1f ms, max %.1f ms (%q)", len(typos), ms(tp[0]), ms(tp[1]), ms(tp[2]), slowTypo)
		slowest := make([]int, len(lat))
		for i := range slowest {
			slowest[i] = i
		}
		sort.Slice(slowest, func(i, j int) bool { return took[slowest[i]] > took[slowest[j]] })
		for _, i := range slowest[:5] {
			b.Logf("  slow: %q %.1f ms", queries[i%len(queries)], ms(took[i]))
		}
		b.Logf("  %s", cpu.perOp(contactsSearches, "search"))
	})

	b.Run("export", func(b *testing.B) {
		b.ResetTimer()
		start := time.Now()
		rows := exportCSV(b, h)
		elapsed := time.Since(start)
		b.StopTimer()
		if rows != contactsRows {
			b.Fatalf("exported %d rows, want %d", rows, contactsRows)
		}
		raw := rawExportRate(b, h)
		rate := float64(rows) / elapsed.Seconds()
		b.ReportMetric(rate, "rows/s")
		b.ReportMetric(raw, "raw-copy-out-rows/s")
		b.ReportMetric(rate/raw, "ratio")
		b.Logf("export of %d contacts over HTTP (streamed CSV with note and attachment counts, neutralised cells): %s; raw COPY (SELECT the same columns) TO STDOUT: %.0f rows/s",
			rows, elapsed.Round(time.Millisecond), raw)
	})
}

func dbName(h *apptest.Harness) string {
	u, err := url.Parse(h.Config.DatabaseURL)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.Path, "/")
}

// postCSV imports the file in one request and returns the answer's counts,
// its position and when the import completed on the write side.
func postCSV(b *testing.B, h *apptest.Harness, file []byte) (string, eventstore.Positions, time.Time) {
	b.Helper()
	req, err := http.NewRequest(http.MethodPost, h.URLs["contacts"]+"/api/contacts/import?importId=bench", bytes.NewReader(file))
	must(b, err)
	req.Header.Set("Authorization", "Bearer "+h.APIKey)
	req.Header.Set("Content-Type", "text/csv")
	client := &http.Client{Timeout: 10 * time.Minute}
	resp, err := client.Do(req)
	must(b, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("import: %d %s", resp.StatusCode, body)
	}
	pos, err := eventstore.ParsePositions(resp.Header.Get("X-Platform-Position"))
	must(b, err)
	var report struct {
		CompletedAt time.Time `json:"completed_at"`
	}
	must(b, json.Unmarshal(body, &report))
	i := bytes.Index(body, []byte(`"created"`))
	return string(body[i:min(len(body), i+80)]), pos, report.CompletedAt
}

// waitApplied waits until a projection has applied pos.
func waitApplied(b *testing.B, h *apptest.Harness, projection string, pos eventstore.Positions) {
	b.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		err := h.App.Reader.WaitFor(context.Background(), projection, pos...)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("the read model never applied %s: %v", pos, err)
		}
	}
}

// rawCopyRate COPYs the contacts into a fresh table shaped like the read
// model's contacts table and returns rows per second.
func rawCopyRate(b *testing.B, pool *pgxpool.Pool, org string, people []benchContact) float64 {
	b.Helper()
	ctx := context.Background()
	table := "bench_" + testenv.UniqueName("contacts")
	names := strings.NewReplacer("{{contacts}}", table)
	for _, ddl := range (contactsview.Projection{}).Schema() {
		if strings.Contains(ddl, "{{contacts}}") {
			_, err := pool.Exec(ctx, names.Replace(ddl))
			must(b, err)
		}
	}
	rows := copyRows(org, people)
	start := time.Now()
	n, err := pool.CopyFrom(ctx, pgx.Identifier{table}, []string{"contact_id", "organization_id", "revision", "first_name", "last_name",
		"email", "phone", "company", "job_title", "tags", "pipeline_id", "stage_id", "stage_entered_at", "deleted", "deleted_at",
		"created_at", "updated_at"}, pgx.CopyFromRows(rows))
	must(b, err)
	rate := float64(n) / time.Since(start).Seconds()
	_, err = pool.Exec(ctx, `DROP TABLE `+table)
	must(b, err)
	return rate
}

// searchQueries are what people type: names, parts of names and emails,
// companies, in the mix of cases and accents they come in.
func searchQueries(people []benchContact) []string {
	r := rand.New(rand.NewPCG(3, 5))
	out := []string{"ann", "acme"}
	for len(out) < 200 {
		c := people[r.IntN(len(people))]
		local, _, _ := strings.Cut(c.email, "@")
		switch r.IntN(6) {
		case 0:
			out = append(out, c.first+" "+c.last)
		case 1:
			out = append(out, strings.ToLower(c.last[:min(4, len(c.last))]))
		case 2:
			out = append(out, c.email)
		case 3:
			out = append(out, local[len(local)-5:]) // a part of an email: digits and a letter or two
		case 4:
			out = append(out, strings.Fields(c.company)[0]+" "+strings.Fields(c.company)[1])
		default:
			out = append(out, c.last)
		}
	}
	// Typos (two letters swapped in a last name), which full text and
	// parts of words mostly miss: the similar-spelling search's share.
	t := rand.New(rand.NewPCG(13, 17))
	for len(out) < 240 {
		last := []rune(strings.ToLower(people[t.IntN(len(people))].last))
		if len(last) < 4 {
			continue
		}
		i := 1 + t.IntN(len(last)-2)
		last[i], last[i+1] = last[i+1], last[i]
		out = append(out, string(last))
	}
	return out
}

func getOK(b *testing.B, h *apptest.Harness, path string) []byte {
	b.Helper()
	res := h.Do(b, "contacts", http.MethodGet, path, "", nil)
	if res.Status != http.StatusOK {
		b.Fatalf("GET %s: %d %s", path, res.Status, res.Body)
	}
	return res.Body
}

// exportCSV reads the export as it streams and counts its rows.
func exportCSV(b *testing.B, h *apptest.Harness) int {
	b.Helper()
	req, err := http.NewRequest(http.MethodGet, h.URLs["contacts"]+"/api/contacts/export", nil)
	must(b, err)
	req.Header.Set("Authorization", "Bearer "+h.APIKey)
	resp, err := (&http.Client{Timeout: 10 * time.Minute}).Do(req)
	must(b, err)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("export: %d", resp.StatusCode)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := -1 // the header
	for sc.Scan() {
		n++
	}
	must(b, sc.Err())
	return n
}

// rawExportRate is the export's ceiling: the same columns of the same rows
// COPYed out as CSV on one connection, read and dropped.
func rawExportRate(b *testing.B, h *apptest.Harness) float64 {
	b.Helper()
	ctx := context.Background()
	gen, err := h.App.Reader.Active(ctx, contactsview.Name)
	must(b, err)
	table := projections.TableName("contacts", gen)
	conn, err := h.App.Pool.Acquire(ctx)
	must(b, err)
	defer conn.Release()
	start := time.Now()
	tag, err := conn.Conn().PgConn().CopyTo(ctx, io.Discard, fmt.Sprintf(`COPY (SELECT contact_id, first_name, last_name, email, phone,
		company, job_title, array_to_string(tags, '; '), pipeline_id, stage_id, stage_entered_at, 0, 0, created_at, updated_at
		FROM %s WHERE organization_id = '%s' AND NOT deleted ORDER BY contact_id) TO STDOUT WITH (FORMAT csv, HEADER)`, table, h.OrgID))
	must(b, err)
	return float64(tag.RowsAffected()) / time.Since(start).Seconds()
}
