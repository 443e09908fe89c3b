package email

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/smtp"
	"net/textproto"
	"time"

	"github.com/platform/backend/providers/delivery"
	"github.com/platform/backend/providers/outcome"
)

// SMTP delivers through an SMTP server (RFC 5321): EHLO, STARTTLS when the
// server offers it, AUTH PLAIN when credentials are set, MAIL/RCPT/DATA.
// The zero value of each optional field is its default.
type SMTP struct {
	Addr string // host:port
	// From is the envelope sender (where bounces go), and the header From
	// of messages that name none (the identity service's).
	From     string
	Username string
	Password string
	Timeout  time.Duration // whole exchange; default 10s
	HelloAs  string        // EHLO name; default localhost
}

const providerSMTP = "smtp"

var (
	_ Sender   = (*SMTP)(nil)
	_ Provider = (*SMTP)(nil)
)

// Validate checks the configuration.
func (s *SMTP) Validate() error {
	if _, _, err := net.SplitHostPort(s.Addr); err != nil {
		return errors.New("smtp: Addr must be host:port")
	}
	if _, err := ParseAddress(s.From); err != nil {
		return errors.New("smtp: From must be an address")
	}
	return nil
}

// Send delivers the identity service's simple message from s.From.
func (s *SMTP) Send(ctx context.Context, m Message) error {
	from, err := ParseAddress(s.From)
	if err != nil {
		return delivery.Fail(providerSMTP, outcome.Invalid, "sender: invalid address")
	}
	_, err = s.Deliver(ctx, m.outgoing(from))
	return err
}

// Deliver sends the full message as MIME to every recipient (to, cc, bcc)
// in one transaction. A recipient the server refuses aborts the whole
// message: nothing is half-sent. The receipt's MessageID is the
// Message-ID header (without angle brackets).
func (s *SMTP) Deliver(ctx context.Context, m Outgoing) (delivery.Receipt, error) {
	if m.From.Email == "" {
		if from, err := ParseAddress(s.From); err == nil {
			m.From = from
		}
	}
	if err := m.Validate(providerSMTP); err != nil {
		return delivery.Receipt{}, err
	}
	envelopeFrom := m.From.Email
	if from, err := ParseAddress(s.From); err == nil {
		envelopeFrom = from.Email
	}
	id := newMessageID(m.IdempotencyKey, m.From.Email)
	data := renderMIME(m, id, time.Now())
	if err := s.exchange(ctx, envelopeFrom, m, data); err != nil {
		return delivery.Receipt{}, err
	}
	return delivery.Receipt{Provider: providerSMTP, MessageID: id, Units: delivery.Units{Messages: m.Recipients()}}, nil
}

// exchange runs one SMTP session. The connection's deadline bounds it, and
// the caller's context ending closes the connection at once.
func (s *SMTP) exchange(ctx context.Context, envelopeFrom string, m Outgoing, data []byte) error {
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	stage := "connect"
	fail := func(err error) error { return classifySMTP(ctx, stage, err) }
	conn, err := (&net.Dialer{Timeout: timeout}).DialContext(ctx, "tcp", s.Addr)
	if err != nil {
		return fail(err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if err := conn.SetDeadline(time.Now().Add(timeout)); err != nil {
		return fail(err)
	}
	host, _, _ := net.SplitHostPort(s.Addr)
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		return fail(err)
	}
	defer c.Close()
	hello := s.HelloAs
	if hello == "" {
		hello = "localhost"
	}
	if err := c.Hello(hello); err != nil {
		return fail(err)
	}
	if ok, _ := c.Extension("STARTTLS"); ok {
		stage = "starttls"
		if err := c.StartTLS(&tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}); err != nil {
			return fail(err)
		}
	}
	if s.Username != "" {
		stage = "auth"
		// net/smtp's PlainAuth refuses to send credentials without TLS
		// unless the server is localhost, which is what we want.
		if err := c.Auth(smtp.PlainAuth("", s.Username, s.Password, host)); err != nil {
			return fail(err)
		}
	}
	stage = "mail"
	if err := c.Mail(envelopeFrom); err != nil {
		return fail(err)
	}
	stage = "rcpt"
	for _, list := range [][]Address{m.To, m.Cc, m.Bcc} {
		for _, a := range list {
			if err := c.Rcpt(a.Email); err != nil {
				return fail(err)
			}
		}
	}
	stage = "data"
	w, err := c.Data()
	if err != nil {
		return fail(err)
	}
	if _, err := w.Write(data); err != nil {
		return fail(err)
	}
	if err := w.Close(); err != nil {
		return fail(err)
	}
	// The message is accepted once DATA ends with 250; a failed QUIT
	// changes nothing.
	_ = c.Quit()
	return nil
}

// classifySMTP maps a failed stage to a kind. Reply codes decide: 4xx is a
// transient refusal (the server's trouble), 5xx a permanent one (this
// message's, or at AUTH the credential's).
func classifySMTP(ctx context.Context, stage string, err error) error {
	e := &delivery.Error{Provider: providerSMTP, Err: err}
	var reply *textproto.Error
	var netErr net.Error
	switch {
	case ctx.Err() != nil:
		e.Kind, e.Reason, e.Err = outcome.Canceled, "caller canceled", ctx.Err()
	case errors.As(err, &reply):
		e.Status = reply.Code
		switch {
		case reply.Code >= 500 && stage == "auth":
			e.Kind, e.Reason = outcome.Unauthorized, "credentials refused"
		case reply.Code >= 500 && stage == "rcpt":
			e.Kind, e.Reason = outcome.Rejected, "recipient refused"
		case reply.Code >= 500 && stage == "mail":
			e.Kind, e.Reason = outcome.Rejected, "sender refused"
		case reply.Code >= 500 && stage == "data":
			e.Kind, e.Reason = outcome.Rejected, "message refused"
		case reply.Code >= 500:
			e.Kind, e.Reason = outcome.ProviderFault, "server refused the session"
		default:
			e.Kind, e.Reason = outcome.ProviderFault, "server deferred"
		}
	case errors.As(err, &netErr) && netErr.Timeout():
		e.Kind, e.Reason, e.Timeout, e.MaybeDelivered = outcome.ProviderFault, "server timed out", true, stage == "data"
	case stage == "auth":
		// net/smtp's own refusals: no AUTH offered, credentials over a
		// connection without TLS. The connection's configuration is wrong.
		e.Kind, e.Reason = outcome.Unauthorized, "cannot authenticate"
	case stage == "starttls":
		e.Kind, e.Reason = outcome.ProviderFault, "TLS handshake failed"
	case stage == "connect":
		e.Kind, e.Reason = outcome.ProviderFault, "server unreachable"
	default:
		e.Kind, e.Reason, e.MaybeDelivered = outcome.ProviderFault, "connection lost", stage == "data"
	}
	return e
}
