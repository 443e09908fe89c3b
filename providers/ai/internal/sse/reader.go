// Package sse reads a Server-Sent Events stream (the HTML living standard's
// text/event-stream) one event at a time, as the bytes arrive.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// Event is one dispatched event. Name is empty for the default "message".
type Event struct {
	Name string
	Data []byte
}

// ErrEventTooLarge: one event grew past the reader's limit.
var ErrEventTooLarge = errors.New("sse: event too large")

// Reader reads events from r.
type Reader struct {
	br  *bufio.Reader
	max int
}

// NewReader reads events of at most max bytes each.
func NewReader(r io.Reader, max int) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 16<<10), max: max}
}

// Next returns the next event. At the end of the stream it returns io.EOF,
// after dispatching a last event whose blank line never came; a stream that
// ends in the middle of a line returns io.ErrUnexpectedEOF (a cut, not an end).
func (r *Reader) Next() (Event, error) {
	var ev Event
	var data []byte
	pending := false
	for {
		line, err := r.line()
		if err == io.EOF {
			if pending {
				ev.Data = data
				return ev, nil
			}
			return Event{}, io.EOF
		}
		if err != nil {
			return Event{}, err
		}
		if len(line) == 0 {
			if pending {
				ev.Data = data
				return ev, nil
			}
			continue
		}
		if line[0] == ':' { // comment, keep-alive
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			ev.Name = string(value)
			pending = true
		case "data":
			if data != nil {
				data = append(data, '\n')
			}
			data = append(data, value...)
			if data == nil {
				data = []byte{}
			}
			pending = true
		}
		if len(data) > r.max {
			return Event{}, ErrEventTooLarge
		}
	}
}

// line reads one line without its end (LF, CRLF or CR before LF).
func (r *Reader) line() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > r.max {
			return nil, ErrEventTooLarge
		}
		switch {
		case err == nil:
			buf = bytes.TrimSuffix(buf[:len(buf)-1], []byte("\r"))
			return buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && len(buf) > 0:
			return nil, io.ErrUnexpectedEOF
		default:
			return nil, err
		}
	}
}
