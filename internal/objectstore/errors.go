package objectstore

import (
	"context"
	"errors"
	"strconv"
	"strings"
)

// Kind is what went wrong, in the few words an HTTP layer maps to a status.
type Kind string

const (
	KindNotFound        Kind = "not_found"        // no object under the key (404)
	KindTooLarge        Kind = "too_large"        // over the size limit; nothing was stored (413)
	KindInvalidKey      Kind = "invalid_key"      // the key or prefix is refused (400/422)
	KindUnsupportedType Kind = "unsupported_type" // the content type is malformed or not the allowed one (415)
	KindInvalidArgument Kind = "invalid_argument" // options out of range, a body shorter or longer than declared (400/422)
	KindUnavailable     Kind = "unavailable"      // the storage failed or is unreachable (503)
)

// Error is a failed operation. Compare with errors.Is against the sentinels
// below (they match on Kind alone) or read the kind with KindOf.
type Error struct {
	Kind Kind
	Op   string // "put", "get", ... ("" for the sentinels)
	Key  string
	// Msg says more than the kind, in words safe to log.
	Msg string
	Err error // the cause, for logs
}

// The sentinels, one per kind: errors.Is(err, objectstore.ErrTooLarge).
var (
	ErrNotFound        = &Error{Kind: KindNotFound}
	ErrTooLarge        = &Error{Kind: KindTooLarge}
	ErrInvalidKey      = &Error{Kind: KindInvalidKey}
	ErrUnsupportedType = &Error{Kind: KindUnsupportedType}
	ErrInvalidArgument = &Error{Kind: KindInvalidArgument}
	ErrUnavailable     = &Error{Kind: KindUnavailable}
)

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("objectstore: ")
	if e.Op != "" {
		b.WriteString(e.Op)
		if e.Key != "" {
			b.WriteString(" " + quoteKey(e.Key))
		}
		b.WriteString(": ")
	}
	if e.Msg != "" {
		b.WriteString(e.Msg)
	} else {
		b.WriteString(strings.ReplaceAll(string(e.Kind), "_", " "))
	}
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes every error of a kind match that kind's sentinel.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Op == "" && t.Key == "" && t.Msg == "" && t.Err == nil && t.Kind == e.Kind
}

// KindOf is the kind of an error of this package: "" for nil and for errors
// that are not ours (a caller's bug, to be logged as such).
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}

func newError(kind Kind, op, key, msg string, cause error) *Error {
	return &Error{Kind: kind, Op: op, Key: key, Msg: msg, Err: cause}
}

// withOp stamps the operation and key on an error of ours that lacks them,
// and turns any other failure into unavailable: below this package only the
// storage can fail, and the caller can do nothing but retry later. A
// canceled or expired context stays recognisable through Unwrap.
func withOp(op, key string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		if e.Op != "" {
			return e
		}
		c := *e
		c.Op, c.Key = op, key
		return &c
	}
	msg := "storage failed"
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		msg = "gave up"
	}
	return newError(KindUnavailable, op, key, msg, err)
}

// quoteKey keeps a refused key (which may hold control characters) on one
// log line and bounded.
func quoteKey(k string) string {
	const most = 200
	if len(k) > most {
		k = k[:most] + "..."
	}
	return strconv.Quote(k)
}
