package email_test

import (
	"context"
	"strings"
	"testing"

	"github.com/platform/backend/providers/email"
	"github.com/platform/backend/providers/email/smtptest"
)

func TestSMTPDeliversOverTheWire(t *testing.T) {
	srv := smtptest.Start(t)
	s := &email.SMTP{Addr: srv.Addr, From: "noreply@platform.test"}
	err := s.Send(context.Background(), email.Message{To: "owner@example.com", Subject: "Your link",
		Text: "Open this:\n.\nhttps://id.example/magic-link/consume?token=x"})
	if err != nil {
		t.Fatal(err)
	}
	msgs := srv.Messages()
	if len(msgs) != 1 {
		t.Fatalf("%d messages, want 1", len(msgs))
	}
	m := msgs[0]
	if m.From != "noreply@platform.test" || len(m.To) != 1 || m.To[0] != "owner@example.com" {
		t.Fatalf("envelope %+v", m)
	}
	for _, want := range []string{"Subject: Your link\r\n", "To: owner@example.com\r\n", "\r\n.\r\nhttps://id.example/magic-link/consume?token=x\r\n"} {
		if !strings.Contains(m.Data, want) {
			t.Fatalf("data lacks %q:\n%s", want, m.Data)
		}
	}
}

func TestSMTPRefusesHeaderInjection(t *testing.T) {
	srv := smtptest.Start(t)
	s := &email.SMTP{Addr: srv.Addr, From: "noreply@platform.test"}
	tests := map[string]email.Message{
		"subject": {To: "a@example.com", Subject: "hi\r\nBcc: victim@example.com", Text: "x"},
		"to":      {To: "a@example.com\r\nBcc: victim@example.com", Subject: "hi", Text: "x"},
		"bad to":  {To: "not an address", Subject: "hi", Text: "x"},
	}
	for name, m := range tests {
		t.Run(name, func(t *testing.T) {
			if err := s.Send(context.Background(), m); err == nil {
				t.Fatal("sent")
			}
		})
	}
	if n := len(srv.Messages()); n != 0 {
		t.Fatalf("%d messages reached the server", n)
	}
}

func TestSMTPUnreachableFails(t *testing.T) {
	s := &email.SMTP{Addr: "127.0.0.1:1", From: "noreply@platform.test"}
	if err := s.Send(context.Background(), email.Message{To: "a@example.com", Subject: "x", Text: "y"}); err == nil {
		t.Fatal("an unreachable server is an error")
	}
}
