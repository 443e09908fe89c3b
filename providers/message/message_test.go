package message_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/platform/backend/providers/message"
	"github.com/platform/backend/providers/outcome"
)

func TestOutgoingValidate(t *testing.T) {
	tests := []struct {
		name string
		m    message.Outgoing
		ok   bool
	}{
		{name: "text", m: message.Outgoing{To: "15551234567", Text: "hi"}, ok: true},
		{name: "text at the limit", m: message.Outgoing{To: "15551234567", Text: strings.Repeat("é", 4096)}, ok: true},
		{name: "text too long", m: message.Outgoing{To: "15551234567", Text: strings.Repeat("é", 4097)}},
		{name: "empty text", m: message.Outgoing{To: "15551234567"}},
		{name: "short recipient", m: message.Outgoing{To: "1234", Text: "hi"}},
		{name: "long recipient", m: message.Outgoing{To: strings.Repeat("1", 41), Text: "hi"}},
		{name: "template", m: message.Outgoing{To: "15551234567", Type: message.TypeTemplate,
			Template: message.Template{Name: "hello_world", Language: "en_US", Components: []json.RawMessage{json.RawMessage(`{"type":"body"}`)}}}, ok: true},
		{name: "template without language", m: message.Outgoing{To: "15551234567", Type: message.TypeTemplate, Template: message.Template{Name: "x"}}},
		{name: "template component not an object", m: message.Outgoing{To: "15551234567", Type: message.TypeTemplate,
			Template: message.Template{Name: "x", Language: "en", Components: []json.RawMessage{json.RawMessage(`[1]`)}}}},
		{name: "unknown type", m: message.Outgoing{To: "15551234567", Type: "image", Text: "x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.m.Validate("test")
			if tc.ok != (err == nil) {
				t.Fatalf("got %v", err)
			}
			if err != nil && outcome.Of(err) != outcome.Invalid {
				t.Fatalf("kind %s", outcome.Of(err))
			}
		})
	}
	if n := (message.Outgoing{Text: "héllo"}).Characters(); n != 5 {
		t.Fatalf("characters %d", n)
	}
}
