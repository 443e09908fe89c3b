package fakekit

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// Call is one request a fake answers, with the fault it plays.
type Call struct {
	W     http.ResponseWriter
	R     *http.Request
	Op    string
	Body  []byte
	Fault Fault
	kit   *Kit
}

// Label names the operation of a call in the record.
func (k *Kit) Label(r *http.Request, op string) {
	if rec := k.record(r); rec != nil {
		k.mu.Lock()
		rec.Op = op
		k.mu.Unlock()
	}
}

// Begin takes the call's fault (see Take) and plays it: Hang and Hold
// here, the faults the protocol says through it. It answers the call
// when the fake must answer it: a success, or a fault played on the answer
// (see Call.JSON, Call.Accepted).
func (k *Kit) Begin(w http.ResponseWriter, r *http.Request, op string, subjects ...string) (*Call, bool) {
	k.Label(r, op)
	c := &Call{W: w, R: r, Op: op, Body: k.body(r), Fault: k.Take(r, op, subjects...), kit: k}
	switch c.Fault.Kind {
	case Succeed:
		return c, true
	case Hang:
		HangUp(w, r)
		return nil, false
	case Hold:
		if c.Fault.Gate != nil && !c.Fault.Gate.Wait(r.Context()) {
			HangUp(w, r)
			return nil, false
		}
		c.Fault = Fault{}
		return c, true
	}
	if k.proto != nil && k.proto.Say(w, r, op, c.Fault) {
		return nil, false
	}
	return c, true
}

// Say answers the call with f the protocol's way (input the fake refuses:
// Status(400)); false when the protocol plays f on the answer.
func (c *Call) Say(f Fault) bool { return c.kit.proto != nil && c.kit.proto.Say(c.W, c.R, c.Op, f) }

// Fail answers the call with the protocol's error for an HTTP status.
func (c *Call) Fail(status int) { c.Say(Status(status)) }

// Decode reads the JSON body into v; on failure it answers 400 and
// returns false.
func (c *Call) Decode(v any) bool {
	if err := json.Unmarshal(c.Body, v); err != nil {
		c.Fail(http.StatusBadRequest)
		return false
	}
	return true
}

// Accepted is called right after the fake did the call's work (stored
// the post): under AcceptThenTimeout it hangs until the client gives up
// and answers true (the fake writes nothing more).
func (c *Call) Accepted() bool {
	if c.Fault.Kind != AcceptThenTimeout {
		return false
	}
	HangUp(c.W, c.R)
	return true
}

// JSON answers 200 with v, playing the fault on the answer: Malformed
// writes half of it, Cut drops the connection half-way through it,
// AcceptThenTimeout answers nothing until the client gives up.
func (c *Call) JSON(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		c.Fail(http.StatusInternalServerError)
		return
	}
	if c.Accepted() {
		return
	}
	c.W.Header().Set("Content-Type", "application/json")
	switch c.Fault.Kind {
	case Malformed:
		c.W.WriteHeader(http.StatusOK)
		_, _ = c.W.Write(b[:len(b)/2])
		return
	case Cut:
		c.W.Header().Set("Content-Length", strconv.Itoa(len(b)))
		c.W.WriteHeader(http.StatusOK)
		_, _ = c.W.Write(b[:len(b)/2])
		_ = http.NewResponseController(c.W).Flush()
		panic(http.ErrAbortHandler) // net/http drops the connection without logging
	}
	c.W.WriteHeader(http.StatusOK)
	_, _ = c.W.Write(b)
}

// HangUp answers nothing until the request's context ends (the client
// gives up, or the kit closes), then drops the connection: an implicit
// empty 200 would look like a malformed success.
func HangUp(w http.ResponseWriter, r *http.Request) {
	<-r.Context().Done()
	Drop(w)
}

// Drop closes the call's connection without an answer.
func Drop(w http.ResponseWriter) {
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		_ = conn.Close()
	}
}
