package sse

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReaderEvents(t *testing.T) {
	tests := map[string]struct {
		in      string
		want    []Event
		wantEnd error
	}{
		"data lines": {in: "data: {\"a\":1}\n\ndata: [DONE]\n\n",
			want: []Event{{Data: []byte(`{"a":1}`)}, {Data: []byte("[DONE]")}}, wantEnd: io.EOF},
		"named events and CRLF": {in: "event: ping\r\ndata: {}\r\n\r\nevent: message_stop\r\ndata: {\"type\":\"message_stop\"}\r\n\r\n",
			want: []Event{{Name: "ping", Data: []byte("{}")}, {Name: "message_stop", Data: []byte(`{"type":"message_stop"}`)}}, wantEnd: io.EOF},
		"comments and multi-line data": {in: ": keep-alive\n\ndata: a\ndata: b\n\n",
			want: []Event{{Data: []byte("a\nb")}}, wantEnd: io.EOF},
		"last event without blank line": {in: "data: x\n",
			want: []Event{{Data: []byte("x")}}, wantEnd: io.EOF},
		"cut in the middle of a line": {in: "data: x\n\ndata: {\"trunc",
			want: []Event{{Data: []byte("x")}}, wantEnd: io.ErrUnexpectedEOF},
		"empty data field": {in: "data:\n\n", want: []Event{{Data: []byte{}}}, wantEnd: io.EOF},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tc.in), 1<<20)
			for i, want := range tc.want {
				got, err := r.Next()
				if err != nil {
					t.Fatalf("event %d: %v", i, err)
				}
				if got.Name != want.Name || string(got.Data) != string(want.Data) {
					t.Fatalf("event %d = %q %q, want %q %q", i, got.Name, got.Data, want.Name, want.Data)
				}
			}
			if _, err := r.Next(); !errors.Is(err, tc.wantEnd) {
				t.Fatalf("end = %v, want %v", err, tc.wantEnd)
			}
		})
	}
}

func TestReaderBoundsEventSize(t *testing.T) {
	r := NewReader(strings.NewReader("data: "+strings.Repeat("x", 100)+"\n\n"), 50)
	if _, err := r.Next(); !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("err = %v, want too large", err)
	}
}
