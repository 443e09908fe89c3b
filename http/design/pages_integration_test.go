package design_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	designhttp "github.com/platform/backend/http/design"
	"github.com/platform/backend/internal/apptest"
	"github.com/platform/backend/internal/browsertest"
	"github.com/platform/backend/internal/media"
	"github.com/platform/backend/internal/testenv"
)

// TestDesignPagesInABrowser drives the web component in headless Chromium
// as a person would: the design's link (a notification's cta_url) sends a
// browser without a session to the sign-in page, which signs in with an
// API key and goes back to the design; the design page shows the preview
// the PNG export's renderer draws; the layer forms change the headline's
// text and the rectangle's colour to another of the kit's palette, and the
// preview changes with them (decoded: the kit colour's pixel where the
// rectangle is, other ink in the headline's box); the export buttons queue
// a PNG and an MP4, the page's own script follows them until they are
// ready with no reload, and their download links lead to the files
// (decoded: the PNG's size, the MP4 by ffprobe). The pages are served under
// the strict policy (asserted) and Chromium reports no violation and no
// script error. Screenshots: .stack/artefacts/design, or
// DESIGN_SCREENSHOTS=<dir>.
func TestDesignPagesInABrowser(t *testing.T) {
	browser := browsertest.Find(t)
	h := apptest.Start(t, apptest.Options{})
	c := newClient(t, h, "")
	k := c.newKit("Acme")
	project, design := c.newDesign(k)
	var ds map[string]any
	c.JSON(http.MethodGet, base+"/designs/"+design, nil, http.StatusOK, &ds)
	site := h.URLs["design"]
	link := site + "/app/designs/" + design + "?workspace=" + ds["workspaceId"].(string)

	// The pages' policy: the shared stylesheet by hash, this service's own
	// script, images and fetches; nothing inline, nothing of another origin.
	res := h.Do(t, "design", http.MethodGet, "/app/login", "-", nil)
	csp := res.Header.Get("Content-Security-Policy")
	if res.Status != http.StatusOK || csp != designhttp.PageCSP {
		t.Fatalf("sign-in page %d, policy %q", res.Status, csp)
	}
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "img-src 'self'", "connect-src 'self'", "form-action 'self'",
		"frame-ancestors 'none'", "style-src 'sha256-"} {
		if !strings.Contains(csp, want) {
			t.Errorf("the policy lacks %s: %s", want, csp)
		}
	}
	if strings.Contains(csp, "unsafe") || strings.Contains(csp, "http") || res.Header.Get("X-Frame-Options") != "DENY" {
		t.Errorf("the policy allows too much: %s (X-Frame-Options %q)", csp, res.Header.Get("X-Frame-Options"))
	}

	b := browsertest.Launch(t, browser, browsertest.Options{Window: "1280,1400", Keep: browsertest.Artefacts("DESIGN_SCREENSHOTS", "design")})
	b.Navigate(link)
	if p := b.Page(); !strings.Contains(p.DOM, `id="key-form"`) {
		t.Fatalf("a browser without a session is not asked to sign in:\n%s", p.Text)
	}
	b.Screenshot("design-sign-in")
	b.Submit(`document.getElementById("key").value = ` + jsString(h.APIKey) + `; document.getElementById("key-form").requestSubmit()`)
	var where string
	b.Eval("location.pathname + location.search", &where)
	if where != strings.TrimPrefix(link, site) {
		t.Fatalf("after signing in the browser is at %s, not the design:\n%s", where, b.Page().Text)
	}
	page := b.Page()
	for _, want := range []string{"Poster", "Spring collection", "Primary #0A66C2", "Accent #FFB000", "svg", "mp4"} {
		if !strings.Contains(page.Text, want) {
			t.Errorf("the design page does not show %q:\n%s", want, page.Text)
		}
	}
	b.WaitFor("the preview drawn", `document.getElementById("preview").complete && document.getElementById("preview").naturalWidth === 540`, 30*time.Second)
	before := previewOf(t, b)
	if got := rgba(before.At(95, 70)); got != primary {
		t.Fatalf("the preview's rectangle pixel %v, want the kit's primary %v", got, primary)
	}
	b.Screenshot("design-page")

	// The headline's text, then the rectangle's colour, through the forms.
	b.Submit(`document.getElementById("text-title").value = "WWWW MMMM"; document.getElementById("layer-title").requestSubmit()`)
	if p := b.Page(); !strings.Contains(p.Text, "Saved.") || !strings.Contains(p.DOM, ">WWWW MMMM</textarea>") {
		t.Fatalf("the text change is not shown:\n%s", p.Text)
	}
	b.Submit(`document.getElementById("fill-box").value = "#FFB000"; document.getElementById("layer-box").requestSubmit()`)
	b.WaitFor("the new preview drawn", `document.getElementById("preview").complete && document.getElementById("preview").naturalWidth === 540`, 30*time.Second)
	after := previewOf(t, b)
	if got := rgba(after.At(95, 70)); got != accent {
		t.Errorf("after the colour change the rectangle's pixel is %v, want the kit's accent %v", got, accent)
	}
	headline := image.Rect(40, 200, 500, 300) // the text box at half size
	changed := 0
	for y := headline.Min.Y; y < headline.Max.Y; y++ {
		for x := headline.Min.X; x < headline.Max.X; x++ {
			if diff(rgba(before.At(x, y)), rgba(after.At(x, y))) > 60 {
				changed++
			}
		}
	}
	if n := inked(after, headline, paper); changed < 1000 || n < 1000 {
		t.Errorf("the headline's box: %d pixels changed, %d inked after the text change", changed, n)
	}
	var revision string
	b.Eval(`document.getElementById("revision").textContent`, &revision)
	if revision != "3" {
		t.Errorf("revision %q after two changes, want 3", revision)
	}
	b.Screenshot("design-changed")

	// A colour off the kit (a form altered in the browser) is the API's
	// 422 at the member, shown on the page; nothing changes.
	b.Submit(`const s = document.getElementById("fill-box"); s.add(new Option("Off kit", "#123456")); s.value = "#123456";
		document.getElementById("layer-box").requestSubmit()`)
	if p := b.Page(); !strings.Contains(p.Text, "Not saved: fill") || !strings.Contains(p.DOM, `id="revision">3<`) {
		t.Errorf("an off-kit colour:\n%s", p.Text)
	}

	// Exports: the buttons queue them, the page's script follows them.
	// A page that reloaded would forget the mark.
	followed := 0
	for _, format := range []string{"png", "mp4"} {
		b.Submit(`document.getElementById("export-` + format + `").click()`)
		var status string
		b.Eval(`window.stillHere = true; document.querySelector('#exports tr[data-format="`+format+`"]').dataset.status`, &status)
		if status == "queued" || status == "rendering" {
			followed++
		}
		b.WaitFor(format+" export ready on the page",
			`document.querySelector('#exports tr[data-format="`+format+`"][data-status="ready"] a.download') !== null`, 180*time.Second)
		var stayed bool
		b.Eval(`window.stillHere === true`, &stayed)
		if !stayed {
			t.Errorf("the page reloaded to show the %s export ready", format)
		}
	}
	if followed == 0 {
		t.Errorf("neither export was pending when its page loaded: the script's poll was not seen")
	}
	b.Screenshot("design-exports")
	var downloads []string
	b.Eval(`Array.from(document.querySelectorAll("#exports tr[data-status=ready]")).map(r => r.dataset.format + " " + r.querySelector("a.download").getAttribute("href"))`, &downloads)
	if len(downloads) != 2 {
		t.Fatalf("downloads %v", downloads)
	}
	for _, d := range downloads {
		format, href, _ := strings.Cut(d, " ")
		raw := fetchDownload(t, h, site+href)
		switch format {
		case "png":
			img, err := png.Decode(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			if img.Bounds().Dx() != 1080 || img.Bounds().Dy() != 1080 || rgba(img.At(190, 140)) != accent {
				t.Errorf("png %v, pixel %v", img.Bounds(), rgba(img.At(190, 140)))
			}
		case "mp4":
			path := filepath.Join(t.TempDir(), "x.mp4")
			if err := os.WriteFile(path, raw, 0o600); err != nil {
				t.Fatal(err)
			}
			info, err := media.Config{}.Probe(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			if info.Codec != "h264" || info.Width != 1080 || info.Height != 1080 || info.Duration < 2900*time.Millisecond || info.Duration > 3100*time.Millisecond {
				t.Errorf("mp4 %+v", info)
			}
		}
	}

	// The project and the projects list.
	b.Navigate(site + "/app/projects")
	if p := b.Page(); !strings.Contains(p.DOM, `id="project-`+project+`"`) {
		t.Errorf("projects:\n%s", p.Text)
	}
	b.Screenshot("design-projects")
	b.Navigate(site + "/app/projects/" + project)
	if p := b.Page(); !strings.Contains(p.DOM, `id="design-`+design+`"`) || !strings.Contains(p.Text, "1080 × 1080") {
		t.Errorf("project:\n%s", p.Text)
	}
	b.Screenshot("design-project")

	// Signing out ends the page session.
	b.Submit(`document.querySelector('form[action="/app/logout"]').requestSubmit()`)
	b.Navigate(site + "/app/projects")
	if p := b.Page(); !strings.Contains(p.DOM, `id="key-form"`) {
		t.Errorf("after signing out the projects are shown:\n%s", p.Text)
	}
	b.CheckPolicy()
}

// TestDesignPagesOfAnotherTenant: another organization's design, export and
// project ids answer the pages' not-found exactly as ids that exist
// nowhere, and a form posted to its design changes nothing; a form without
// its CSRF token is refused; a form posted twice is applied once.
func TestDesignPagesOfAnotherTenant(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	owner := newClient(t, h, "")
	k := owner.newKit("Secret kit")
	project, design := owner.newDesign(k)
	x := owner.export(design, map[string]any{"format": "png", "scale": 0.25})
	_, otherKey := h.NewOrganization(t, "Mallory", testenv.UniqueName("mallory"), apptest.DefaultScopes...)
	const nobody = "00000000-0000-7000-8000-0000000000ff"
	cookie := "platform_design=" + otherKey
	for _, path := range []string{"/app/designs/%s", "/app/designs/%s/preview.png", "/app/designs/%s/exports", "/app/projects/%s",
		"/app/exports/%s/download"} {
		id := design
		if strings.HasPrefix(path, "/app/projects") {
			id = project
		} else if strings.HasPrefix(path, "/app/exports") {
			id = x["exportId"].(string)
		}
		theirs := h.Do(t, "design", http.MethodGet, strings.Replace(path, "%s", id, 1), "-", nil, "Cookie", cookie)
		none := h.Do(t, "design", http.MethodGet, strings.Replace(path, "%s", nobody, 1), "-", nil, "Cookie", cookie)
		if theirs.Status != http.StatusNotFound || none.Status != http.StatusNotFound || !bytes.Equal(theirs.Body, none.Body) ||
			!strings.Contains(string(theirs.Body), "There is nothing here.") {
			t.Errorf("%s: another tenant's id %d %s, a missing one %d", path, theirs.Status, theirs.Body, none.Status)
		}
	}
	// Mallory's form, with her own CSRF token, on the owner's design.
	res := h.Do(t, "design", http.MethodGet, "/app/projects", "-", nil, "Cookie", cookie)
	token := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(string(res.Body))
	csrf := res.Header.Get("Set-Cookie")
	if res.Status != http.StatusOK || token == nil || !strings.HasPrefix(csrf, "platform_design_csrf=") {
		t.Fatalf("projects page %d %s", res.Status, res.Body)
	}
	cookies := cookie + "; " + strings.SplitN(csrf, ";", 2)[0]
	before := h.Events(t, "design")
	form := "csrf=" + token[1] + "&pageId=p1&layerId=title&text=Owned&fill=%23111111"
	post := h.Do(t, "design", http.MethodPost, "/app/designs/"+design+"/layers", "-", []byte(form), "Cookie", cookies,
		"Content-Type", "application/x-www-form-urlencoded")
	if post.Status != http.StatusNotFound {
		t.Errorf("a layer form on another tenant's design: %d %s", post.Status, post.Body)
	}
	forged := h.Do(t, "design", http.MethodPost, "/app/designs/"+design+"/exports", "-", []byte("format=png"), "Cookie", cookie,
		"Content-Type", "application/x-www-form-urlencoded")
	if forged.Status != http.StatusForbidden {
		t.Errorf("a form without its CSRF token: %d", forged.Status)
	}
	if n := h.Events(t, "design"); n != before {
		t.Fatalf("the forms appended %d events", n-before)
	}

	// The owner's export form posted twice (a reload, a double click)
	// queues one export: the form's Idempotency-Key.
	page := h.Do(t, "design", http.MethodGet, "/app/designs/"+design, "-", nil, "Cookie", "platform_design="+h.APIKey)
	fields := regexp.MustCompile(`id="export-form"[^>]*>\s*<input type="hidden" name="csrf" value="([^"]+)"><input type="hidden" name="key" value="([^"]+)">`).
		FindStringSubmatch(string(page.Body))
	if page.Status != http.StatusOK || fields == nil {
		t.Fatalf("design page %d %s", page.Status, page.Body)
	}
	owned := "platform_design=" + h.APIKey + "; " + strings.SplitN(page.Header.Get("Set-Cookie"), ";", 2)[0]
	for i := 0; i < 2; i++ {
		res := h.Do(t, "design", http.MethodPost, "/app/designs/"+design+"/exports", "-", []byte("csrf="+fields[1]+"&key="+fields[2]+"&format=svg&pageId=p1"),
			"Cookie", owned, "Content-Type", "application/x-www-form-urlencoded")
		if res.Status != http.StatusOK || !strings.Contains(string(res.Body), "Export queued") {
			t.Fatalf("export form, post %d: %d %s", i+1, res.Status, res.Body)
		}
	}
	var list struct{ Exports []map[string]any }
	owner.JSON(http.MethodGet, base+"/designs/"+design+"/exports", nil, http.StatusOK, &list)
	svgs := 0
	for _, x := range list.Exports {
		if x["format"] == "svg" {
			svgs++
		}
	}
	if svgs != 1 {
		t.Fatalf("the form posted twice made %d svg exports, want 1", svgs)
	}
}

// previewOf decodes the design page's preview image as the browser
// fetches it (its session cookie, the page's own origin).
func previewOf(t *testing.T, b *browsertest.Browser) image.Image {
	t.Helper()
	var encoded string
	b.Eval(`fetch(document.getElementById("preview").src, {credentials: "same-origin"}).then(r => {
		if (!r.ok) { throw new Error("preview " + r.status) }
		return r.arrayBuffer()
	}).then(buf => {
		const bytes = new Uint8Array(buf); let s = "";
		for (let i = 0; i < bytes.length; i += 8192) { s += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192)) }
		return btoa(s)
	})`, &encoded)
	raw, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("the preview is not a PNG: %v", err)
	}
	return img
}

// fetchDownload follows a page's download link as the signed-in browser
// would: a redirect to the signed, expiring link, then the file.
func fetchDownload(t *testing.T, h *apptest.Harness, href string) []byte {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, href, nil)
	req.Header.Set("Cookie", "platform_design="+h.APIKey)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	signed := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.Contains(signed, "http") {
		t.Fatalf("download %s: %d to %q", href, res.StatusCode, signed)
	}
	res, err = h.Client.Get(signed)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("signed download: %d %s", res.StatusCode, raw)
	}
	return raw
}

func jsString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
