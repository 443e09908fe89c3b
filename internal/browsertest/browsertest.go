// Package browsertest opens the platform's pages in headless Chromium
// (Debian's chromium: scripts/chromium.sh, `make chromium`) for tests: a
// page's DOM and a screenshot from the command line (Browse), or a browser
// driven over the DevTools protocol on a pipe (Launch: sign in through the
// form, click, run the page's own script). Either way a
// Content-Security-Policy violation Chromium reports fails the test, and
// screenshots are kept as the test's artefacts.
package browsertest

import (
	"bytes"
	"context"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/internal/testenv"
)

// Find is the browser: CHROMIUM, else chromium on PATH. Without one the
// test is skipped, or fails when infrastructure is required
// (PLATFORM_REQUIRE_INFRA=1, CI).
func Find(t testing.TB) string {
	t.Helper()
	names := []string{"chromium", "chromium-browser"}
	if v := os.Getenv("CHROMIUM"); v != "" {
		names = []string{v}
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	msg := "no headless browser (" + strings.Join(names, ", ") + "): run scripts/chromium.sh (Debian's chromium) or set CHROMIUM"
	if testenv.InfraRequired() {
		t.Fatal(msg + " (required: PLATFORM_REQUIRE_INFRA=1 or CI is set)")
	}
	t.Skip(msg)
	return ""
}

// Options are how a page is opened.
type Options struct {
	// Window is the viewport, "1200,1000" unless set.
	Window string
	// Extra are more command-line flags (--virtual-time-budget=... for a
	// page that renders with script).
	Extra []string
	// Keep is where screenshots are copied for people to look at ("": not
	// kept).
	Keep string
}

func (o Options) flags(profile string) []string {
	window := o.Window
	if window == "" {
		window = "1200,1000"
	}
	return append([]string{"--headless", "--disable-gpu", "--no-sandbox", "--disable-dev-shm-usage", "--no-first-run",
		"--no-default-browser-check", "--disable-extensions", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--hide-scrollbars", "--enable-logging=stderr", "--v=0",
		"--user-data-dir=" + profile, "--window-size=" + window}, o.Extra...)
}

// Seen is what the browser made of a page: the DOM it built and its text.
type Seen struct {
	DOM, Text string
}

var (
	tags   = regexp.MustCompile(`(?s)<style.*?</style>|<script.*?</script>|<[^>]*>`)
	spaces = regexp.MustCompile(`[ \t\r\f]+`)
	blank  = regexp.MustCompile(`\n\s*\n+`)
)

// TextOf is a document's text as a person reads it.
func TextOf(dom string) string {
	text := html.UnescapeString(tags.ReplaceAllString(dom, ""))
	return blank.ReplaceAllString(spaces.ReplaceAllString(text, " "), "\n")
}

// violation is how Chromium words a refused load or script.
const violation = "Content Security Policy"

// Browse opens url in headless Chromium twice: once for the DOM it builds
// (--dump-dom) and once for a screenshot <name>.png (kept in o.Keep).
func Browse(t testing.TB, browser, url, name string, o Options) Seen {
	t.Helper()
	dir := t.TempDir()
	run := func(args ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, browser, append(o.flags(filepath.Join(dir, "profile")), args...)...)
		cmd.Env = append(os.Environ(), "HOME="+dir)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %s: %v\n%s", browser, strings.Join(args, " "), err, stderr.String())
		}
		if strings.Contains(stderr.String(), violation) {
			t.Errorf("Chromium reports a Content-Security-Policy violation on %s:\n%s", url, stderr.String())
		}
		return stdout.String()
	}
	dom := run("--dump-dom", url)
	if !strings.Contains(dom, "</html>") {
		t.Fatalf("chromium --dump-dom %s printed no document: %q", url, dom)
	}
	shot := filepath.Join(dir, name+".png")
	run("--screenshot="+shot, url)
	if st, err := os.Stat(shot); err != nil || st.Size() < 1000 {
		t.Fatalf("no screenshot of %s: %v", url, err)
	}
	raw, _ := os.ReadFile(shot)
	Keep(t, o.Keep, name+".png", raw)
	return Seen{DOM: dom, Text: TextOf(dom)}
}

// Keep writes an artefact (a screenshot) into dir for people to look at;
// dir "" keeps nothing.
func Keep(t testing.TB, dir, name string, raw []byte) {
	t.Helper()
	if dir == "" {
		return
	}
	err := os.MkdirAll(dir, 0o755)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, name), raw, 0o644)
	}
	if err != nil {
		t.Errorf("keep %s: %v", name, err)
		return
	}
	t.Logf("kept %s", filepath.Join(dir, name))
}

// Artefacts is the directory a test's screenshots are kept in: env when it
// is set, else .stack/artefacts/<name> of the repository.
func Artefacts(env, name string) string {
	if dir := os.Getenv(env); dir != "" {
		return dir
	}
	dir, _ := os.Getwd()
	for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, ".stack", "artefacts", name)
		}
	}
	return filepath.Join(dir, "artefacts", name)
}
