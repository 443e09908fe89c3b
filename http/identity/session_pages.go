package identity

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"html/template"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"github.com/platform/backend/domain/errs"
	httpapi "github.com/platform/backend/http"
)

// sessionPages are the browser routes that are not actions: GET /settings
// (a redirect) and the two iframe pages of logout propagation.
func sessionPages(d AccountsDeps) func(r *mux.Router) {
	return func(r *mux.Router) {
		r.HandleFunc("/settings", func(w http.ResponseWriter, req *http.Request) { d.settings(w, req) }).Methods(http.MethodGet)
		r.HandleFunc("/session/channel", func(w http.ResponseWriter, req *http.Request) {
			d.Web.page(w, channelPage)
		}).Methods(http.MethodGet)
		r.HandleFunc("/session/broadcast-logout", func(w http.ResponseWriter, req *http.Request) {
			d.Web.page(w, broadcastPage)
		}).Methods(http.MethodGet)
	}
}

// settings sends a signed-in browser (refresh cookie, or a bearer token) to
// the admin console's security route; anyone else gets 401.
func (d AccountsDeps) settings(w http.ResponseWriter, r *http.Request) {
	var err error = errs.AuthenticationRequired("sign in first")
	if token := httpapi.Credential(r); token != "" {
		_, err = d.Commands.Validate(r.Context(), token)
	} else if ck, cerr := r.Cookie(d.Web.cookieName()); cerr == nil && ck.Value != "" {
		_, err = d.Commands.SignedIn(r.Context(), ck.Value)
	}
	if err != nil {
		httpapi.WriteError(w, r, d.Log, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, strings.TrimRight(d.Web.AdminConsoleURL, "/")+"/security/user", http.StatusFound)
}

// page serves one iframe page: embeddable only by first-party origins
// (CSP frame-ancestors), its one inline script allowed by a nonce.
func (web SessionWeb) page(w http.ResponseWriter, t *template.Template) {
	nonce := make([]byte, 16)
	_, _ = rand.Read(nonce)
	n := base64.StdEncoding.EncodeToString(nonce)
	origins := httpapi.DefaultFirstPartyOrigins
	if web.CORS != nil && len(web.CORS.Origins) > 0 {
		origins = web.CORS.Origins
	}
	patterns, _ := json.Marshal(origins)
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'nonce-"+n+"'; frame-ancestors 'self' "+strings.Join(origins, " "))
	h.Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(http.StatusOK)
	_ = t.Execute(w, map[string]any{"Nonce": n, "Origins": template.JS(patterns)})
}

// The shared script: origin patterns as in CORSPolicy, and the channel name.
const sessionScript = `
var ORIGINS = {{.Origins}};
var CHANNEL = "platform-session";
function allowed(origin) {
  var u; try { u = new URL(origin); } catch (e) { return false; }
  return ORIGINS.some(function (p) {
    var m = /^([a-z]+):\/\/([^:\/]+)(?::([0-9]+|\*))?$/i.exec(p);
    if (!m || m[1].toLowerCase() + ":" !== u.protocol) return false;
    var port = m[3] || "";
    if (port !== "*" && port !== u.port) return false;
    var host = m[2].toLowerCase(), got = u.hostname.toLowerCase();
    if (host.indexOf("*.") === 0) return got.length > host.length - 1 && got.slice(-(host.length - 1)) === host.slice(1);
    return got === host;
  });
}
`

// channelPage is embedded (hidden) by every first-party app. An app says
// {type:"platform:subscribe"}; when any tab or app broadcasts a logout, the
// page tells each subscribed app {type:"platform:logout"} at its exact origin.
var channelPage = template.Must(template.New("channel").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>session channel</title></head><body>
<script nonce="{{.Nonce}}">` + sessionScript + `
var subscribers = [];
function notify(reason) {
  subscribers.forEach(function (s) { s.source.postMessage({type: "platform:logout", reason: reason}, s.origin); });
}
var bc = ("BroadcastChannel" in window) ? new BroadcastChannel(CHANNEL) : null;
if (bc) bc.onmessage = function (e) { if (e.data && e.data.type === "logout") notify(e.data.reason || "logout"); };
window.addEventListener("storage", function (e) { if (e.key === CHANNEL && e.newValue) notify("logout"); });
window.addEventListener("message", function (e) {
  if (!allowed(e.origin) || !e.data) return;
  if (e.data.type === "platform:subscribe") {
    subscribers.push({source: e.source, origin: e.origin});
    e.source.postMessage({type: "platform:subscribed"}, e.origin);
  } else if (e.data.type === "platform:logout") {
    if (bc) bc.postMessage({type: "logout", reason: "app"});
    try { localStorage.setItem(CHANNEL, String(Date.now())); } catch (err) {}
    notify("app");
  }
});
</script></body></html>`))

// broadcastPage is loaded (hidden) after POST /logout: it announces the
// logout to every channel page of this origin, and to its parent app.
var broadcastPage = template.Must(template.New("broadcast").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>signed out</title></head><body>
<script nonce="{{.Nonce}}">` + sessionScript + `
if ("BroadcastChannel" in window) { new BroadcastChannel(CHANNEL).postMessage({type: "logout", reason: "logout"}); }
try { localStorage.setItem(CHANNEL, String(Date.now())); } catch (err) {}
window.addEventListener("message", function (e) {
  if (allowed(e.origin) && e.data && e.data.type === "platform:subscribe") {
    e.source.postMessage({type: "platform:logout", reason: "logout"}, e.origin);
  }
});
</script></body></html>`))
