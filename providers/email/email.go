// Package email sends transactional email through a provider interface. The
// SMTP adapter speaks the real wire protocol (net/smtp); the sandbox
// provider, for local runs, keeps messages in memory and logs that it did.
package email

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/mail"
	"net/smtp"
	"strings"
	"sync"
	"time"
)

// Message is one plain-text email.
type Message struct {
	To      string
	Subject string
	Text    string
}

// Sender delivers a message or says why not.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// SMTP delivers through an SMTP server (RFC 5321): EHLO, STARTTLS when the
// server offers it, AUTH PLAIN when credentials are set, MAIL/RCPT/DATA.
type SMTP struct {
	Addr     string // host:port
	From     string // envelope and header sender
	Username string
	Password string
	Timeout  time.Duration // whole exchange; default 10s
	HelloAs  string        // EHLO name; default localhost
}

var _ Sender = (*SMTP)(nil)

func (s *SMTP) Send(ctx context.Context, m Message) error {
	if err := check(s.From, m); err != nil {
		return err
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	deadline := time.Now().Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	conn, err := (&net.Dialer{Deadline: deadline}).DialContext(ctx, "tcp", s.Addr)
	if err != nil {
		return fmt.Errorf("smtp dial %s: %w", s.Addr, err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(deadline); err != nil {
		return err
	}
	host, _, _ := net.SplitHostPort(s.Addr)
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		return fmt.Errorf("smtp greeting: %w", err)
	}
	defer c.Close()
	hello := s.HelloAs
	if hello == "" {
		hello = "localhost"
	}
	if err := c.Hello(hello); err != nil {
		return fmt.Errorf("smtp EHLO: %w", err)
	}
	if s.Username != "" {
		// net/smtp's PlainAuth refuses to send credentials without TLS
		// unless the server is localhost, which is what we want.
		if err := c.Auth(smtp.PlainAuth("", s.Username, s.Password, host)); err != nil {
			return fmt.Errorf("smtp AUTH: %w", err)
		}
	}
	if err := c.Mail(s.From); err != nil {
		return fmt.Errorf("smtp MAIL FROM: %w", err)
	}
	if err := c.Rcpt(m.To); err != nil {
		return fmt.Errorf("smtp RCPT TO: %w", err)
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("smtp DATA: %w", err)
	}
	if _, err := w.Write(render(s.From, m)); err != nil {
		return fmt.Errorf("smtp body: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("smtp end of data: %w", err)
	}
	return c.Quit()
}

// check refuses header injection: no CR or LF in addresses or the subject.
func check(from string, m Message) error {
	for _, v := range []string{from, m.To, m.Subject} {
		if strings.ContainsAny(v, "\r\n") {
			return errors.New("email: header values must not contain line breaks")
		}
	}
	if _, err := mail.ParseAddress(m.To); err != nil {
		return fmt.Errorf("email: recipient: %w", err)
	}
	if _, err := mail.ParseAddress(from); err != nil {
		return fmt.Errorf("email: sender: %w", err)
	}
	return nil
}

// render writes an RFC 5322 message with CRLF line ends.
func render(from string, m Message) []byte {
	var b strings.Builder
	b.WriteString("From: " + from + "\r\n")
	b.WriteString("To: " + m.To + "\r\n")
	b.WriteString("Subject: " + mime(m.Subject) + "\r\n")
	b.WriteString("Date: " + time.Now().UTC().Format(time.RFC1123Z) + "\r\n")
	b.WriteString("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n")
	body := strings.ReplaceAll(strings.ReplaceAll(m.Text, "\r\n", "\n"), "\n", "\r\n")
	b.WriteString(body)
	if !strings.HasSuffix(body, "\r\n") {
		b.WriteString("\r\n")
	}
	return []byte(b.String())
}

// mime encodes a non-ASCII subject as an RFC 2047 word.
func mime(s string) string {
	for _, r := range s {
		if r > 127 {
			return "=?utf-8?q?" + strings.NewReplacer("=", "=3D", "?", "=3F", "_", "=5F", " ", "_").Replace(s) + "?="
		}
	}
	return s
}

// Sandbox is the clearly named local provider: it sends nothing, keeps the
// last SandboxKeep messages in memory and logs the recipient's domain and the
// subject (never the address, personal data, nor the body, which may hold a
// login link).
type Sandbox struct {
	Log *slog.Logger

	mu   sync.Mutex
	sent []Message
}

var _ Sender = (*Sandbox)(nil)

func (s *Sandbox) Send(_ context.Context, m Message) error {
	s.mu.Lock()
	s.sent = append(s.sent, m)
	if len(s.sent) > SandboxKeep {
		s.sent = append([]Message(nil), s.sent[len(s.sent)-SandboxKeep:]...)
	}
	s.mu.Unlock()
	if s.Log != nil {
		_, domain, _ := strings.Cut(m.To, "@")
		s.Log.Warn("sandbox email provider: message kept, not sent (configure SMTP to deliver)", "to_domain", domain, "subject", m.Subject)
	}
	return nil
}

// SandboxKeep bounds the sandbox's memory.
const SandboxKeep = 100

// Sent lists what the sandbox kept.
func (s *Sandbox) Sent() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.sent...)
}
