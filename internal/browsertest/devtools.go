package browsertest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Browser is headless Chromium driven over the DevTools protocol on a pipe
// (--remote-debugging-pipe: commands on fd 3, answers and events on fd 4,
// each a JSON message ended by a NUL byte): one tab whose cookies, forms
// and scripts are a person's.
type Browser struct {
	t       testing.TB
	o       Options
	cmd     *exec.Cmd
	in      io.WriteCloser
	session string

	mu      sync.Mutex
	next    int
	waiting map[int]chan message
	events  []message
	notify  chan struct{}
	console []string
	stderr  bytes.Buffer
}

type message struct {
	ID        int                       `json:"id,omitempty"`
	Method    string                    `json:"method,omitempty"`
	Params    json.RawMessage           `json:"params,omitempty"`
	Result    json.RawMessage           `json:"result,omitempty"`
	Error     *struct{ Message string } `json:"error,omitempty"`
	SessionID string                    `json:"sessionId,omitempty"`
}

// Launch starts the browser with one blank tab; it is stopped when the
// test ends.
func Launch(t testing.TB, browser string, o Options) *Browser {
	t.Helper()
	dir := t.TempDir()
	toBrowser, commands, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	answers, fromBrowser, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	b := &Browser{t: t, o: o, in: commands, waiting: map[int]chan message{}, notify: make(chan struct{}, 1)}
	b.cmd = exec.Command(browser, append(o.flags(filepath.Join(dir, "profile")), "--remote-debugging-pipe", "about:blank")...)
	b.cmd.Env = append(os.Environ(), "HOME="+dir)
	b.cmd.ExtraFiles = []*os.File{toBrowser, fromBrowser}
	b.cmd.Stderr = &lockedWriter{mu: &b.mu, w: &b.stderr}
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toBrowser.Close()
	fromBrowser.Close()
	go b.read(answers)
	t.Cleanup(func() {
		_ = commands.Close()
		done := make(chan struct{})
		go func() { _ = b.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = b.cmd.Process.Kill()
			<-done
		}
	})
	var target struct{ TargetID string }
	b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct{ SessionID string }
	b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	b.session = attached.SessionID
	for _, domain := range []string{"Page.enable", "Runtime.enable", "Log.enable"} {
		b.call(b.session, domain, nil, nil)
	}
	return b
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (b *Browser) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			for id, ch := range b.waiting {
				close(ch)
				delete(b.waiting, id)
			}
			b.mu.Unlock()
			return
		}
		var m message
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
			continue
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch, ok := b.waiting[m.ID]; ok {
				ch <- m
				delete(b.waiting, m.ID)
			}
		} else {
			b.observe(m)
			b.events = append(b.events, m)
			select {
			case b.notify <- struct{}{}:
			default:
			}
		}
		b.mu.Unlock()
	}
}

// observe keeps what the page said on its console, where Chromium reports
// policy violations and uncaught script errors.
func (b *Browser) observe(m message) {
	switch m.Method {
	case "Log.entryAdded":
		var e struct {
			Entry struct{ Source, Level, Text, URL string }
		}
		_ = json.Unmarshal(m.Params, &e)
		b.console = append(b.console, e.Entry.Level+" "+e.Entry.Source+": "+e.Entry.Text+" "+e.Entry.URL)
	case "Runtime.consoleAPICalled":
		var e struct {
			Type string
			Args []struct{ Value any }
		}
		_ = json.Unmarshal(m.Params, &e)
		text := e.Type + ":"
		for _, a := range e.Args {
			text += fmt.Sprint(" ", a.Value)
		}
		b.console = append(b.console, text)
	case "Runtime.exceptionThrown":
		b.console = append(b.console, "exception: "+string(m.Params))
	}
}

// call sends one command and decodes its result into out.
func (b *Browser) call(session, method string, params any, out any) {
	b.t.Helper()
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan message, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	raw, err := json.Marshal(map[string]any{"id": id, "method": method, "params": orEmpty(params), "sessionId": session})
	if err != nil {
		b.t.Fatal(err)
	}
	if session == "" {
		raw, _ = json.Marshal(map[string]any{"id": id, "method": method, "params": orEmpty(params)})
	}
	if _, err := b.in.Write(append(raw, 0)); err != nil {
		b.t.Fatalf("devtools %s: %v\n%s", method, err, b.Stderr())
	}
	select {
	case m, ok := <-ch:
		if !ok {
			b.t.Fatalf("devtools %s: the browser went away\n%s", method, b.Stderr())
		}
		if m.Error != nil {
			b.t.Fatalf("devtools %s: %s", method, m.Error.Message)
		}
		if out != nil {
			if err := json.Unmarshal(m.Result, out); err != nil {
				b.t.Fatalf("devtools %s: %v", method, err)
			}
		}
	case <-time.After(90 * time.Second):
		b.t.Fatalf("devtools %s: no answer in 90 s\n%s", method, b.Stderr())
	}
}

func orEmpty(p any) any {
	if p == nil {
		return map[string]any{}
	}
	return p
}

// Stderr is what the browser logged.
func (b *Browser) Stderr() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stderr.String()
}

// Console is what the pages said on the console so far.
func (b *Browser) Console() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.console...)
}

// CheckPolicy fails the test when Chromium reported a
// Content-Security-Policy violation or an uncaught script error.
func (b *Browser) CheckPolicy() {
	b.t.Helper()
	for _, line := range b.Console() {
		if strings.Contains(line, violation) || strings.HasPrefix(line, "exception:") {
			b.t.Errorf("the browser reports: %s", line)
		}
	}
	if s := b.Stderr(); strings.Contains(s, violation) {
		b.t.Errorf("Chromium reports a Content-Security-Policy violation:\n%s", s)
	}
}

// mark is the number of events seen so far: a wait after an action looks
// only at what came after it.
func (b *Browser) mark() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.events)
}

// waitEvent waits for an event of the tab named method after mark.
func (b *Browser) waitEvent(from int, method string, timeout time.Duration) {
	b.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		b.mu.Lock()
		for _, m := range b.events[from:] {
			if m.Method == method && m.SessionID == b.session {
				b.mu.Unlock()
				return
			}
		}
		b.mu.Unlock()
		left := time.Until(deadline)
		if left <= 0 {
			b.t.Fatalf("no %s in %s\n%s", method, timeout, b.Stderr())
		}
		select {
		case <-b.notify:
		case <-time.After(left):
		}
	}
}

// Navigate opens url in the tab and waits for its load event.
func (b *Browser) Navigate(url string) {
	b.t.Helper()
	from := b.mark()
	var nav struct{ ErrorText string }
	b.call(b.session, "Page.navigate", map[string]any{"url": url}, &nav)
	if nav.ErrorText != "" {
		b.t.Fatalf("navigate to %s: %s", url, nav.ErrorText)
	}
	b.waitEvent(from, "Page.loadEventFired", 60*time.Second)
}

// Submit runs script (which submits a form or follows a link) and waits
// for the page it loads.
func (b *Browser) Submit(script string) {
	b.t.Helper()
	from := b.mark()
	b.Eval(script, nil)
	b.waitEvent(from, "Page.loadEventFired", 60*time.Second)
}

// Eval evaluates a script expression in the page (awaiting a promise) and
// decodes its value into out.
func (b *Browser) Eval(expression string, out any) {
	b.t.Helper()
	var res struct {
		Result           struct{ Value json.RawMessage }
		ExceptionDetails *struct {
			Text      string
			Exception struct{ Description string }
		}
	}
	b.call(b.session, "Runtime.evaluate", map[string]any{"expression": expression, "returnByValue": true, "awaitPromise": true}, &res)
	if res.ExceptionDetails != nil {
		b.t.Fatalf("%s: %s %s", expression, res.ExceptionDetails.Text, res.ExceptionDetails.Exception.Description)
	}
	if out != nil && len(res.Result.Value) > 0 {
		if err := json.Unmarshal(res.Result.Value, out); err != nil {
			b.t.Fatalf("%s: %v (%s)", expression, err, res.Result.Value)
		}
	}
}

// WaitFor polls a script expression until it is true.
func (b *Browser) WaitFor(what, expression string, timeout time.Duration) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for {
		var ok bool
		b.Eval("Boolean("+expression+")", &ok)
		if ok {
			return
		}
		select {
		case <-ctx.Done():
			b.t.Fatalf("%s: not within %s", what, timeout)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Page is the tab's document now: its DOM and text.
func (b *Browser) Page() Seen {
	b.t.Helper()
	var dom string
	b.Eval("document.documentElement.outerHTML", &dom)
	return Seen{DOM: dom, Text: TextOf(dom)}
}

// Screenshot captures the tab as <name>.png, kept in the options' Keep.
func (b *Browser) Screenshot(name string) []byte {
	b.t.Helper()
	var shot struct{ Data string }
	b.call(b.session, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true}, &shot)
	raw, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil || len(raw) < 1000 {
		b.t.Fatalf("screenshot %s: %v (%d bytes)", name, err, len(raw))
	}
	Keep(b.t, b.o.Keep, name+".png", raw)
	return raw
}
