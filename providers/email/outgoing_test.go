package email_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/platform/backend/providers/delivery"
	"github.com/platform/backend/providers/email"
	"github.com/platform/backend/providers/outcome"
)

func TestOutgoingValidate(t *testing.T) {
	valid := func() email.Outgoing {
		return email.Outgoing{From: email.Address{Name: "P", Email: "p@platform.test"}, To: []email.Address{{Email: "a@example.com"}},
			Subject: "s", Text: "t"}
	}
	many := make([]email.Attachment, 21)
	for i := range many {
		many[i] = email.Attachment{Filename: "f", Content: "eA=="}
	}
	tests := []struct {
		name   string
		change func(*email.Outgoing)
		reason string // a part of the reason; "" means valid
	}{
		{name: "valid", change: func(*email.Outgoing) {}},
		{name: "no recipient", change: func(m *email.Outgoing) { m.To = nil }, reason: "to: at least one"},
		{name: "bad cc", change: func(m *email.Outgoing) { m.Cc = []email.Address{{Email: "nope"}} }, reason: "cc/0: invalid address"},
		{name: "address with a display part", change: func(m *email.Outgoing) { m.To[0].Email = "X <a@example.com>" }, reason: "to/0"},
		{name: "line break in a name", change: func(m *email.Outgoing) { m.From.Name = "P\r\nBcc: v@example.com" }, reason: "from: line break"},
		{name: "no from", change: func(m *email.Outgoing) { m.From = email.Address{} }, reason: "from"},
		{name: "empty subject", change: func(m *email.Outgoing) { m.Subject = "" }, reason: "subject"},
		{name: "subject too long", change: func(m *email.Outgoing) { m.Subject = strings.Repeat("é", 999) }, reason: "subject"},
		{name: "subject at the limit", change: func(m *email.Outgoing) { m.Subject = strings.Repeat("é", 998) }},
		{name: "no body", change: func(m *email.Outgoing) { m.Text = "" }, reason: "html or text"},
		{name: "21 attachments", change: func(m *email.Outgoing) { m.Attachments = many }, reason: "at most 20"},
		{name: "attachment not base64", change: func(m *email.Outgoing) { m.Attachments = many[:1]; m.Attachments[0].Content = "%%%" }, reason: "not base64"},
		{name: "attachment path", change: func(m *email.Outgoing) { m.Attachments = []email.Attachment{{Filename: "../x", Content: "eA=="}} }, reason: "filename"},
		{name: "tag without value", change: func(m *email.Outgoing) { m.Tags = []email.Tag{{Name: "n"}} }, reason: "tags/0"},
		{name: "reserved header", change: func(m *email.Outgoing) { m.Headers = map[string]string{"bcc": "v@example.com"} }, reason: "set by the message"},
		{name: "header injection", change: func(m *email.Outgoing) { m.Headers = map[string]string{"X-A": "1\r\nBcc: v@example.com"} }, reason: "headers"},
		{name: "long idempotency key", change: func(m *email.Outgoing) { m.IdempotencyKey = strings.Repeat("k", 257) }, reason: "idempotency"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := valid()
			tc.change(&m)
			err := m.Validate("test")
			if tc.reason == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var de *delivery.Error
			if !errors.As(err, &de) || de.Kind != outcome.Invalid || !strings.Contains(de.Reason, tc.reason) {
				t.Fatalf("got %v, want invalid %q", err, tc.reason)
			}
		})
	}
}
