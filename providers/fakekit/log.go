package fakekit

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"time"
)

// MaxBody bounds the request body a fake reads and records.
const MaxBody = 256 << 20

// KeepRequests is how many requests the record keeps at least (it holds at
// most twice as many: benchmarks and the sandbox make many calls).
const KeepRequests = 1000

// Request is one recorded call, whatever its outcome.
type Request struct {
	Op       string // the operation Begin named ("" until then, or for none)
	Method   string
	Path     string
	RawQuery string
	Header   http.Header
	Body     []byte
	At       time.Time // by the fake's clock
	// Status is what the fake answered; 0 while the call is in flight, or
	// when it ended without an answer.
	Status int
}

// Query is the recorded query, parsed.
func (r Request) Query() url.Values {
	q, _ := url.ParseQuery(r.RawQuery)
	return q
}

// JSON decodes the recorded body into a generic map.
func (r Request) JSON() map[string]any {
	var m map[string]any
	_ = json.Unmarshal(r.Body, &m)
	return m
}

type recordKey struct{ k *Kit }

// Handler records every call to h as it arrives (its body read, bounded,
// and handed on) and its status when h returns, and ends the call's
// context when the kit closes, so whatever waits for the client also ends
// then. A fake mounted on another server serves through it too.
func (k *Kit) Handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Context().Value(recordKey{k}) != nil { // already recorded by this kit
			h.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, MaxBody))
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := &Request{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Header: r.Header.Clone(),
			Body: body, At: k.now()}
		k.mu.Lock()
		k.log = append(k.log, rec)
		k.calls++
		if len(k.log) >= 2*KeepRequests { // trimmed in bulk: a benchmark's calls stay O(1)
			k.log = append([]*Request(nil), k.log[len(k.log)-KeepRequests:]...)
		}
		k.mu.Unlock()

		ctx, cancel := context.WithCancel(context.WithValue(r.Context(), recordKey{k}, rec))
		defer cancel()
		defer context.AfterFunc(k.closing, cancel)()
		aw := &answerWriter{ResponseWriter: w}
		defer func() { // also when the handler drops the connection (a panic)
			k.mu.Lock()
			rec.Status = aw.status
			k.mu.Unlock()
		}()
		h.ServeHTTP(aw, r.WithContext(ctx))
	})
}

// record is the call's record (nil for a call that did not come through
// Handler).
func (k *Kit) record(r *http.Request) *Request {
	rec, _ := r.Context().Value(recordKey{k}).(*Request)
	return rec
}

// body is the call's recorded body.
func (k *Kit) body(r *http.Request) []byte {
	if rec := k.record(r); rec != nil {
		return rec.Body
	}
	return nil
}

// Requests lists the calls so far, oldest first.
func (k *Kit) Requests() []Request {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := make([]Request, len(k.log))
	for i, r := range k.log {
		out[i] = *r
	}
	return out
}

// RequestsOf lists the calls of one operation.
func (k *Kit) RequestsOf(op string) []Request {
	var out []Request
	for _, r := range k.Requests() {
		if r.Op == op {
			out = append(out, r)
		}
	}
	return out
}

// Last is the latest call (zero when none).
func (k *Kit) Last() Request {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.log) == 0 {
		return Request{}
	}
	return *k.log[len(k.log)-1]
}

// Calls counts every call so far, those the record no longer keeps too.
func (k *Kit) Calls() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.calls
}

// answerWriter notes the status a fake answers.
type answerWriter struct {
	http.ResponseWriter
	status int
}

func (w *answerWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *answerWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Flush sends what is written so far (streams).
func (w *answerWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		if w.status == 0 {
			w.status = http.StatusOK
		}
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection (HangUp).
func (w *answerWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
