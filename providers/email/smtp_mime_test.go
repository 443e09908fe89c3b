package email_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"strings"
	"testing"

	"github.com/platform/backend/providers/email"
	"github.com/platform/backend/providers/email/smtptest"
)

// leaf is one MIME leaf as a mail reader sees it.
type leaf struct {
	contentType string // media type without parameters
	filename    string
	body        string // decoded
}

// walk flattens a message into its MIME tree's shape ("multipart/mixed(
// multipart/alternative(text/plain,text/html),application/pdf)") and leaves.
func walk(t *testing.T, header map[string][]string, body io.Reader) (string, []leaf) {
	t.Helper()
	get := func(k string) string {
		if v := header[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	mt, params, err := mime.ParseMediaType(get("Content-Type"))
	if err != nil {
		t.Fatalf("content type %q: %v", get("Content-Type"), err)
	}
	if strings.HasPrefix(mt, "multipart/") {
		r := multipart.NewReader(body, params["boundary"])
		var shapes []string
		var leaves []leaf
		for {
			p, err := r.NextRawPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			shape, l := walk(t, p.Header, p)
			shapes = append(shapes, shape)
			leaves = append(leaves, l...)
		}
		return mt + "(" + strings.Join(shapes, ",") + ")", leaves
	}
	raw, _ := io.ReadAll(body)
	switch get("Content-Transfer-Encoding") {
	case "base64":
		raw, err = base64.StdEncoding.DecodeString(strings.ReplaceAll(string(raw), "\r\n", ""))
		if err != nil {
			t.Fatal(err)
		}
	case "8bit", "7bit", "":
	default:
		t.Fatalf("unexpected encoding %q", get("Content-Transfer-Encoding"))
	}
	_, dp, _ := mime.ParseMediaType(get("Content-Disposition"))
	return mt, []leaf{{contentType: mt, filename: dp["filename"], body: string(raw)}}
}

func TestSMTPWritesMIMEStructure(t *testing.T) {
	pdf := base64.StdEncoding.EncodeToString([]byte("%PDF-1.7 pretend"))
	png := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0x89, 'P', 'N', 'G'}, 40))
	tests := []struct {
		name      string
		html, txt string
		files     []email.Attachment
		shape     string
	}{
		{name: "text only", txt: "hello", shape: "text/plain"},
		{name: "html only", html: "<p>hello</p>", shape: "text/html"},
		{name: "html and text", html: "<p>hello</p>", txt: "hello", shape: "multipart/alternative(text/plain,text/html)"},
		{name: "text and attachment", txt: "hello", files: []email.Attachment{{Filename: "a.pdf", Content: pdf, ContentType: "application/pdf"}},
			shape: "multipart/mixed(text/plain,application/pdf)"},
		{name: "both and attachments", html: "<p>hello</p>", txt: "hello",
			files: []email.Attachment{{Filename: "a.pdf", Content: pdf, ContentType: "application/pdf"}, {Filename: "pixel.png", Content: png}},
			shape: "multipart/mixed(multipart/alternative(text/plain,text/html),application/pdf,application/octet-stream)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := smtptest.Start(t)
			s := &email.SMTP{Addr: srv.Addr, From: "bounces@platform.test"}
			out := email.Outgoing{
				From:        email.Address{Name: "Ada Lovelace", Email: "ada@platform.test"},
				To:          []email.Address{{Email: "a@example.com"}, {Name: "Bé", Email: "b@example.com"}},
				Cc:          []email.Address{{Email: "c@example.com"}},
				Bcc:         []email.Address{{Email: "hidden@example.com"}},
				ReplyTo:     []email.Address{{Email: "support@platform.test"}},
				Subject:     "Ünïcode subject",
				HTML:        tc.html,
				Text:        tc.txt,
				Attachments: tc.files,
				Headers:     map[string]string{"X-Campaign": "spring"},
			}
			rec, err := s.Deliver(context.Background(), out)
			if err != nil {
				t.Fatal(err)
			}
			if rec.Units.Messages != 4 || rec.MessageID == "" || rec.Provider != "smtp" {
				t.Fatalf("receipt %+v", rec)
			}
			msgs := srv.Messages()
			if len(msgs) != 1 {
				t.Fatalf("%d messages", len(msgs))
			}
			got := msgs[0]
			if got.From != "bounces@platform.test" || strings.Join(got.To, ",") != "a@example.com,b@example.com,c@example.com,hidden@example.com" {
				t.Fatalf("envelope %s -> %v", got.From, got.To)
			}
			m, err := mail.ReadMessage(strings.NewReader(got.Data))
			if err != nil {
				t.Fatal(err)
			}
			dec := new(mime.WordDecoder)
			subject, _ := dec.DecodeHeader(m.Header.Get("Subject"))
			from, _ := m.Header.AddressList("From")
			to, _ := m.Header.AddressList("To")
			switch {
			case subject != "Ünïcode subject":
				t.Fatalf("subject %q", subject)
			case len(from) != 1 || from[0].Name != "Ada Lovelace" || from[0].Address != "ada@platform.test":
				t.Fatalf("from %v", from)
			case len(to) != 2 || to[1].Name != "Bé":
				t.Fatalf("to %v", to)
			case m.Header.Get("Cc") != "c@example.com" || m.Header.Get("Reply-To") != "support@platform.test":
				t.Fatalf("cc %q reply-to %q", m.Header.Get("Cc"), m.Header.Get("Reply-To"))
			case m.Header.Get("Bcc") != "" || strings.Contains(got.Data, "hidden@example.com"):
				t.Fatal("bcc leaked into the message")
			case m.Header.Get("X-Campaign") != "spring" || m.Header.Get("Mime-Version") != "1.0":
				t.Fatalf("headers %v", m.Header)
			case m.Header.Get("Message-Id") != "<"+rec.MessageID+">":
				t.Fatalf("message id %q, receipt %q", m.Header.Get("Message-Id"), rec.MessageID)
			}
			shape, leaves := walk(t, m.Header, m.Body)
			if shape != tc.shape {
				t.Fatalf("shape %s, want %s", shape, tc.shape)
			}
			for _, l := range leaves {
				switch l.contentType {
				case "text/plain":
					if l.body != tc.txt+"\r\n" {
						t.Fatalf("text %q", l.body)
					}
				case "text/html":
					if l.body != tc.html+"\r\n" {
						t.Fatalf("html %q", l.body)
					}
				default:
					var want string
					for _, f := range tc.files {
						if f.Filename == l.filename {
							want = f.Content
						}
					}
					if base64.StdEncoding.EncodeToString([]byte(l.body)) != want {
						t.Fatalf("attachment %q content differs", l.filename)
					}
				}
			}
		})
	}
}

func TestSMTPMessageIDFollowsIdempotencyKey(t *testing.T) {
	srv := smtptest.Start(t)
	s := &email.SMTP{Addr: srv.Addr, From: "noreply@platform.test"}
	send := func(key string) string {
		rec, err := s.Deliver(context.Background(), email.Outgoing{To: []email.Address{{Email: "a@example.com"}},
			Subject: "s", Text: "t", IdempotencyKey: key})
		if err != nil {
			t.Fatal(err)
		}
		return rec.MessageID
	}
	a, b, c := send("k1"), send("k1"), send("k2")
	if a != b || a == c || !strings.HasSuffix(a, "@platform.test") {
		t.Fatalf("ids %s %s %s", a, b, c)
	}
}

func TestSMTPFoldsLongHeaders(t *testing.T) {
	srv := smtptest.Start(t)
	s := &email.SMTP{Addr: srv.Addr, From: "noreply@platform.test"}
	subject := strings.Repeat("é", 998)
	var to []email.Address
	for i := range 60 {
		to = append(to, email.Address{Name: "Recipient Number " + strings.Repeat("x", i%7), Email: "r" + strings.Repeat("0", i%5) + "@example.com"})
	}
	if _, err := s.Deliver(context.Background(), email.Outgoing{To: to, Subject: subject, Text: "t"}); err != nil {
		t.Fatal(err)
	}
	data := srv.Messages()[0].Data
	for line := range strings.SplitSeq(data, "\r\n") {
		if len(line) > 998 {
			t.Fatalf("a line of %d octets", len(line))
		}
	}
	m, err := mail.ReadMessage(strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	got, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	if err != nil || got != subject {
		t.Fatalf("subject came back as %d runes: %v", len([]rune(got)), err)
	}
	if list, err := m.Header.AddressList("To"); err != nil || len(list) != 60 || list[59].Name != to[59].Name {
		t.Fatalf("to: %d %v", len(list), err)
	}
}

func TestSMTPLongLinesGoQuotedPrintable(t *testing.T) {
	srv := smtptest.Start(t)
	s := &email.SMTP{Addr: srv.Addr, From: "noreply@platform.test"}
	long := strings.Repeat("x", 2000)
	if _, err := s.Deliver(context.Background(), email.Outgoing{To: []email.Address{{Email: "a@example.com"}}, Subject: "s", HTML: long}); err != nil {
		t.Fatal(err)
	}
	data := srv.Messages()[0].Data
	if !strings.Contains(data, "Content-Transfer-Encoding: quoted-printable") {
		t.Fatalf("not quoted-printable:\n%.300s", data)
	}
	for line := range strings.SplitSeq(data, "\r\n") {
		if len(line) > 998 {
			t.Fatal("a line longer than SMTP allows")
		}
	}
}
