package eventstore

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// IsTransient tells an outage (the database or the broker is down,
// restarting, overloaded, or dropped the connection) from a failure that will
// repeat (a statement the database refuses, an event that cannot be decoded).
// A transient failure is waited out and tried again; only a repeating one may
// park an event.
func IsTransient(err error) bool {
	if err == nil {
		return false
	}
	var marked transientError
	if errors.As(err, &marked) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.SQLState()[:2] {
		case "08", // connection exception
			"40", // serialization failure, deadlock: retry as a whole
			"53", // insufficient resources
			"57", // operator intervention: shutdown, cancel, timeout
			"58": // system error (I/O)
			return true
		}
		return false
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	switch {
	case errors.As(err, &connectErr), errors.As(err, &netErr),
		errors.Is(err, pgconn.ErrConnClosed), pgconn.SafeToRetry(err), pgconn.Timeout(err),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, context.DeadlineExceeded):
		return true
	}
	// pgx reports a connection that died under a query without a type.
	var closed interface{ SafeToRetry() bool }
	return errors.As(err, &closed) || err.Error() == "conn closed" || err.Error() == "closed pool"
}

// Transient marks an error as an outage (see IsTransient), e.g. a broker
// that did not take a dead letter.
func Transient(err error) error {
	if err == nil {
		return nil
	}
	return transientError{err}
}

type transientError struct{ err error }

func (e transientError) Error() string { return e.err.Error() }
func (e transientError) Unwrap() error { return e.err }
