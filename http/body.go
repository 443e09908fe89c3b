package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/platform/backend/domain/errs"
)

// RawBody declares an action whose request body is not JSON input (a CSV
// file, a multipart upload). The kernel checks its media type when the route
// matches (415 otherwise, before authentication, as for JSON); refuses a
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
	// Timeout, when set, is the request's read and write deadline from the
	// moment the action starts, in place of the server's: a large import
	// takes longer to send and to commit than a JSON request.
	Timeout time.Duration
	// Schema describes the body in the OpenAPI document (for each media type).
	Schema json.RawMessage
}

// rawRoute is the route handler of an action with a RawBody: requireJSON
// lets its media types through.
type rawRoute struct {
	http.Handler
	types []string
}

func (r rawRoute) accepts(mediaType string) bool { return slices.Contains(r.types, mediaType) }

// mediaRoute is a route that takes a body other than JSON.
type mediaRoute interface{ accepts(mediaType string) bool }

// openBody prepares a RawBody action's request: the declared length, the
// deadlines, and the body the handler reads.
func (a *Action) openBody(w http.ResponseWriter, r *http.Request) (io.Reader, string, error) {
	spec := a.Body
	if r.ContentLength > spec.MaxBytes {
		return nil, "", errs.TooLarge("payload_too_large", "the request body is larger than "+strconv.FormatInt(spec.MaxBytes, 10)+" bytes")
	}
	if !hasBody(r) {
		return nil, "", errs.InvalidField("/body", "a request body is required")
	}
	if spec.Timeout > 0 {
		rc := http.NewResponseController(w)
		deadline := time.Now().Add(spec.Timeout)
		// Servers without deadlines (tests' recorders) say so; nothing to move.
		_ = rc.SetReadDeadline(deadline)
		_ = rc.SetWriteDeadline(deadline)
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")) // requireJSON checked it
	return &boundedBody{r: r.Body, left: spec.MaxBytes, limit: spec.MaxBytes}, mt, nil
}

// boundedBody reads a raw body and turns what can go wrong into typed errors:
// past the bound 413, a body that stops arriving 408, anything else
// unreadable 400/422. A client that left keeps its error (499).
type boundedBody struct {
	r           io.Reader
	left, limit int64
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly the bound from a larger one.
		var one [1]byte
		n, err := b.r.Read(one[:])
		if n > 0 {
			return 0, errs.TooLarge("payload_too_large", "the request body is larger than "+strconv.FormatInt(b.limit, 10)+" bytes")
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
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return errs.TooLarge("payload_too_large", "the request body is larger than "+strconv.FormatInt(tooLarge.Limit, 10)+" bytes")
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
