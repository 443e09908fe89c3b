package httpapi

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"html/template"
	"net/http"
	"strings"

	"github.com/gorilla/mux"
)

// GET /docs on every service: its OpenAPI document (GET /api/openapi.json)
// rendered for people by Redoc's standalone bundle, which scripts/apidocs.sh
// fetches from the npm registry at a pinned version and vendors into
// apidocs/ (embedded here: the service serves it itself, no CDN). The page
// is no API operation, so it is not in the OpenAPI document (like the status
// page and /metrics).

//go:embed apidocs/redoc.standalone.js
var redocBundle []byte

//go:embed apidocs/LICENSE.txt
var redocLicense []byte

//go:embed apidocs/REDOC.sha256
var redocPinned string

// RedocSHA256 is the sha256 of the embedded bundle, and RedocPinned the one
// scripts/apidocs.sh recorded when it vendored it (a test holds them equal).
var (
	RedocSHA256 = func() string { sum := sha256.Sum256(redocBundle); return hex.EncodeToString(sum[:]) }()
	RedocPinned = strings.Fields(redocPinned)[0]
)

// docsCSP: scripts only from the service itself (the bundle: no inline
// script, no eval), the spec fetched from the service, search in a worker
// Redoc starts from a blob; styles inline, as Redoc's styled-components
// write them at run time (style elements and attributes, no script).
const docsCSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
	"font-src 'self' data:; connect-src 'self'; worker-src blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

var docsPage = template.Must(template.New("docs").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.}} service: API reference</title>
</head>
<body>
<noscript>The reference page needs JavaScript; the OpenAPI document is at <a href="/api/openapi.json">/api/openapi.json</a>.</noscript>
<redoc spec-url="/api/openapi.json" required-props-first="true" sort-required-props-first="true" expand-responses="200,201"></redoc>
<script src="/docs/redoc.standalone.js"></script>
</body>
</html>
`))

// docsRoutes adds GET /docs (the page), /docs/redoc.standalone.js (the
// renderer) and /docs/LICENSE.txt (its license and third-party notices).
func docsRoutes(r *mux.Router, service string) {
	etag := `"` + RedocSHA256[:32] + `"`
	r.HandleFunc("/docs", func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", docsCSP)
		h.Set("Cache-Control", "no-cache")
		h.Set("Referrer-Policy", "no-referrer")
		w.WriteHeader(http.StatusOK)
		_ = docsPage.Execute(w, service)
	}).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/docs/redoc.standalone.js", func(w http.ResponseWriter, req *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/javascript; charset=utf-8")
		h.Set("Cache-Control", "public, max-age=86400")
		h.Set("ETag", etag)
		if req.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		_, _ = w.Write(redocBundle)
	}).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/docs/LICENSE.txt", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write(redocLicense)
	}).Methods(http.MethodGet, http.MethodHead)
}
