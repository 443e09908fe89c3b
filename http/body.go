package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"time"

	"github.com/platform/backend/domain/errs"
)

// RawBody declares an action whose request body is not JSON input (a CSV
// file, a multipart upload). The kernel checks its media type when the route
// matches (415 otherwise, before authentication, as for JSON: routeChecks); refuses a
// declared length above MaxBytes with 413 before anything is read; and hands
// the body, unread, to the handler (Call.Body), which meets 413 when it reads
// past MaxBytes. Path and query parameters still form the schema-checked
// input; authentication, rate limits, request ids and problem answers are
// the same as for every action.
type RawBody struct {
	// MediaTypes are the accepted Content-Types, without parameters.
	MediaTypes []string
	// MaxBytes bounds the body (required).
	MaxBytes int64
	// Timeout, when set, is the request's read deadline from the moment the
	// action starts, in place of the server's, and its write deadline
	// AnswerMargin later: a large import takes longer to send and to commit
	// than a JSON request.
	Timeout time.Duration
	// IdleTimeout bounds the wait for the body's next bytes while Timeout
	// runs (default DefaultBodyIdle): a long deadline is for a large body
	// that keeps arriving, not for a client that stopped sending. Past it
	// the read fails: 408 request_timeout, and the connection closes.
	IdleTimeout time.Duration
	// Schema describes the body in the OpenAPI document (for each media type).
	Schema json.RawMessage
}

// openBody prepares a RawBody action's request: the declared length, the
// deadlines, and the body the handler reads.
func (a *Action) openBody(w http.ResponseWriter, r *http.Request) (io.Reader, string, error) {
	spec := a.Body
	if r.ContentLength > spec.MaxBytes {
		return nil, "", errTooLarge(spec.MaxBytes)
	}
	if !hasBody(r) {
		return nil, "", errs.InvalidField("/body", "a request body is required")
	}
	body := &boundedBody{r: r.Body, left: spec.MaxBytes, limit: spec.MaxBytes}
	if spec.Timeout > 0 {
		rc := http.NewResponseController(w)
		deadline := time.Now().Add(spec.Timeout)
		// Servers without deadlines (tests' recorders) say so; nothing to move.
		_ = rc.SetReadDeadline(deadline)
		// The answer may come after the body's deadline: its 408, or the
		// commit of a body that arrived just in time.
		_ = rc.SetWriteDeadline(deadline.Add(AnswerMargin))
		body.rc, body.end, body.idle = rc, deadline, spec.IdleTimeout
		if body.idle <= 0 {
			body.idle = DefaultBodyIdle
		}
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")) // routeChecks checked it
	return body, mt, nil
}

// AnswerMargin is the time a RawBody action with a Timeout has to answer
// after its body's deadline (the listener's margin between its default read
// and write timeouts).
const AnswerMargin = 30 * time.Second

// DefaultBodyIdle is the longest wait for a raw body's next bytes under a
// Timeout of its own: the listener's default read timeout, which bounds
// every other request's body whole.
const DefaultBodyIdle = 30 * time.Second

// boundedBody reads a raw body and turns what can go wrong into typed errors:
// past the bound 413, a body that stops arriving 408, anything else
// unreadable 400/422. A client that left keeps its error (499). An error
// sticks: a caller that drains the body after one does not wait again.
type boundedBody struct {
	r           io.Reader
	left, limit int64
	err         error
	// rc, when set, moves the read deadline before each read to idle from
	// now, never past end (RawBody.IdleTimeout).
	rc   *http.ResponseController
	idle time.Duration
	end  time.Time
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.rc != nil {
		next := time.Now().Add(b.idle)
		if next.After(b.end) {
			next = b.end
		}
		_ = b.rc.SetReadDeadline(next)
	}
	n, err := b.read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		b.err = err
	}
	if b.rc != nil && errors.Is(err, io.EOF) {
		// The whole body is in: net/http now reads ahead in the background to
		// notice a client that leaves, and a timeout there cancels the
		// request. The rest of the request (an import's commit) has until end.
		_ = b.rc.SetReadDeadline(b.end)
	}
	return n, err
}

func (b *boundedBody) read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly the bound from a larger one.
		var one [1]byte
		n, err := b.r.Read(one[:])
		if n > 0 {
			return 0, errTooLarge(b.limit)
		}
		return 0, b.wrap(err)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, b.wrap(err)
}

func (b *boundedBody) wrap(err error) error {
	switch {
	case err == nil, errors.Is(err, io.EOF):
		return err
	case errors.Is(err, os.ErrDeadlineExceeded):
		return bodyReadError(err)
	}
	if errors.As(err, new(*http.MaxBytesError)) {
		return bodyReadError(err)
	}
	// A connection that broke mid-body: the client's problem (WriteError
	// answers 499 instead when the client is gone).
	e := errs.InvalidField("/body", "the request body could not be read")
	e.Err = err
	return e
}

// IsKernelProblem reports an answer of the kernel's own in err (a body that
// stopped arriving: 408), which a handler passes on as it is.
func IsKernelProblem(err error) bool {
	var kp *kernelProblem
	return errors.As(err, &kp)
}
