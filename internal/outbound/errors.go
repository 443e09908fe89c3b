package outbound

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"syscall"
)

// Reason is the only thing a failure tells its caller (and, through it, a
// tenant): one word from a small set. Raw error text names addresses, ports
// and resolver details, which would turn the client into a port scanner.
type Reason string

const (
	ReasonBlocked     Reason = "blocked"     // the address is internal and not allowed
	ReasonDNS         Reason = "dns"         // the name did not resolve
	ReasonRefused     Reason = "refused"     // nothing listens there
	ReasonUnreachable Reason = "unreachable" // no route to the host or network
	ReasonReset       Reason = "reset"       // the peer closed the connection
	ReasonTimeout     Reason = "timeout"     // the time bound passed
	ReasonCanceled    Reason = "canceled"    // the caller gave up
	ReasonTLS         Reason = "tls"         // handshake or certificate failed
	ReasonTooLarge    Reason = "too_large"   // the response exceeded the size bound
	ReasonRedirect    Reason = "redirect"    // too many redirects, or to a scheme other than http(s)
	ReasonInvalidURL  Reason = "invalid_url" // not an absolute http(s) URL
	ReasonHTTP        Reason = "http_error"  // any other protocol or transport failure
)

// Error is a failed exchange. Error() is the reason alone; the cause stays
// for logs (Unwrap) and is never meant for a client.
type Error struct {
	Reason Reason
	cause  error
}

func (e *Error) Error() string { return string(e.Reason) }
func (e *Error) Unwrap() error { return e.cause }

// ReasonOf is the reason of an error of this package ("" for nil, http_error
// for anything else).
func ReasonOf(err error) Reason {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ReasonHTTP
}

// errBlocked is returned by the dialer for a refused address.
var errBlocked = errors.New("address not allowed")

// errTooLarge ends a body read past the bound.
var errTooLarge = errors.New("response too large")

// errRedirect is a redirect the client will not follow.
var errRedirect = errors.New("redirect not followed")

// classify maps a failure to its reason. Order matters: a blocked dial is
// wrapped in the same net.OpError as a refused one.
func classify(err error) *Error {
	reason := ReasonHTTP
	var dnsErr *net.DNSError
	var certInvalid x509.CertificateInvalidError
	var unknownAuthority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var verify *tls.CertificateVerificationError
	var record tls.RecordHeaderError
	var alert tls.AlertError
	var netErr net.Error
	switch {
	case errors.Is(err, errBlocked):
		reason = ReasonBlocked
	case errors.Is(err, errTooLarge):
		reason = ReasonTooLarge
	case errors.Is(err, errRedirect):
		reason = ReasonRedirect
	case errors.Is(err, context.Canceled):
		reason = ReasonCanceled
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		reason = ReasonTimeout
	case errors.As(err, &dnsErr):
		reason = ReasonDNS
	case errors.Is(err, syscall.ECONNREFUSED):
		reason = ReasonRefused
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		reason = ReasonUnreachable
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		reason = ReasonReset
	case errors.As(err, &certInvalid), errors.As(err, &unknownAuthority), errors.As(err, &hostname),
		errors.As(err, &verify), errors.As(err, &record), errors.As(err, &alert):
		reason = ReasonTLS
	}
	return &Error{Reason: reason, cause: err}
}
