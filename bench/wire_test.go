package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"time"
)

// loadClient sends one request and returns the answer's body, refusing a
// status other than want: httpClient (net/http's) or wireClient.
type loadClient interface {
	do(method, path string, body any, want int) ([]byte, error)
}

// wireClient is the load generator of the HTTP bars: HTTP/1.1 over
// keep-alive connections, each request written as one buffer and each answer
// read straight from the connection, as wrk does. The client shares the two
// cores with the platform it measures, and net/http's client (a read and a
// write goroutine a connection, header maps, a request copy) cost ~24 µs of
// the ~50 a validation took, half of what the bar is about; the ceilings'
// own client (pgx) is as lean. httpClient, net/http's, stays for the other
// benchmarks and for the comparison the validation benchmark prints.
//
// It speaks what the platform answers: a status line, headers, a body of
// Content-Length bytes or chunked; a "Connection: close" answer closes the
// connection. A connection that fails is closed, never reused.
type wireClient struct {
	addr, host, token string
	timeout           time.Duration
	idle              chan *wireConn
}

type wireConn struct {
	c   net.Conn
	r   *bufio.Reader
	req []byte
}

// newWireClient makes a client of base ("http://host:port") keeping up to
// conns idle connections.
func newWireClient(base, token string, conns int) (*wireClient, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" {
		return nil, fmt.Errorf("wire client: %s: only http", base)
	}
	return &wireClient{addr: u.Host, host: u.Host, token: token, timeout: 30 * time.Second, idle: make(chan *wireConn, conns)}, nil
}

// do sends body as JSON (nil: no body) and returns the answer's body,
// refusing a status other than want, as httpClient.do does.
func (c *wireClient) do(method, path string, body any, want int) ([]byte, error) {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return nil, err
		}
	}
	conn, err := c.conn()
	if err != nil {
		return nil, err
	}
	status, out, keep, err := conn.roundTrip(c, method, path, payload)
	if err != nil {
		conn.c.Close()
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if keep {
		select {
		case c.idle <- conn:
		default:
			conn.c.Close()
		}
	} else {
		conn.c.Close()
	}
	if status != want {
		return nil, fmt.Errorf("%s %s: %d %s", method, path, status, out)
	}
	return out, nil
}

// close closes the idle connections.
func (c *wireClient) close() {
	for {
		select {
		case conn := <-c.idle:
			conn.c.Close()
		default:
			return
		}
	}
}

func (c *wireClient) conn() (*wireConn, error) {
	select {
	case conn := <-c.idle:
		return conn, nil
	default:
	}
	nc, err := net.DialTimeout("tcp", c.addr, c.timeout)
	if err != nil {
		return nil, err
	}
	return &wireConn{c: nc, r: bufio.NewReaderSize(nc, 16<<10)}, nil
}

func (w *wireConn) roundTrip(c *wireClient, method, path string, payload []byte) (status int, body []byte, keep bool, err error) {
	req := append(w.req[:0], method...)
	req = append(req, ' ')
	req = append(req, path...)
	req = append(req, " HTTP/1.1\r\nHost: "...)
	req = append(req, c.host...)
	req = append(req, "\r\nUser-Agent: platform-bench\r\nAuthorization: Bearer "...)
	req = append(req, c.token...)
	if payload != nil {
		req = append(req, "\r\nContent-Type: application/json\r\nContent-Length: "...)
		req = strconv.AppendInt(req, int64(len(payload)), 10)
	}
	req = append(req, "\r\n\r\n"...)
	req = append(req, payload...)
	w.req = req
	if err := w.c.SetDeadline(time.Now().Add(c.timeout)); err != nil {
		return 0, nil, false, err
	}
	if _, err := w.c.Write(req); err != nil {
		return 0, nil, false, err
	}
	return readAnswer(w.r)
}

// readAnswer reads one HTTP/1.1 answer: its status, its body (by
// Content-Length or chunked) and whether the connection stays open.
func readAnswer(r *bufio.Reader) (status int, body []byte, keep bool, err error) {
	line, err := readLine(r)
	if err != nil {
		return 0, nil, false, err
	}
	proto, rest, _ := bytes.Cut(line, []byte(" "))
	code, _, _ := bytes.Cut(rest, []byte(" "))
	if string(proto) != "HTTP/1.1" || len(code) != 3 {
		return 0, nil, false, fmt.Errorf("not an HTTP/1.1 status line: %q", line)
	}
	if status, err = strconv.Atoi(string(code)); err != nil {
		return 0, nil, false, fmt.Errorf("status line %q: %w", line, err)
	}
	length, chunked := -1, false
	keep = true
	for {
		h, err := readLine(r)
		if err != nil {
			return 0, nil, false, err
		}
		if len(h) == 0 {
			break
		}
		name, value, ok := bytes.Cut(h, []byte(":"))
		if !ok {
			return 0, nil, false, fmt.Errorf("header line %q", h)
		}
		value = bytes.TrimSpace(value)
		switch {
		case asciiEqual(name, "Content-Length"):
			if length, err = strconv.Atoi(string(value)); err != nil || length < 0 {
				return 0, nil, false, fmt.Errorf("Content-Length %q", value)
			}
		case asciiEqual(name, "Transfer-Encoding"):
			chunked = asciiEqual(value, "chunked")
		case asciiEqual(name, "Connection"):
			keep = !asciiEqual(value, "close")
		}
	}
	switch {
	case chunked:
		body, err = readChunked(r)
	case length >= 0:
		body = make([]byte, length)
		_, err = io.ReadFull(r, body)
	case status == 204 || status == 304:
	default:
		return 0, nil, false, errors.New("an answer without a length")
	}
	return status, body, keep, err
}

func readChunked(r *bufio.Reader) ([]byte, error) {
	var body []byte
	for {
		line, err := readLine(r)
		if err != nil {
			return nil, err
		}
		size, _, _ := bytes.Cut(line, []byte(";"))
		n, err := strconv.ParseInt(string(bytes.TrimSpace(size)), 16, 32)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("chunk size %q", line)
		}
		if n == 0 {
			for { // trailers, then the blank line
				t, err := readLine(r)
				if err != nil {
					return nil, err
				}
				if len(t) == 0 {
					return body, nil
				}
			}
		}
		start := len(body)
		body = append(body, make([]byte, n)...)
		if _, err := io.ReadFull(r, body[start:]); err != nil {
			return nil, err
		}
		if crlf, err := readLine(r); err != nil || len(crlf) != 0 {
			return nil, fmt.Errorf("chunk not ended by CRLF: %v", err)
		}
	}
}

// readLine reads a CRLF-ended line without its CRLF; the slice is valid
// until the next read.
func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return nil, fmt.Errorf("line not ended by CRLF: %q", line)
	}
	return line[:len(line)-2], nil
}

func asciiEqual(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
