package e2e

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"html"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/internal/browsertest"
)

// TestStatusPageInABrowser opens the public status page (GET /) in headless
// Chromium, as a person would, before and after an incident: what the page
// says overall, the incident's title and its update timeline (text that
// looks like markup stays text), the page's strict policy (no script; the
// inline style allowed by its hash, so Chromium reports no violation), and
// the Atom feed with an entry per update whose ids hold across requests.
//
// Chromium is Debian's `chromium` (scripts/chromium.sh installs it; `make
// test` runs it first), or the binary CHROMIUM names. In CI
// (PLATFORM_REQUIRE_INFRA=1 or CI set) a missing browser fails the test.
// The screenshots are kept (keepArtefact: .stack/artefacts/e2e, or E2E_ARTEFACTS).
func TestStatusPageInABrowser(t *testing.T) {
	browser := chromium(t)
	s := NewStack(t)
	srv := s.StartServer(ServerOptions{})
	status, key := srv.URL("status"), s.APIKey
	page := status + "/"

	// The answer's headers: HTML, no script, short caching, nosniff.
	res := expect(t, "status page", do(t, Req{Method: http.MethodGet, URL: page}), http.StatusOK)
	h := res.Header
	csp := h.Get("Content-Security-Policy")
	if !strings.HasPrefix(h.Get("Content-Type"), "text/html") || !strings.Contains(csp, "default-src 'none'") ||
		strings.Contains(csp, "script-src") || strings.Contains(csp, "unsafe-") || !strings.Contains(csp, "frame-ancestors 'none'") ||
		!regexp.MustCompile(`max-age=([1-9]|[1-5][0-9]|60)\b`).MatchString(h.Get("Cache-Control")) ||
		h.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("status page headers: %v", h)
	}

	// A component, grouped, so that the page lists something.
	res = expect(t, "register component", do(t, Req{Method: http.MethodPut, URL: status + "/api/components/checkout", Key: key,
		Body: map[string]any{"componentHost": "checkout.internal.example", "componentName": "Checkout", "componentGroup": "Payments",
			"checkUrl": "http://127.0.0.1:9/health"}}), http.StatusOK)
	waitForPage(t, page, "Checkout")

	before := browse(t, browser, page, "status-before")
	for _, want := range []string{"All systems operational", "Checkout", "Payments", "Operational", "No incidents reported."} {
		if !strings.Contains(before.text, want) {
			t.Errorf("before the incident, the page lacks %q:\n%s", want, before.text)
		}
	}
	if strings.Contains(before.text, "degraded") || strings.Contains(before.text, "Open incidents") {
		t.Errorf("before the incident, the page reads:\n%s", before.text)
	}

	// An incident, then an update to it.
	title := `Checkout fails for <em>some</em> "EU" cards & wallets`
	first := "We are investigating failed card payments."
	update := "A faulty deploy was found <script>alert(1)</script>; rolling back."
	res = expect(t, "create incident", do(t, Req{Method: http.MethodPost, URL: status + "/api/incidents", Key: key,
		Body: map[string]any{"title": title, "message": first, "severity": "major", "componentName": "Checkout"}}), http.StatusCreated)
	var inc incident
	res.Decode(t, &inc)
	expect(t, "update incident", do(t, Req{Method: http.MethodPatch, URL: status + "/api/incidents/" + inc.IncidentID, Key: key,
		Body: map[string]any{"status": "identified", "message": update}}), http.StatusOK)
	waitForPage(t, page, html.EscapeString(update))

	during := browse(t, browser, page, "status-during")
	for _, want := range []string{"Some systems are degraded", "1 open incident", "Open incidents", title, first, update,
		"Identified", "Investigating", "Major impact", "affects Checkout"} {
		if !strings.Contains(during.text, want) {
			t.Errorf("during the incident, the page lacks %q:\n%s", want, during.text)
		}
	}
	if strings.Contains(during.text, "All systems operational") {
		t.Errorf("during the incident, the page still says all is well:\n%s", during.text)
	}
	if strings.Contains(during.dom, "<em>") || strings.Contains(during.dom, "<script") {
		t.Errorf("text from the incident became markup:\n%s", during.dom)
	}
	if strings.Index(during.text, update) > strings.Index(during.text, first) {
		t.Errorf("the newest update is not first:\n%s", during.text)
	}
	for _, hidden := range []string{"checkout.internal.example", "127.0.0.1:9"} {
		if strings.Contains(during.dom, hidden) {
			t.Errorf("the public page shows the probe's %q", hidden)
		}
	}

	// The feed: Atom 1.0 with an entry per update, ids stable across requests.
	feed := readFeed(t, status+"/feed.atom")
	if !strings.HasPrefix(feed.ID, "urn:uuid:") || feed.Title == "" || feed.Updated == "" || feed.Author == "" {
		t.Fatalf("feed head: id %q title %q updated %q author %q", feed.ID, feed.Title, feed.Updated, feed.Author)
	}
	if _, err := time.Parse(time.RFC3339, feed.Updated); err != nil {
		t.Errorf("feed updated %q: %v", feed.Updated, err)
	}
	ids := map[string]string{} // content -> id
	for _, e := range feed.Entries {
		if e.ID == "" || e.Title == "" || e.Updated == "" {
			t.Errorf("entry without id, title or updated: %+v", e)
		}
		if strings.Contains(e.Title, title) {
			ids[strings.SplitN(e.Content, "\n", 2)[0]] = e.ID
		}
	}
	if ids[first] == "" || ids[update] == "" || ids[first] == ids[update] {
		t.Fatalf("feed entries of the incident by content: %v (%+v)", ids, feed.Entries)
	}
	again := readFeed(t, status+"/feed.atom")
	if again.ID != feed.ID {
		t.Errorf("feed id %q, then %q", feed.ID, again.ID)
	}
	for _, id := range ids {
		found := false
		for _, e := range again.Entries {
			found = found || e.ID == id
		}
		if !found {
			t.Errorf("entry %s is gone on the next request", id)
		}
	}

	// Resolved: the page is calm again and the incident is today's history.
	expect(t, "resolve incident", do(t, Req{Method: http.MethodPatch, URL: status + "/api/incidents/" + inc.IncidentID, Key: key,
		Body: map[string]any{"status": "resolved", "message": "Payments work again."}}), http.StatusOK)
	waitForPage(t, page, "Payments work again.")
	after := browse(t, browser, page, "status-after")
	if !strings.Contains(after.text, "All systems operational") || strings.Contains(after.text, "Open incidents") ||
		!strings.Contains(after.text, title) || !strings.Contains(after.text, "Resolved") {
		t.Errorf("after the incident, the page reads:\n%s", after.text)
	}
	if got := readFeed(t, status+"/feed.atom"); len(got.Entries) != len(feed.Entries)+1 {
		t.Errorf("feed after resolution: %d entries, want %d", len(got.Entries), len(feed.Entries)+1)
	}
}

// TestStatusPageWithoutPublicOrganization: no STATUS_PUBLIC_ORGANIZATION_ID,
// a 404 page that says why.
func TestStatusPageWithoutPublicOrganization(t *testing.T) {
	s := NewStack(t)
	srv := s.StartServer(ServerOptions{Services: []string{"status"}, Env: []string{"STATUS_PUBLIC_ORGANIZATION_ID="}})
	res := expect(t, "status page", do(t, Req{Method: http.MethodGet, URL: srv.URL("status") + "/"}), http.StatusNotFound)
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(res.Body), "No public status page") {
		t.Fatalf("status page without a public organization: %v %s", res.Header, res.Body)
	}
	expect(t, "feed", do(t, Req{Method: http.MethodGet, URL: srv.URL("status") + "/feed.atom"}), http.StatusNotFound)
}

// chromium finds the browser (browsertest.Find: CHROMIUM, else chromium on
// PATH).
func chromium(t *testing.T) string { return browsertest.Find(t) }

// waitForPage polls the page until it holds want (the read model catches up).
func waitForPage(t *testing.T, url, want string) {
	t.Helper()
	eventually(t, 20*time.Second, fmt.Sprintf("%q on the status page", want), func() error {
		res, err := send(context.Background(), httpClient, Req{Method: http.MethodGet, URL: url})
		if err != nil {
			return err
		}
		if res.Status != http.StatusOK || !bytes.Contains(res.Body, []byte(want)) {
			return fmt.Errorf("%d, not there yet", res.Status)
		}
		return nil
	})
}

// seen is what the browser made of a page: the DOM it built and its text.
type seen struct {
	dom, text string
}

// browse opens url in headless Chromium (browsertest.Browse) for its DOM
// and a screenshot <name>.png, kept in the e2e artefacts (E2E_ARTEFACTS, or
// STATUS_PAGE_SCREENSHOTS, the older name, else .stack/artefacts/e2e), with
// extra flags (--virtual-time-budget for a page that renders with script).
// A Content-Security-Policy violation Chromium reports fails the test.
func browse(t *testing.T, browser, url, name string, extra ...string) seen {
	t.Helper()
	keep := os.Getenv("STATUS_PAGE_SCREENSHOTS")
	if keep == "" || os.Getenv("E2E_ARTEFACTS") != "" {
		keep = browsertest.Artefacts("E2E_ARTEFACTS", "e2e")
	}
	p := browsertest.Browse(t, browser, url, name, browsertest.Options{Window: "1100,1600", Extra: extra, Keep: keep})
	return seen{dom: p.DOM, text: p.Text}
}

type atomDoc struct {
	XMLName xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
	ID      string   `xml:"id"`
	Title   string   `xml:"title"`
	Updated string   `xml:"updated"`
	Author  string   `xml:"author>name"`
	Entries []struct {
		ID      string `xml:"id"`
		Title   string `xml:"title"`
		Updated string `xml:"updated"`
		Content string `xml:"content"`
	} `xml:"entry"`
}

func readFeed(t *testing.T, url string) atomDoc {
	t.Helper()
	res := expect(t, "feed", do(t, Req{Method: http.MethodGet, URL: url}), http.StatusOK)
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/atom+xml") {
		t.Fatalf("feed Content-Type %q", ct)
	}
	var f atomDoc
	dec := xml.NewDecoder(bytes.NewReader(res.Body))
	dec.Strict = true
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("the feed is not Atom XML: %v\n%s", err, res.Body)
	}
	return f
}
