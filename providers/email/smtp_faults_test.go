package email_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/platform/backend/providers/delivery"
	"github.com/platform/backend/providers/email"
	"github.com/platform/backend/providers/email/smtptest"
	"github.com/platform/backend/providers/outcome"
)

func TestSMTPClassifiesFailures(t *testing.T) {
	tests := []struct {
		name       string
		script     func(*smtptest.Server)
		username   string
		cancelSoon bool
		kind       outcome.Kind
		status     int
	}{
		{name: "recipient refused", script: func(s *smtptest.Server) { s.ReplyNext("RCPT", "550 5.1.1 no such user") },
			kind: outcome.Rejected, status: 550},
		{name: "sender refused", script: func(s *smtptest.Server) { s.ReplyNext("MAIL", "553 5.7.1 sender not allowed") },
			kind: outcome.Rejected, status: 553},
		{name: "message refused at end of data", script: func(s *smtptest.Server) { s.ReplyNext("DATA", "554 5.7.1 spam") },
			kind: outcome.Rejected, status: 554},
		{name: "transient deferral", script: func(s *smtptest.Server) { s.ReplyNext("MAIL", "451 4.3.0 try later") },
			kind: outcome.ProviderFault, status: 451},
		{name: "wrong credentials", script: func(s *smtptest.Server) { s.RequireAuth("user", "right") }, username: "user",
			kind: outcome.Unauthorized, status: 535},
		{name: "server hangs past the timeout", script: func(s *smtptest.Server) { s.ReplyNext("RCPT", smtptest.Hang) },
			kind: outcome.ProviderFault},
		{name: "caller cancels while the server hangs", script: func(s *smtptest.Server) { s.ReplyNext("EHLO", smtptest.Hang) },
			cancelSoon: true, kind: outcome.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := smtptest.Start(t)
			tc.script(srv)
			s := &email.SMTP{Addr: srv.Addr, From: "noreply@platform.test", Username: tc.username, Password: "wrong",
				Timeout: 300 * time.Millisecond}
			ctx := context.Background()
			if tc.cancelSoon {
				s.Timeout = 10 * time.Second
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				time.AfterFunc(50*time.Millisecond, cancel)
			}
			_, err := s.Deliver(ctx, email.Outgoing{To: []email.Address{{Email: "a@example.com"}}, Subject: "s", Text: "t"})
			var de *delivery.Error
			if !errors.As(err, &de) {
				t.Fatalf("error %v is not classified", err)
			}
			if de.Timeout != (tc.name == "server hangs past the timeout") {
				t.Fatalf("timeout flag %v on %+v", de.Timeout, de)
			}
			if de.Kind != tc.kind || de.Status != tc.status {
				t.Fatalf("kind %s status %d (%v), want %s %d", de.Kind, de.Status, err, tc.kind, tc.status)
			}
			if tc.kind == outcome.Canceled && !errors.Is(err, context.Canceled) {
				t.Fatalf("canceled error does not wrap context.Canceled: %v", err)
			}
			if n := len(srv.Messages()); n != 0 {
				t.Fatalf("%d messages accepted", n)
			}
		})
	}
}

func TestSMTPAuthenticates(t *testing.T) {
	srv := smtptest.Start(t)
	srv.RequireAuth("user", "secret")
	s := &email.SMTP{Addr: srv.Addr, From: "noreply@platform.test", Username: "user", Password: "secret"}
	if err := s.Send(context.Background(), email.Message{To: "a@example.com", Subject: "s", Text: "t"}); err != nil {
		t.Fatal(err)
	}
	if len(srv.Messages()) != 1 {
		t.Fatal("not delivered")
	}
}

func TestSMTPValidate(t *testing.T) {
	for name, s := range map[string]email.SMTP{"no port": {Addr: "localhost", From: "a@b.c"}, "no from": {Addr: "localhost:25"}} {
		if err := s.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := (&email.SMTP{Addr: "localhost:25", From: "Platform <a@b.c>"}).Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestSandboxKeepsAndValidates(t *testing.T) {
	var s email.Sandbox
	if err := s.Send(context.Background(), email.Message{To: "a@example.com", Subject: "Your link", Text: "x"}); err != nil {
		t.Fatal(err)
	}
	rec, err := s.Deliver(context.Background(), email.Outgoing{From: email.Address{Email: "n@platform.test"},
		To: []email.Address{{Email: "a@example.com"}}, Bcc: []email.Address{{Email: "b@example.com"}}, Subject: "s", Text: "t"})
	if err != nil || rec.Units.Messages != 2 || rec.Provider != "sandbox" {
		t.Fatalf("%+v %v", rec, err)
	}
	if _, err := s.Deliver(context.Background(), email.Outgoing{To: []email.Address{{Email: "a@example.com"}}}); outcome.Of(err) != outcome.Invalid {
		t.Fatalf("invalid message: %v", err)
	}
	sent := s.Sent()
	if len(sent) != 2 || sent[0].To[0].Email != "a@example.com" || sent[0].Subject != "Your link" {
		t.Fatalf("sent %+v", sent)
	}
}
