package email

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"maps"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/textproto"
	"slices"
	"strings"
	"time"
)

// maxLine is SMTP's limit on a line (RFC 5321 §4.5.3.1.6), CRLF excluded.
const maxLine = 998

// renderMIME writes m as an RFC 5322 message with CRLF line ends. Text or
// HTML alone is a single part; both are multipart/alternative (text first:
// RFC 2046 orders alternatives from plainest to richest); attachments wrap
// that in multipart/mixed. Bcc is never written: it lives in the envelope.
func renderMIME(m Outgoing, messageID string, date time.Time) []byte {
	var b bytes.Buffer
	header := func(k, v string) { b.WriteString(fold(k+": "+v) + "\r\n") }
	header("From", m.From.String())
	header("To", addressList(m.To))
	if len(m.Cc) > 0 {
		header("Cc", addressList(m.Cc))
	}
	if len(m.ReplyTo) > 0 {
		header("Reply-To", addressList(m.ReplyTo))
	}
	header("Subject", mime.QEncoding.Encode("utf-8", m.Subject))
	header("Date", date.UTC().Format(time.RFC1123Z))
	header("Message-ID", "<"+messageID+">")
	for _, k := range slices.Sorted(maps.Keys(m.Headers)) {
		header(textproto.CanonicalMIMEHeaderKey(k), mime.QEncoding.Encode("utf-8", m.Headers[k]))
	}
	header("MIME-Version", "1.0")
	body := bodyPart(m)
	if len(m.Attachments) > 0 {
		parts := []part{body}
		for _, a := range m.Attachments {
			parts = append(parts, attachmentPart(a))
		}
		body = multipartOf("multipart/mixed", parts)
	}
	for _, k := range slices.Sorted(maps.Keys(body.header)) {
		header(k, body.header.Get(k))
	}
	b.WriteString("\r\n")
	b.Write(body.content)
	return b.Bytes()
}

// foldWidth is where header lines are folded (RFC 5322 §2.1.1 asks for 78).
const foldWidth = 78

// fold breaks a long header line at spaces into continuation lines, so
// that long subjects (as RFC 2047 words) and long address lists stay
// within SMTP's line limit. A single word longer than a line stays whole.
func fold(line string) string {
	if len(line) <= foldWidth {
		return line
	}
	var b strings.Builder
	width := 0
	for i, word := range strings.Split(line, " ") {
		if i > 0 {
			if width+1+len(word) > foldWidth {
				b.WriteString("\r\n")
				width = 0
			}
			b.WriteString(" ")
			width++
		}
		b.WriteString(word)
		width += len(word)
	}
	return b.String()
}

// part is one MIME entity: its Content-* headers and its encoded content.
type part struct {
	header  textproto.MIMEHeader
	content []byte
}

// bodyPart is the readable body: one text part, or multipart/alternative
// when there are both text and HTML.
func bodyPart(m Outgoing) part {
	switch {
	case m.HTML == "":
		return textPart("text/plain", m.Text)
	case m.Text == "":
		return textPart("text/html", m.HTML)
	default:
		return multipartOf("multipart/alternative", []part{textPart("text/plain", m.Text), textPart("text/html", m.HTML)})
	}
}

// textPart goes as 8bit, readable in the raw message, unless a line is too
// long for SMTP: then quoted-printable.
func textPart(typ, content string) part {
	content = crlf(content)
	h := textproto.MIMEHeader{"Content-Type": {typ + "; charset=utf-8"}}
	if !hasLongLine(content) {
		h.Set("Content-Transfer-Encoding", "8bit")
		return part{h, []byte(content)}
	}
	h.Set("Content-Transfer-Encoding", "quoted-printable")
	var b bytes.Buffer
	qp := quotedprintable.NewWriter(&b)
	qp.Write([]byte(content))
	qp.Close()
	return part{h, b.Bytes()}
}

func attachmentPart(a Attachment) part {
	raw, _ := base64.StdEncoding.DecodeString(a.Content) // Validate checked it
	return part{textproto.MIMEHeader{
		"Content-Type":              {a.contentType()},
		"Content-Disposition":       {mime.FormatMediaType("attachment", map[string]string{"filename": a.Filename})},
		"Content-Transfer-Encoding": {"base64"},
	}, wrapBase64(raw)}
}

// multipartOf nests parts under a fresh boundary.
func multipartOf(typ string, parts []part) part {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, p := range parts {
		pw, _ := w.CreatePart(p.header) // writes to a buffer: cannot fail
		pw.Write(p.content)
	}
	w.Close()
	return part{textproto.MIMEHeader{"Content-Type": {mime.FormatMediaType(typ, map[string]string{"boundary": w.Boundary()})}}, b.Bytes()}
}

// crlf normalizes line ends to CRLF and ends the text with one.
func crlf(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
	if !strings.HasSuffix(s, "\r\n") {
		s += "\r\n"
	}
	return s
}

func hasLongLine(s string) bool {
	for line := range strings.SplitSeq(s, "\r\n") {
		if len(line) > maxLine {
			return true
		}
	}
	return false
}

// wrapBase64 encodes raw in lines of 76 characters (RFC 2045 §6.8).
func wrapBase64(raw []byte) []byte {
	enc := base64.StdEncoding.EncodeToString(raw)
	var b bytes.Buffer
	for len(enc) > 76 {
		b.WriteString(enc[:76] + "\r\n")
		enc = enc[76:]
	}
	b.WriteString(enc + "\r\n")
	return b.Bytes()
}

func addressList(list []Address) string {
	s := make([]string, len(list))
	for i, a := range list {
		s[i] = a.String()
	}
	return strings.Join(s, ", ")
}

// newMessageID is the message's Message-ID (without angle brackets): derived
// from the idempotency key when there is one, so that a retried delivery
// carries the same id and receivers can fold the copies; random otherwise.
func newMessageID(idempotencyKey, fromEmail string) string {
	id := strings.ToLower(rand.Text())
	if idempotencyKey != "" {
		sum := sha256.Sum256([]byte("email-idempotency:" + idempotencyKey))
		id = hex.EncodeToString(sum[:16])
	}
	_, domain, ok := strings.Cut(fromEmail, "@")
	if !ok || domain == "" {
		domain = "localhost"
	}
	return id + "@" + domain
}
