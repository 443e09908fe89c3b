package email

import (
	"encoding/base64"
	"maps"
	"mime"
	"net/mail"
	"net/textproto"
	"slices"
	"strconv"
	"strings"

	"github.com/platform/backend/providers/delivery"
	"github.com/platform/backend/providers/outcome"
)

// Limits of the gateway's email.send (seed 001) that adapters enforce too.
const (
	MaxSubject         = 998
	MaxAttachments     = 20
	MaxAttachmentName  = 255 // filename and content type
	MaxIdempotencyKey  = 256
	DefaultContentType = "application/octet-stream"
)

// Outgoing is the full message of the gateway's email.send.
type Outgoing struct {
	From    Address
	To      []Address // at least one
	Cc      []Address
	Bcc     []Address
	ReplyTo []Address
	Subject string
	HTML    string
	Text    string // at least one of HTML and Text
	Tags    []Tag
	// MessageStream selects a Postmark message stream ("outbound",
	// "broadcast"); other adapters have no such notion and ignore it.
	MessageStream string
	Attachments   []Attachment
	// Metadata are key/values the provider keeps with the message and
	// returns in its webhooks (Postmark Metadata; Resend tags; SMTP has no
	// place for them and drops them).
	Metadata map[string]string
	// Headers are extra message headers ("X-Campaign", "List-Unsubscribe");
	// headers the message itself defines (From, To, Subject, Content-*, ...)
	// are refused.
	Headers map[string]string
	// IdempotencyKey makes a retried delivery one message where the
	// provider supports it (Resend's Idempotency-Key; SMTP derives the
	// Message-ID from it; Postmark has nothing of the kind).
	IdempotencyKey string
}

// Address is a mailbox: an optional display name and an address.
type Address struct {
	Name  string
	Email string
}

// String is the address as a header value: "Name <a@b>" with the name
// quoted or RFC 2047-encoded as needed, or the bare address.
func (a Address) String() string {
	if a.Name == "" {
		return a.Email
	}
	return (&mail.Address{Name: a.Name, Address: a.Email}).String()
}

// ParseAddress reads "a@b" or "Name <a@b>".
func ParseAddress(s string) (Address, error) {
	a, err := mail.ParseAddress(s)
	if err != nil {
		return Address{}, err
	}
	return Address{Name: a.Name, Email: a.Address}, nil
}

// Tag is a name/value label for the provider's analytics and webhooks.
type Tag struct {
	Name  string
	Value string
}

// Attachment is a file carried by the message.
type Attachment struct {
	Filename    string
	Content     string // base64 (standard alphabet, padded), as email.send takes it
	ContentType string // default application/octet-stream
}

// Recipients counts to, cc and bcc: the units the gateway meters.
func (m Outgoing) Recipients() int { return len(m.To) + len(m.Cc) + len(m.Bcc) }

// reservedHeaders are defined by the message itself; Headers may not set them.
var reservedHeaders = map[string]bool{"From": true, "To": true, "Cc": true, "Bcc": true, "Reply-To": true,
	"Subject": true, "Date": true, "Message-Id": true, "Mime-Version": true, "Content-Type": true,
	"Content-Transfer-Encoding": true, "Content-Disposition": true, "Sender": true, "Return-Path": true}

// Validate checks what every adapter needs before anything is sent; its
// error is a *delivery.Error of kind Invalid naming the member at fault.
func (m Outgoing) Validate(provider string) error {
	invalid := func(reason string) error { return delivery.Fail(provider, outcome.Invalid, reason) }
	if err := m.From.check(); err != "" {
		return invalid("from: " + err)
	}
	if len(m.To) == 0 {
		return invalid("to: at least one recipient")
	}
	for _, l := range []struct {
		member string
		list   []Address
	}{{"to", m.To}, {"cc", m.Cc}, {"bcc", m.Bcc}, {"reply_to", m.ReplyTo}} {
		for i, a := range l.list {
			if err := a.check(); err != "" {
				return invalid(l.member + "/" + strconv.Itoa(i) + ": " + err)
			}
		}
	}
	switch {
	case m.Subject == "" || len([]rune(m.Subject)) > MaxSubject:
		return invalid("subject: 1 to 998 characters")
	case strings.ContainsAny(m.Subject, "\r\n"):
		return invalid("subject: line break")
	case m.HTML == "" && m.Text == "":
		return invalid("html or text required")
	case len(m.Attachments) > MaxAttachments:
		return invalid("attachments: at most 20")
	case len(m.IdempotencyKey) > MaxIdempotencyKey:
		return invalid("idempotency key: at most 256 characters")
	}
	for i, a := range m.Attachments {
		if err := a.check(); err != "" {
			return invalid("attachments/" + strconv.Itoa(i) + ": " + err)
		}
	}
	for i, t := range m.Tags {
		if t.Name == "" || t.Value == "" || strings.ContainsAny(t.Name+t.Value, "\r\n") {
			return invalid("tags/" + strconv.Itoa(i) + ": name and value required, one line each")
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m.Headers)) {
		v := m.Headers[k]
		if !isToken(k) || strings.ContainsAny(v, "\r\n") {
			return invalid("headers: a name must be a token, a value one line")
		}
		if reservedHeaders[textproto.CanonicalMIMEHeaderKey(k)] {
			return invalid("headers: " + k + " is set by the message itself")
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m.Metadata)) {
		v := m.Metadata[k]
		if k == "" || strings.ContainsAny(k+v, "\r\n") {
			return invalid("metadata: a key must be non-empty, a value one line")
		}
	}
	return nil
}

func (a Address) check() string {
	if strings.ContainsAny(a.Name+a.Email, "\r\n") {
		return "line break"
	}
	parsed, err := mail.ParseAddress(a.Email)
	if err != nil || parsed.Address != a.Email {
		return "invalid address"
	}
	return ""
}

func (a Attachment) check() string {
	switch {
	case a.Filename == "" || len(a.Filename) > MaxAttachmentName || strings.ContainsAny(a.Filename, "\r\n\"/\\"):
		return "filename: 1 to 255 characters, no path"
	case len(a.ContentType) > MaxAttachmentName:
		return "content type: at most 255 characters"
	case a.ContentType != "" && !validMediaType(a.ContentType):
		return "content type: not a media type"
	case a.Content == "":
		return "content required"
	}
	if _, err := base64.StdEncoding.DecodeString(a.Content); err != nil {
		return "content: not base64"
	}
	return ""
}

// contentType is the attachment's media type, defaulted.
func (a Attachment) contentType() string {
	if a.ContentType == "" {
		return DefaultContentType
	}
	return a.ContentType
}

func validMediaType(s string) bool {
	_, _, err := mime.ParseMediaType(s)
	return err == nil
}

// isToken: an RFC 5322 field name (printable ASCII but colon, no space).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r <= ' ' || r >= 127 || r == ':' {
			return false
		}
	}
	return true
}
