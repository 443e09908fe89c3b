package browsertest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/internal/browsertest"
)

// TestDrivesAPage: the driven browser keeps a cookie, submits a form, runs
// the page's own script file, and reports a script refused by the policy.
func TestDrivesAPage(t *testing.T) {
	browser := browsertest.Find(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'self'")
		ck, _ := r.Cookie("who")
		name := ""
		if ck != nil {
			name = ck.Value
		}
		fmt.Fprintf(w, `<!doctype html><html><body><p id="who">%s</p><form method="post" action="/in"><input name="n" id="n"><button>go</button></form><p id="js"></p><script src="/a.js"></script></body></html>`, name)
	})
	mux.HandleFunc("/a.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, `document.getElementById("js").textContent = "ran";`)
	})
	mux.HandleFunc("/in", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "who", Value: r.FormValue("n"), Path: "/", HttpOnly: true})
		http.Redirect(w, r, "/", http.StatusSeeOther)
	})
	mux.HandleFunc("/bad", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'none'")
		fmt.Fprint(w, `<!doctype html><html><body><script>document.title="x"</script></body></html>`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	b := browsertest.Launch(t, browser, browsertest.Options{})
	b.Navigate(srv.URL + "/")
	b.WaitFor("the script file ran", `document.getElementById("js").textContent === "ran"`, 10*time.Second)
	b.Submit(`document.getElementById("n").value = "ada"; document.forms[0].requestSubmit()`)
	if got := b.Page(); !strings.Contains(got.Text, "ada") {
		t.Fatalf("the cookie set by the form is not sent back: %s", got.Text)
	}
	b.Screenshot("")
	b.CheckPolicy()
	b.Navigate(srv.URL + "/bad")
	for deadline := time.Now().Add(10 * time.Second); ; {
		if strings.Contains(strings.Join(b.Console(), "\n"), "Content Security Policy") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("an inline script under default-src 'none' is not reported: %v", b.Console())
		}
		b.Eval("new Promise(r => setTimeout(r, 100))", nil)
	}
}
