package outbound

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"
)

// Resolver turns a host name into addresses; *net.Resolver is one, tests
// bring their own (DNS rebinding, names of the test's choosing).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

var _ Resolver = (*net.Resolver)(nil)

// Client sends requests to tenant-supplied URLs under Config's bounds and
// the address policy. It is safe for concurrent use.
type Client struct {
	cfg      Config
	policy   Policy
	log      *slog.Logger
	resolver Resolver
	http     *http.Client
}

// Option adjusts a Client.
type Option func(*Client)

// WithResolver replaces the system resolver.
func WithResolver(r Resolver) Option { return func(c *Client) { c.resolver = r } }

// New builds a client from a config (defaults applied, then validated).
func New(cfg Config, log *slog.Logger, opts ...Option) (*Client, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Client{cfg: cfg, policy: Policy{Allow: cfg.AllowNetworks}, log: log, resolver: net.DefaultResolver}
	for _, o := range opts {
		o(c)
	}
	transport := &http.Transport{
		// Never a proxy: a proxy would dial the internal address for us,
		// past the check, and the environment (HTTP_PROXY) is not the tenant's.
		Proxy:                  nil,
		DialContext:            c.dial,
		ForceAttemptHTTP2:      true,
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    cfg.Timeout,
		ResponseHeaderTimeout:  cfg.Timeout,
		MaxResponseHeaderBytes: cfg.MaxHeaderBytes,
		MaxIdleConns:           64,
		MaxIdleConnsPerHost:    2,
		IdleConnTimeout:        30 * time.Second,
	}
	c.http = &http.Client{Transport: transport, Timeout: cfg.Timeout, CheckRedirect: c.checkRedirect}
	return c, nil
}

// Policy is the client's address policy (for checks when a URL is stored).
func (c *Client) Policy() Policy { return c.policy }

// Response is a completed exchange: status, headers and the body, read
// whole within MaxBodyBytes. URL is the final URL after redirects.
type Response struct {
	StatusCode int
	Header     http.Header
	Body       []byte
	URL        *url.URL
}

// Get is Do of a GET without a body.
func (c *Client) Get(ctx context.Context, rawURL string) (*Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, &Error{Reason: ReasonInvalidURL, cause: err}
	}
	return c.Do(req)
}

// Do sends req and reads the answer. Failures are *Error (see Reason).
// When the body is longer than MaxBodyBytes, the response (status, headers,
// the body up to the bound) comes back together with a too_large error, so a
// caller that only needs the status can still use it.
func (c *Client) Do(req *http.Request) (*Response, error) {
	if req.URL == nil || !req.URL.IsAbs() || req.URL.Host == "" ||
		(req.URL.Scheme != "http" && req.URL.Scheme != "https") {
		return nil, &Error{Reason: ReasonInvalidURL}
	}
	if req.URL.User != nil {
		// net/http would send user:password@ as Basic auth to whatever host
		// the URL names; credentials never come from a tenant's URL.
		req = req.Clone(req.Context())
		u := *req.URL
		u.User = nil
		req.URL = &u
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.fail(req, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.cfg.MaxBodyBytes+1))
	out := &Response{StatusCode: resp.StatusCode, Header: resp.Header, Body: body, URL: resp.Request.URL}
	if err != nil {
		return nil, c.fail(req, err)
	}
	if int64(len(body)) > c.cfg.MaxBodyBytes {
		out.Body = body[:c.cfg.MaxBodyBytes]
		return out, c.fail(req, errTooLarge)
	}
	return out, nil
}

// fail classifies err and logs the cause for operators (host only: a URL's
// path and query may carry a tenant's secrets).
func (c *Client) fail(req *http.Request, err error) *Error {
	e := classify(err)
	c.log.Debug("outbound request failed", "host", req.URL.Hostname(), "reason", e.Reason, "cause", err)
	return e
}

// checkRedirect bounds redirects and keeps them to http(s) without
// credentials; the target's address is checked when it is dialled.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > c.cfg.MaxRedirects {
		return fmt.Errorf("%w: more than %d", errRedirect, c.cfg.MaxRedirects)
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return fmt.Errorf("%w: scheme %q", errRedirect, req.URL.Scheme)
	}
	req.URL.User = nil // a Location with user:password@ must not become Basic auth
	return nil
}

// dial resolves the host itself and dials only allowed addresses, by
// address, so what is checked is what is connected to; the dialer's Control
// checks the socket's address once more just before connect (defense in
// depth: nothing else can hand it an unchecked address).
func (c *Client) dial(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	addrs, err := c.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	d := &net.Dialer{Control: c.control}
	var firstErr error
	for _, a := range addrs {
		if !c.policy.Allowed(a) {
			if firstErr == nil {
				firstErr = &net.OpError{Op: "dial", Net: network, Err: errBlocked}
			}
			continue
		}
		conn, err := d.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return conn, nil
		}
		if firstErr == nil || errors.Is(firstErr, errBlocked) {
			firstErr = err // a real attempt says more than a skipped address
		}
	}
	if firstErr == nil {
		firstErr = &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
	}
	return nil, firstErr
}

// resolve reads IP literals (legacy IPv4 spellings included) itself and
// asks the resolver only for names.
func (c *Client) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	addr, isIP, numeric := HostAddr(host)
	switch {
	case isIP:
		return []netip.Addr{addr}, nil
	case numeric:
		return nil, &net.DNSError{Err: "numeric host that is not an address", Name: host, IsNotFound: true}
	}
	return c.resolver.LookupNetIP(ctx, "ip", host)
}

// control runs on the socket about to connect: the last word on the address.
func (c *Client) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || !c.policy.Allowed(ap.Addr()) {
		return errBlocked
	}
	return nil
}
